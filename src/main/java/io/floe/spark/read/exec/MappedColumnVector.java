package io.floe.spark.read.exec;

import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A view of a column vector that shows only the rows a batch keeps after deletes: row {@code i} of
 * the view is row {@code rows[i]} of the underlying vector. The view owns nothing; closing it leaves
 * the underlying vector open for the reader that filled it.
 */
final class MappedColumnVector extends ColumnVector {
  private final ColumnVector delegate;
  private final int[] rows;
  private final int numRows;
  private int numNulls = -1;

  MappedColumnVector(ColumnVector delegate, int[] rows, int numRows) {
    super(delegate.dataType());
    this.delegate = delegate;
    this.rows = rows;
    this.numRows = numRows;
  }

  @Override
  public void close() {}

  @Override
  public boolean hasNull() {
    return delegate.hasNull() && numNulls() > 0;
  }

  @Override
  public int numNulls() {
    if (numNulls < 0) {
      int count = 0;
      if (delegate.hasNull()) {
        for (int i = 0; i < numRows; i++) {
          if (delegate.isNullAt(rows[i])) {
            count++;
          }
        }
      }
      numNulls = count;
    }
    return numNulls;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return delegate.isNullAt(rows[rowId]);
  }

  @Override
  public boolean getBoolean(int rowId) {
    return delegate.getBoolean(rows[rowId]);
  }

  @Override
  public byte getByte(int rowId) {
    return delegate.getByte(rows[rowId]);
  }

  @Override
  public short getShort(int rowId) {
    return delegate.getShort(rows[rowId]);
  }

  @Override
  public int getInt(int rowId) {
    return delegate.getInt(rows[rowId]);
  }

  @Override
  public long getLong(int rowId) {
    return delegate.getLong(rows[rowId]);
  }

  @Override
  public float getFloat(int rowId) {
    return delegate.getFloat(rows[rowId]);
  }

  @Override
  public double getDouble(int rowId) {
    return delegate.getDouble(rows[rowId]);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    return delegate.getArray(rows[rowId]);
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    return delegate.getMap(rows[rowId]);
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    return delegate.getDecimal(rows[rowId], precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    return delegate.getUTF8String(rows[rowId]);
  }

  @Override
  public byte[] getBinary(int rowId) {
    return delegate.getBinary(rows[rowId]);
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    return new MappedColumnVector(delegate.getChild(ordinal), rows, numRows);
  }
}
