package io.floe.spark.orc;

import org.apache.orc.storage.ql.exec.vector.LongColumnVector;
import org.apache.spark.sql.types.DataType;

/** Booleans (0 or 1), ints, longs and dates (days from the epoch) from ORC's long vector. */
final class OrcLongVector extends OrcVector {
  private final LongColumnVector longs;

  OrcLongVector(DataType type, LongColumnVector longs) {
    super(type, longs);
    this.longs = longs;
  }

  @Override
  public boolean getBoolean(int rowId) {
    return longs.vector[row(rowId)] != 0;
  }

  @Override
  public int getInt(int rowId) {
    return (int) longs.vector[row(rowId)];
  }

  @Override
  public long getLong(int rowId) {
    return longs.vector[row(rowId)];
  }
}
