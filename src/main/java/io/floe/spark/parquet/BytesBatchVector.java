package io.floe.spark.parquet;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A batch of byte values decoded by {@link FlatParquetReader}: strings, binary values, and decimals
 * of more than 18 digits (their unscaled value in big-endian two's complement, as Parquet stores
 * it). Each row is NULL, an entry of its column chunk's dictionary, or bytes of its own in a plain
 * page.
 *
 * <p>A dictionary entry's {@code UTF8String} is built the first time a row reads it and then handed
 * to every row with the same entry in the chunk (since Spark 4 building one writes four volatile
 * fields, which dominated string-heavy scans). A plain value is not copied: the vector refers to
 * the decompressed pages the batch's values lie in, which the decoder keeps from reuse until the
 * next batch ({@link FlatColumnDecoder}), and builds the value over the page's bytes on each read.
 * It is valid until the next batch, as values of Spark's own vectors are.
 *
 * <p>A decimal whose unscaled value fits in a long of at most 18 digits is handed out in Spark's
 * compact form, without the {@code BigInteger} and {@code BigDecimal} Spark's own vector builds
 * for every wide decimal; any other is built as Spark's vector builds it, with its precision
 * checked.
 */
final class BytesBatchVector extends ColumnVector {
  /** The most digits Spark keeps in a decimal's long ({@code Decimal.MAX_LONG_DIGITS}). */
  private static final int MAX_LONG_DIGITS = 18;

  /** The least unscaled value of more than {@link #MAX_LONG_DIGITS} digits. */
  private static final long COMPACT_LIMIT = 1_000_000_000_000_000_000L;

  private final boolean[] nulls;
  private final int[] ids;
  private final int[] offsets;
  private final int[] lengths;
  private final int[] pageOf;
  private byte[][] pages = new byte[4][];
  private int pageCount;
  private int numNulls;
  private byte[][] dictionary;
  private UTF8String[] strings;
  private final boolean countsCharacters;
  // cleared by the decoder when a plain string of the batch is not ASCII
  private boolean plainAscii;

  /**
   * @param countsCharacters whether the decoder checks every plain value of a batch for bytes that
   *     are not ASCII ({@link #plainNotAscii}), so that strings over them can be given their
   *     character count ({@link AsciiStrings})
   */
  BytesBatchVector(int capacity, DataType type, boolean countsCharacters) {
    super(type);
    this.nulls = new boolean[capacity];
    this.ids = new int[capacity];
    this.offsets = new int[capacity];
    this.lengths = new int[capacity];
    this.pageOf = new int[capacity];
    this.countsCharacters = countsCharacters;
  }

  /** Starts a new batch. */
  void reset() {
    if (numNulls > 0) {
      Arrays.fill(nulls, false);
      numNulls = 0;
    }
    Arrays.fill(pages, 0, pageCount, null);
    pageCount = 0;
    plainAscii = true;
  }

  /**
   * Makes {@code page} the array the following plain values lie in; the caller keeps it unchanged
   * until this vector's next batch.
   */
  void usePage(byte[] page) {
    if (pageCount > 0 && pages[pageCount - 1] == page) {
      return;
    }
    if (pageCount == pages.length) {
      pages = Arrays.copyOf(pages, pageCount * 2);
    }
    pages[pageCount++] = page;
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

  /**
   * Says that a plain value of the batch holds a byte that is not ASCII. Until then, a string built
   * over a plain value of a vector that counts characters is given its character count.
   */
  void plainNotAscii() {
    plainAscii = false;
  }

  /** A plain value: {@code length} bytes from {@code offset} of the page last {@link #usePage used}. */
  void putBytes(int rowId, int offset, int length) {
    ids[rowId] = -1;
    pageOf[rowId] = pageCount - 1;
    offsets[rowId] = offset;
    lengths[rowId] = length;
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    if (nulls[rowId]) {
      return null;
    }
    int id = ids[rowId];
    if (id < 0) {
      UTF8String plain = UTF8String.fromBytes(pages[pageOf[rowId]], offsets[rowId], lengths[rowId]);
      return plainAscii && countsCharacters ? AsciiStrings.counted(plain) : plain;
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
        ? Arrays.copyOfRange(
            pages[pageOf[rowId]], offsets[rowId], offsets[rowId] + lengths[rowId])
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
    if (nulls[rowId]) {
      return null;
    }
    int id = ids[rowId];
    return id < 0
        ? decimal(pages[pageOf[rowId]], offsets[rowId], lengths[rowId], precision, scale)
        : decimal(dictionary[id], 0, dictionary[id].length, precision, scale);
  }

  /** The decimal of an unscaled value stored in {@code length} big-endian bytes. */
  static Decimal decimal(byte[] source, int offset, int length, int precision, int scale) {
    int start = offset + Math.max(0, length - Long.BYTES);
    if (length > 0 && signExtension(source, offset, start)) {
      // the value fits in a long: sign-extend its last bytes
      long unscaled = source[start];
      for (int i = start + 1; i < offset + length; i++) {
        unscaled = (unscaled << 8) | (source[i] & 0xFF);
      }
      if (precision >= MAX_LONG_DIGITS && unscaled > -COMPACT_LIMIT && unscaled < COMPACT_LIMIT) {
        // Spark's own form for a value of at most 18 digits, which any such precision holds
        return Decimal.createUnsafe(unscaled, precision, scale);
      }
    }
    return Decimal.apply(
        new BigDecimal(new BigInteger(source, offset, length), scale), precision, scale);
  }

  /** Whether the bytes before {@code start} only repeat the sign of the byte at {@code start}. */
  private static boolean signExtension(byte[] source, int offset, int start) {
    byte sign = (byte) (source[start] >> 7);
    for (int i = offset; i < start; i++) {
      if (source[i] != sign) {
        return false;
      }
    }
    return true;
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
