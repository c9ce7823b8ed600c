package io.floe.spark.parquet;

import org.apache.spark.sql.execution.datasources.parquet.ParquetDictionary;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A string column of Spark's vectorized Parquet reader that hands out one {@code UTF8String} per
 * dictionary entry of its column chunk, instead of a new one for every row read.
 *
 * <p>Spark's reader keeps a batch of dictionary-encoded strings as ids and builds a new {@code
 * UTF8String} each time a row's value is read. Since Spark 4 that constructor writes four volatile
 * fields, so on a string-heavy scan building the strings costs more than decoding the Parquet pages
 * (about 40% of a full scan's executor time in profiles). This view builds each entry's string the
 * first time an id is read and returns that instance for every later row with the same id, for as
 * long as the reader stays on the same column chunk (the chunk's Parquet dictionary is the key:
 * Spark wraps it anew for every batch). Sharing is safe because a {@code UTF8String} is never
 * modified in place and the dictionary's bytes are not reused. Batches the reader decoded to plain
 * values, and every other accessor, read straight through.
 *
 * <p>The view owns nothing: closing it leaves the reader's vector open.
 */
final class DictionaryStringVector extends ColumnVector {
  private final WritableColumnVector delegate;
  private org.apache.parquet.column.Dictionary source;
  private ParquetDictionary dictionary;
  private UTF8String[] values;
  private WritableColumnVector ids;

  DictionaryStringVector(WritableColumnVector delegate) {
    super(delegate.dataType());
    this.delegate = delegate;
  }

  /**
   * Takes note of the batch the reader just decoded: its dictionary, if it left one, and when that
   * is a new chunk's dictionary, drops the strings built for the last one.
   */
  void refresh() {
    ParquetDictionary current =
        delegate.hasDictionary() ? DictionaryFields.parquetDictionary(delegate) : null;
    if (current == null || DictionaryFields.transforms(current)) {
      ids = null;
      return;
    }
    org.apache.parquet.column.Dictionary parquet = DictionaryFields.source(current);
    if (parquet != source) {
      source = parquet;
      values = new UTF8String[parquet.getMaxId() + 1];
    }
    dictionary = current;
    ids = delegate.getDictionaryIds();
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    WritableColumnVector dictionaryIds = ids;
    if (dictionaryIds == null) {
      return delegate.getUTF8String(rowId);
    }
    if (delegate.isNullAt(rowId)) {
      return null;
    }
    int id = dictionaryIds.getDictId(rowId);
    UTF8String value = values[id];
    if (value == null) {
      value = UTF8String.fromBytes(dictionary.decodeToBinary(id));
      values[id] = value;
    }
    return value;
  }

  @Override
  public void close() {}

  @Override
  public boolean hasNull() {
    return delegate.hasNull();
  }

  @Override
  public int numNulls() {
    return delegate.numNulls();
  }

  @Override
  public boolean isNullAt(int rowId) {
    return delegate.isNullAt(rowId);
  }

  @Override
  public boolean getBoolean(int rowId) {
    return delegate.getBoolean(rowId);
  }

  @Override
  public byte getByte(int rowId) {
    return delegate.getByte(rowId);
  }

  @Override
  public short getShort(int rowId) {
    return delegate.getShort(rowId);
  }

  @Override
  public int getInt(int rowId) {
    return delegate.getInt(rowId);
  }

  @Override
  public long getLong(int rowId) {
    return delegate.getLong(rowId);
  }

  @Override
  public float getFloat(int rowId) {
    return delegate.getFloat(rowId);
  }

  @Override
  public double getDouble(int rowId) {
    return delegate.getDouble(rowId);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    return delegate.getArray(rowId);
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    return delegate.getMap(rowId);
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    return delegate.getDecimal(rowId, precision, scale);
  }

  @Override
  public byte[] getBinary(int rowId) {
    return delegate.getBinary(rowId);
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    return delegate.getChild(ordinal);
  }
}
