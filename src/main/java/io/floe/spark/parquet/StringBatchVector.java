package io.floe.spark.parquet;

import java.util.Arrays;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A batch of strings decoded by {@link FlatParquetReader}: each row is NULL, an entry of its column
 * chunk's dictionary, or bytes of its own copied from a plain page.
 *
 * <p>A dictionary entry's {@code UTF8String} is built the first time a row reads it and then handed
 * to every row with the same entry in the chunk (since Spark 4 building one writes four volatile
 * fields, which dominated string-heavy scans). A plain value is built on each read, over this
 * vector's bytes, and is valid until the next batch, as Spark's own vectors are.
 */
final class StringBatchVector extends ColumnVector {
  private final boolean[] nulls;
  private final int[] ids;
  private final int[] offsets;
  private final int[] lengths;
  private byte[] bytes = new byte[1024];
  private int used;
  private int numNulls;
  private byte[][] dictionary;
  private UTF8String[] strings;

  StringBatchVector(int capacity, DataType type) {
    super(type);
    this.nulls = new boolean[capacity];
    this.ids = new int[capacity];
    this.offsets = new int[capacity];
    this.lengths = new int[capacity];
  }

  /** Starts a new batch. */
  void reset() {
    if (numNulls > 0) {
      Arrays.fill(nulls, false);
      numNulls = 0;
    }
    used = 0;
  }

  /** Starts a new column chunk, whose dictionary (or null) the following ids refer to. */
  void setDictionary(byte[][] entries) {
    this.dictionary = entries;
    this.strings = entries == null ? null : new UTF8String[entries.length];
  }

  void putNull(int rowId) {
    nulls[rowId] = true;
    numNulls++;
  }

  void putId(int rowId, int id) {
    ids[rowId] = id;
  }

  /** Copies a plain value: {@code length} bytes of {@code source} from {@code offset}. */
  void putBytes(int rowId, byte[] source, int offset, int length) {
    if (used + length > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, used + length));
    }
    System.arraycopy(source, offset, bytes, used, length);
    ids[rowId] = -1;
    offsets[rowId] = used;
    lengths[rowId] = length;
    used += length;
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    if (nulls[rowId]) {
      return null;
    }
    int id = ids[rowId];
    if (id < 0) {
      return UTF8String.fromBytes(bytes, offsets[rowId], lengths[rowId]);
    }
    UTF8String value = strings[id];
    if (value == null) {
      value = UTF8String.fromBytes(dictionary[id]);
      strings[id] = value;
    }
    return value;
  }

  @Override
  public byte[] getBinary(int rowId) {
    if (nulls[rowId]) {
      return null;
    }
    int id = ids[rowId];
    return id < 0
        ? Arrays.copyOfRange(bytes, offsets[rowId], offsets[rowId] + lengths[rowId])
        : dictionary[id].clone();
  }

  @Override
  public void close() {}

  @Override
  public boolean hasNull() {
    return numNulls > 0;
  }

  @Override
  public int numNulls() {
    return numNulls;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return nulls[rowId];
  }

  @Override
  public boolean getBoolean(int rowId) {
    throw unsupported("boolean");
  }

  @Override
  public byte getByte(int rowId) {
    throw unsupported("byte");
  }

  @Override
  public short getShort(int rowId) {
    throw unsupported("short");
  }

  @Override
  public int getInt(int rowId) {
    throw unsupported("int");
  }

  @Override
  public long getLong(int rowId) {
    throw unsupported("long");
  }

  @Override
  public float getFloat(int rowId) {
    throw unsupported("float");
  }

  @Override
  public double getDouble(int rowId) {
    throw unsupported("double");
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw unsupported("array");
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    throw unsupported("map");
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw unsupported("decimal");
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw unsupported("struct");
  }

  private UnsupportedOperationException unsupported(String kind) {
    return new UnsupportedOperationException(
        "Cannot read a " + kind + " from a column of " + dataType().simpleString());
  }
}
