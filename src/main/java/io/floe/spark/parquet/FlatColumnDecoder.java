package io.floe.spark.parquet;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * Decodes one flat (top-level, not repeated) Parquet column, page by page, into a Spark column
 * vector: PLAIN and dictionary-encoded values (and RLE booleans), definition levels in RLE or the
 * old bit-packed encoding, data pages of either version.
 *
 * <p>Values are read straight from each decompressed page's byte array: fixed-width values
 * without NULLs are copied into the vector in bulk, dictionary ids are unpacked eight at a time,
 * and nothing is allocated per value. Dictionary pages are read the same way, numeric entries in
 * bulk. A page that does not hold the values its header promises fails the read with the column
 * and file named, rather than return wrong rows.
 */
final class FlatColumnDecoder {
  /** How the column's values are stored in Parquet and in the vector. */
  enum Kind {
    BOOLEAN,
    INT,
    LONG,
    FLOAT,
    DOUBLE,
    /** Values of their own length: strings, binary, decimals of more than 18 digits. */
    BYTES,
    /** Values of the column's fixed length: binary and decimals of more than 18 digits. */
    FIXED;

    /** Whether values are decoded into a {@link BytesBatchVector}. */
    boolean bytes() {
      return this == BYTES || this == FIXED;
    }
  }

  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final ColumnDescriptor descriptor;
  private final Kind kind;
  private final String source;
  private final PageBuffers buffers;
  private final int maxDefinition;
  private final WritableColumnVector vector;
  private final BytesBatchVector byteValues;
  // a string column whose ASCII values Spark is told the character count of (AsciiStrings)
  private final boolean countsCharacters;
  private final int fixedLength;
  // pages finished during the current batch, whose bytes its plain values may refer to
  private final List<BytesInput> heldPages = new ArrayList<>();
  private final int[] levels;
  private final int[] ids;
  private final HybridIntDecoder levelDecoder = new HybridIntDecoder();
  private final HybridIntDecoder valueDecoder = new HybridIntDecoder();

  private PageReader pages;
  private int[] intDictionary;
  private long[] longDictionary;
  private float[] floatDictionary;
  private double[] doubleDictionary;
  private boolean hasDictionary;
  private int dictionarySize;

  private int pageValuesLeft;
  private ValuesReader oldLevels;
  private boolean dictionaryEncoded;
  private boolean rleBooleans;
  private BytesInput pageBytes;
  private byte[] page;
  private int position;
  private int end;
  private int booleanBit;

  FlatColumnDecoder(
      ColumnDescriptor descriptor,
      Kind kind,
      DataType type,
      int capacity,
      String source,
      PageBuffers buffers) {
    this.descriptor = descriptor;
    this.kind = kind;
    this.source = source;
    this.buffers = buffers;
    this.maxDefinition = descriptor.getMaxDefinitionLevel();
    this.fixedLength = descriptor.getPrimitiveType().getTypeLength();
    if (kind.bytes()) {
      // only plain values of variable length are checked for bytes that are not ASCII
      this.countsCharacters =
          kind == Kind.BYTES && type instanceof StringType && AsciiStrings.available();
      this.byteValues = new BytesBatchVector(capacity, type, countsCharacters);
      this.vector = null;
    } else {
      this.byteValues = null;
      this.vector = new OnHeapColumnVector(capacity, type);
      this.countsCharacters = false;
    }
    this.levels = new int[capacity];
    this.ids = new int[capacity];
  }

  ColumnDescriptor descriptor() {
    return descriptor;
  }

  ColumnVector vector() {
    return kind.bytes() ? byteValues : vector;
  }

  /** Moves to the column's chunk in the next row group: its pages and dictionary. */
  void startRowGroup(PageReader chunk) throws IOException {
    this.pages = chunk;
    this.pageValuesLeft = 0;
    DictionaryPage dictionaryPage = chunk.readDictionaryPage();
    try {
      readDictionary(dictionaryPage);
    } finally {
      if (dictionaryPage != null) {
        // the entries were copied out of the page, so its array can hold the next page
        buffers.giveBack(dictionaryPage.getBytes());
      }
    }
  }

  private void readDictionary(DictionaryPage dictionaryPage) throws IOException {
    hasDictionary = dictionaryPage != null;
    dictionarySize = 0;
    if (!hasDictionary) {
      if (kind.bytes()) {
        byteValues.setDictionary(null);
      }
      return;
    }
    Encoding encoding = dictionaryPage.getEncoding();
    if (encoding != Encoding.PLAIN && encoding != Encoding.PLAIN_DICTIONARY) {
      throw failure("a dictionary page in the unsupported encoding " + encoding);
    }
    int size = dictionaryPage.getDictionarySize();
    if (size < 0) {
      throw failure("a dictionary page of " + size + " entries");
    }
    ByteBuffer buffer = onHeap(dictionaryPage.getBytes());
    byte[] bytes = buffer.array();
    int start = buffer.arrayOffset() + buffer.position();
    int length = buffer.remaining();
    // the entries are plain values of the column's own physical type (the kind matches it), read
    // here in bulk: Parquet's own dictionaries read them one at a time into arrays of their own,
    // which were then copied again, for every row group
    if (kind.bytes()) {
      byteValues.setDictionary(
          kind == Kind.BYTES
              ? lengthPrefixedEntries(bytes, start, length, size)
              : fixedEntries(bytes, start, length, size));
      dictionarySize = size;
      return;
    }
    int width =
        switch (kind) {
          case INT, FLOAT -> Integer.BYTES;
          case LONG, DOUBLE -> Long.BYTES;
          default -> throw failure("a dictionary page for a " + kind + " column");
        };
    ByteBuffer entries = plainEntries(bytes, start, length, size, width);
    switch (kind) {
      case INT -> entries.asIntBuffer().get(intDictionary = atLeast(intDictionary, size), 0, size);
      case LONG ->
          entries.asLongBuffer().get(longDictionary = atLeast(longDictionary, size), 0, size);
      case FLOAT ->
          entries.asFloatBuffer().get(floatDictionary = atLeast(floatDictionary, size), 0, size);
      default ->
          entries.asDoubleBuffer().get(doubleDictionary = atLeast(doubleDictionary, size), 0, size);
    }
    dictionarySize = size;
  }

  /** The first {@code size} values of {@code width} bytes each, little-endian, as a buffer. */
  private ByteBuffer plainEntries(byte[] bytes, int start, int length, int size, int width) {
    if ((long) size * width > length) {
      throw failure(
          "a dictionary page of " + length + " bytes for " + size + " entries of " + width
              + " bytes");
    }
    return ByteBuffer.wrap(bytes, start, size * width).slice().order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Entries each preceded by its length as a 4-byte little-endian int (PLAIN binary). */
  private byte[][] lengthPrefixedEntries(byte[] bytes, int start, int length, int size) {
    byte[][] entries = new byte[size][];
    int at = start;
    int limit = start + length;
    for (int i = 0; i < size; i++) {
      if (limit - at < Integer.BYTES) {
        throw failure("a dictionary page that ends before its entry " + i + " of " + size);
      }
      int entryLength = (int) INTS.get(bytes, at);
      at += Integer.BYTES;
      if (entryLength < 0 || entryLength > limit - at) {
        throw failure(
            "a dictionary entry of " + entryLength + " bytes where " + (limit - at) + " remain");
      }
      entries[i] = Arrays.copyOfRange(bytes, at, at + entryLength);
      at += entryLength;
    }
    return entries;
  }

  /** Entries of the column's fixed length, one after another (PLAIN fixed-length binary). */
  private byte[][] fixedEntries(byte[] bytes, int start, int length, int size) {
    if ((long) size * fixedLength > length) {
      throw failure(
          "a dictionary page of " + length + " bytes for " + size + " entries of " + fixedLength
              + " bytes");
    }
    byte[][] entries = new byte[size][];
    for (int i = 0; i < size; i++) {
      int at = start + i * fixedLength;
      entries[i] = Arrays.copyOfRange(bytes, at, at + fixedLength);
    }
    return entries;
  }

  // a dictionary array outlives its row group: ids are checked against the current size, so a
  // larger array from an earlier row group is reused rather than allocated (often over a megabyte)
  private static int[] atLeast(int[] array, int size) {
    return array != null && array.length >= size ? array : new int[size];
  }

  private static long[] atLeast(long[] array, int size) {
    return array != null && array.length >= size ? array : new long[size];
  }

  private static float[] atLeast(float[] array, int size) {
    return array != null && array.length >= size ? array : new float[size];
  }

  private static double[] atLeast(double[] array, int size) {
    return array != null && array.length >= size ? array : new double[size];
  }

  /** Decodes the column's next {@code rows} values into its vector, from row 0. */
  void readBatch(int rows) throws IOException {
    if (kind.bytes()) {
      // the last batch's values are gone: its finished pages may hold later pages
      giveBackHeldPages();
      byteValues.reset();
      if (page != null) {
        byteValues.usePage(page);
      }
    } else {
      vector.reset();
    }
    int row = 0;
    while (row < rows) {
      if (pageValuesLeft == 0) {
        readPage();
      }
      int n = Math.min(pageValuesLeft, rows - row);
      int present = maxDefinition == 0 ? n : readLevels(row, n);
      if (dictionaryEncoded) {
        decodeIds(row, n, present);
      } else {
        decodePlain(row, n, present);
      }
      pageValuesLeft -= n;
      row += n;
    }
  }

  /** Gives back every page this decoder still holds, once nothing reads its last batch. */
  void release() {
    giveBackHeldPages();
    buffers.giveBack(pageBytes);
    pageBytes = null;
    page = null;
  }

  private void giveBackHeldPages() {
    for (BytesInput held : heldPages) {
      buffers.giveBack(held);
    }
    heldPages.clear();
  }

  private int readLevels(int row, int n) {
    if (oldLevels == null) {
      return levelDecoder.readAndCount(levels, row, n, maxDefinition);
    }
    int present = 0;
    for (int i = row; i < row + n; i++) {
      levels[i] = oldLevels.readInteger();
      if (levels[i] == maxDefinition) {
        present++;
      }
    }
    return present;
  }

  private void readPage() throws IOException {
    if (kind.bytes()) {
      // the batch's plain values may lie in the finished page: it is given back with the batch
      if (pageBytes != null) {
        heldPages.add(pageBytes);
      }
    } else {
      // nothing refers to the finished page any more: values were copied into the vector
      buffers.giveBack(pageBytes);
    }
    pageBytes = null;
    page = null;
    DataPage next = pages.readPage();
    if (next == null) {
      throw failure("fewer values than its row group's row count");
    }
    int count = next.getValueCount();
    Encoding encoding;
    oldLevels = null;
    if (next instanceof DataPageV1 v1) {
      setPage(v1.getBytes());
      if (maxDefinition > 0) {
        if (v1.getDlEncoding() == Encoding.RLE) {
          int length = intAt(position);
          position += 4;
          if (length < 0 || position + length > end) {
            throw failure("definition levels longer than their page");
          }
          levelDecoder.reset(page, position, length, bitWidth(maxDefinition), source);
          position += length;
        } else {
          oldLevels = v1.getDlEncoding().getValuesReader(descriptor, ValuesType.DEFINITION_LEVEL);
          ByteBufferInputStream in =
              ByteBufferInputStream.wrap(ByteBuffer.wrap(page, position, end - position));
          oldLevels.initFromPage(count, in);
          position += (int) in.position();
        }
      }
      encoding = v1.getValueEncoding();
    } else if (next instanceof DataPageV2 v2) {
      if (maxDefinition > 0) {
        byte[] definitions = v2.getDefinitionLevels().toByteArray();
        levelDecoder.reset(
            definitions, 0, definitions.length, bitWidth(maxDefinition), source);
      }
      setPage(v2.getData());
      encoding = v2.getDataEncoding();
    } else {
      throw failure("a data page of unknown kind " + next.getClass().getSimpleName());
    }
    dictionaryEncoded = encoding.usesDictionary();
    rleBooleans = false;
    if (dictionaryEncoded) {
      if (!hasDictionary) {
        throw failure("dictionary-encoded values without a dictionary page");
      }
      if (position >= end) {
        // a page whose values are all NULL may hold no id bytes at all
        valueDecoder.reset(page, position, 0, 0, source);
      } else {
        int width = page[position] & 0xFF;
        valueDecoder.reset(page, position + 1, end - position - 1, width, source);
      }
    } else if (kind == Kind.BOOLEAN && encoding == Encoding.RLE) {
      int length = intAt(position);
      if (length < 0 || position + 4 + length > end) {
        throw failure("RLE booleans longer than their page");
      }
      valueDecoder.reset(page, position + 4, length, 1, source);
      rleBooleans = true;
    } else if (encoding != Encoding.PLAIN) {
      throw failure("values in the unsupported encoding " + encoding);
    }
    booleanBit = 0;
    pageValuesLeft = count;
  }

  /**
   * Points {@link #page}, {@link #position} and {@link #end} at a page's bytes, without copying
   * them when they are already in a heap array (as Parquet's decompressors leave them).
   */
  private void setPage(BytesInput bytes) throws IOException {
    pageBytes = bytes;
    ByteBuffer buffer = onHeap(bytes);
    page = buffer.array();
    position = buffer.arrayOffset() + buffer.position();
    end = position + buffer.remaining();
    if (kind.bytes()) {
      byteValues.usePage(page);
    }
  }
  /** A page's bytes in a heap array: the one they are already in, else a copy. */
  private static ByteBuffer onHeap(BytesInput bytes) throws IOException {
    ByteBuffer buffer = bytes.toByteBuffer();
    return buffer.hasArray() ? buffer : ByteBuffer.wrap(bytes.toByteArray());
  }


  private static int bitWidth(int maxLevel) {
    return 32 - Integer.numberOfLeadingZeros(maxLevel);
  }

  private void decodeIds(int row, int n, int present) {
    valueDecoder.read(ids, 0, present);
    for (int k = 0; k < present; k++) {
      if (Integer.compareUnsigned(ids[k], dictionarySize) >= 0) {
        throw failure("dictionary id " + ids[k] + " of a dictionary of " + dictionarySize);
      }
    }
    if (present < n) {
      spreadIds(row, n, present);
    }
    // one loop per kind, so each stays small and is compiled early
    switch (kind) {
      case INT -> {
        int[] dictionary = intDictionary;
        for (int i = 0; i < n; i++) {
          if (ids[i] >= 0) {
            vector.putInt(row + i, dictionary[ids[i]]);
          }
        }
      }
      case LONG -> {
        long[] dictionary = longDictionary;
        for (int i = 0; i < n; i++) {
          if (ids[i] >= 0) {
            vector.putLong(row + i, dictionary[ids[i]]);
          }
        }
      }
      case FLOAT -> {
        float[] dictionary = floatDictionary;
        for (int i = 0; i < n; i++) {
          if (ids[i] >= 0) {
            vector.putFloat(row + i, dictionary[ids[i]]);
          }
        }
      }
      case DOUBLE -> {
        double[] dictionary = doubleDictionary;
        for (int i = 0; i < n; i++) {
          if (ids[i] >= 0) {
            vector.putDouble(row + i, dictionary[ids[i]]);
          }
        }
      }
      case BYTES, FIXED -> {
        for (int i = 0; i < n; i++) {
          if (ids[i] >= 0) {
            byteValues.putId(row + i, ids[i]);
          }
        }
      }
      default -> throw failure("dictionary-encoded " + kind + " values");
    }
  }

  /**
   * Moves the {@code present} ids decoded for the {@code n} rows from {@code row} to those rows'
   * places in {@link #ids}, -1 for a NULL row (which it marks NULL). Done from the back, an id
   * never lands before its own decoded place, so nothing is overwritten before it is moved.
   */
  private void spreadIds(int row, int n, int present) {
    int k = present;
    for (int i = n - 1; i >= 0; i--) {
      if (levels[row + i] == maxDefinition) {
        ids[i] = ids[--k];
      } else {
        ids[i] = -1;
        putNull(row + i);
      }
    }
  }

  private void putNull(int row) {
    if (kind.bytes()) {
      byteValues.putNull(row);
    } else {
      vector.putNull(row);
    }
  }

  private void decodePlain(int row, int n, int present) {
    switch (kind) {
      case LONG -> fixedWidth(row, n, present, 8);
      case INT -> fixedWidth(row, n, present, 4);
      case DOUBLE -> fixedWidth(row, n, present, 8);
      case FLOAT -> fixedWidth(row, n, present, 4);
      case BOOLEAN -> booleans(row, n, present);
      case BYTES -> plainBytes(row, n);
      case FIXED -> plainFixedLength(row, n);
      default -> throw failure("PLAIN " + kind + " values");
    }
  }

  private void fixedWidth(int row, int n, int present, int width) {
    int bytes = present * width;
    if (bytes < 0 || position + bytes > end) {
      throw failure("fewer value bytes than its page's value count");
    }
    if (present == n) {
      switch (kind) {
        case LONG -> vector.putLongsLittleEndian(row, n, page, position);
        case INT -> vector.putIntsLittleEndian(row, n, page, position);
        case DOUBLE -> vector.putDoublesLittleEndian(row, n, page, position);
        default -> vector.putFloatsLittleEndian(row, n, page, position);
      }
      position += bytes;
      return;
    }
    for (int i = row; i < row + n; i++) {
      if (levels[i] != maxDefinition) {
        vector.putNull(i);
      } else {
        putFixed(i);
        position += width;
      }
    }
  }

  private void putFixed(int row) {
    switch (kind) {
      case LONG -> vector.putLong(row, (long) LONGS.get(page, position));
      case INT -> vector.putInt(row, (int) INTS.get(page, position));
      case DOUBLE ->
          vector.putDouble(row, Double.longBitsToDouble((long) LONGS.get(page, position)));
      default -> vector.putFloat(row, Float.intBitsToFloat((int) INTS.get(page, position)));
    }
  }

  private void booleans(int row, int n, int present) {
    if (rleBooleans) {
      valueDecoder.read(ids, 0, present);
      int next = 0;
      for (int i = row; i < row + n; i++) {
        if (maxDefinition > 0 && levels[i] != maxDefinition) {
          vector.putNull(i);
        } else {
          vector.putBoolean(i, ids[next++] != 0);
        }
      }
      return;
    }
    if (position + ((booleanBit + (long) present + 7) >>> 3) > end) {
      throw failure("fewer boolean bytes than its page's value count");
    }
    int i = row;
    int to = row + n;
    if (present == n) {
      // whole bytes of plain bits go to the vector eight at a time, low bit first as Parquet
      // packs them
      while (i < to && (booleanBit & 7) != 0) {
        vector.putBoolean(i++, nextBit());
      }
      for (; to - i >= 8; i += 8, booleanBit += 8) {
        vector.putBooleans(i, page[position + (booleanBit >>> 3)]);
      }
    }
    for (; i < to; i++) {
      if (maxDefinition > 0 && levels[i] != maxDefinition) {
        vector.putNull(i);
      } else {
        vector.putBoolean(i, nextBit());
      }
    }
  }

  private boolean nextBit() {
    boolean value = ((page[position + (booleanBit >>> 3)] >>> (booleanBit & 7)) & 1) != 0;
    booleanBit++;
    return value;
  }

  private void plainBytes(int row, int n) {
    long highBits = 0;
    for (int i = row; i < row + n; i++) {
      if (maxDefinition > 0 && levels[i] != maxDefinition) {
        byteValues.putNull(i);
        continue;
      }
      int length = intAt(position);
      position += 4;
      if (length < 0 || position + length > end) {
        throw failure("a value longer than its page");
      }
      byteValues.putBytes(i, position, length);
      if (countsCharacters) {
        highBits |= AsciiStrings.highBits(page, position, length);
      }
      position += length;
    }
    if ((highBits & AsciiStrings.HIGH_BITS) != 0) {
      byteValues.plainNotAscii();
    }
  }

  private void plainFixedLength(int row, int n) {
    for (int i = row; i < row + n; i++) {
      if (maxDefinition > 0 && levels[i] != maxDefinition) {
        byteValues.putNull(i);
        continue;
      }
      if (position + fixedLength > end) {
        throw failure("fewer value bytes than its page's value count");
      }
      byteValues.putBytes(i, position, fixedLength);
      position += fixedLength;
    }
  }

  private int intAt(int index) {
    if (index + 4 > end) {
      throw failure("fewer value bytes than its page's value count");
    }
    return (int) INTS.get(page, index);
  }

  private IllegalStateException failure(String what) {
    return new IllegalStateException("Cannot read column " + source + ": found " + what);
  }
}
