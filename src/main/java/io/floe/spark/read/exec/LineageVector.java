package io.floe.spark.read.exec;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A row-lineage column of a v3 table ({@code _row_id} or {@code _last_updated_sequence_number}) as
 * the spec defines it on read: the value the data file stores, or, where the file stores NULL (or
 * has no such column), the inherited value. For {@code _row_id} that is the file's {@code
 * first_row_id} plus the row's position in the file; for {@code _last_updated_sequence_number} it is
 * the file's data sequence number. A file without a {@code first_row_id} (committed before the table
 * was upgraded to v3, and not yet given one by a later commit) inherits nothing: its stored values
 * are kept and the rest read NULL, as Iceberg's own readers do.
 *
 * <p>The view reads the decoder's vectors of the current batch; it owns nothing.
 */
final class LineageVector extends ColumnVector {
  private final ColumnVector stored;
  private final ColumnVector positions;
  private final Long base;

  private LineageVector(ColumnVector stored, ColumnVector positions, Long base) {
    super(DataTypes.LongType);
    this.stored = stored;
    this.positions = positions;
    this.base = base;
  }

  /**
   * {@code _row_id}: the stored id, else {@code firstRowId + position}.
   *
   * @param stored the file's {@code _row_id} values (all NULL when the file has no such column)
   * @param positions the rows' positions in the file
   * @param firstRowId the file's first row id, or null when it has none
   */
  static LineageVector rowIds(ColumnVector stored, ColumnVector positions, Long firstRowId) {
    return new LineageVector(stored, positions, firstRowId);
  }

  /**
   * {@code _last_updated_sequence_number}: the stored number, else the file's.
   *
   * @param stored the file's values (all NULL when the file has no such column)
   * @param sequenceNumber the file's data sequence number, or null when nothing is inherited
   */
  static LineageVector sequenceNumbers(ColumnVector stored, Long sequenceNumber) {
    return new LineageVector(stored, null, sequenceNumber);
  }

  @Override
  public void close() {}

  @Override
  public boolean hasNull() {
    return base == null && stored.hasNull();
  }

  @Override
  public int numNulls() {
    return base == null ? stored.numNulls() : 0;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return base == null && stored.isNullAt(rowId);
  }

  @Override
  public long getLong(int rowId) {
    if (!stored.isNullAt(rowId)) {
      return stored.getLong(rowId);
    }
    return positions == null ? base : base + positions.getLong(rowId);
  }

  @Override
  public boolean getBoolean(int rowId) {
    throw unsupported();
  }

  @Override
  public byte getByte(int rowId) {
    throw unsupported();
  }

  @Override
  public short getShort(int rowId) {
    throw unsupported();
  }

  @Override
  public int getInt(int rowId) {
    throw unsupported();
  }

  @Override
  public float getFloat(int rowId) {
    throw unsupported();
  }

  @Override
  public double getDouble(int rowId) {
    throw unsupported();
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw unsupported();
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    throw unsupported();
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw unsupported();
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw unsupported();
  }

  @Override
  public byte[] getBinary(int rowId) {
    throw unsupported();
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw unsupported();
  }

  private static UnsupportedOperationException unsupported() {
    return new UnsupportedOperationException("A row-lineage column holds only longs");
  }
}
