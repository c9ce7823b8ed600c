package io.floe.spark.orc;

import org.apache.orc.storage.ql.exec.vector.TimestampColumnVector;
import org.apache.spark.sql.types.DataType;

/**
 * Timestamps (with and without zone) as Spark's microseconds from ORC's timestamp vector, which
 * holds milliseconds from the epoch and, apart, the nanoseconds of the second. Nanoseconds below a
 * microsecond are dropped (rounding toward negative infinity, as Iceberg's readers do).
 */
final class OrcTimestampVector extends OrcVector {
  private final TimestampColumnVector timestamps;

  OrcTimestampVector(DataType type, TimestampColumnVector timestamps) {
    super(type, timestamps);
    this.timestamps = timestamps;
  }

  @Override
  public long getLong(int rowId) {
    int row = row(rowId);
    return Math.floorDiv(timestamps.time[row], 1_000L) * 1_000_000L + timestamps.nanos[row] / 1_000;
  }
}
