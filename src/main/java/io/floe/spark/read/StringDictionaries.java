package io.floe.spark.read;

import java.util.Arrays;
import org.apache.spark.sql.execution.datasources.parquet.ParquetDictionary;
import org.apache.spark.sql.execution.vectorized.Dictionary;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Decodes each dictionary-encoded string value of a Parquet column chunk once, instead of once per
 * row.
 *
 * <p>Spark's vectorized reader keeps dictionary-encoded strings as ids and decodes an id every time a
 * row's value is read, copying the value's bytes out of the dictionary page each time; on string-heavy
 * scans that copy is the largest single cost. This wraps the dictionary of every string column of a
 * batch in one that keeps each decoded value, for as long as the reader stays on the same column
 * chunk (Spark hands each batch a new wrapper around the chunk's one Parquet dictionary, so the cache
 * is keyed by that dictionary). Sharing the bytes between rows is safe because a {@code UTF8String}
 * is never modified in place; binary columns are left alone since {@code getBinary} hands out the
 * array itself.
 *
 * <p>It reaches non-public fields of Spark's reader through {@link DictionaryFields}; should a Spark
 * version not have them, it turns itself off and reads stay as fast as Spark's own.
 */
final class StringDictionaries {
  private final int[] columns;
  private final CachedDictionary[] cached;

  private StringDictionaries(int[] columns) {
    this.columns = columns;
    this.cached = new CachedDictionary[columns.length];
  }

  /**
   * The cache for the string columns of {@code batch}, the reader's result batch whose vectors are
   * reused for every batch; null when there is nothing to cache.
   */
  static StringDictionaries forBatch(ColumnarBatch batch) {
    if (!DictionaryFields.available()) {
      return null;
    }
    int[] columns = new int[batch.numCols()];
    int count = 0;
    for (int i = 0; i < batch.numCols(); i++) {
      ColumnVector vector = batch.column(i);
      if (vector instanceof WritableColumnVector && vector.dataType() instanceof StringType) {
        columns[count++] = i;
      }
    }
    return count == 0 ? null : new StringDictionaries(Arrays.copyOf(columns, count));
  }

  /** Replaces the dictionaries the reader just set on {@code batch} by caching ones. */
  void apply(ColumnarBatch batch) {
    for (int i = 0; i < columns.length; i++) {
      WritableColumnVector vector = (WritableColumnVector) batch.column(columns[i]);
      if (!vector.hasDictionary()) {
        continue;
      }
      ParquetDictionary spark = DictionaryFields.parquetDictionary(vector);
      if (spark == null || DictionaryFields.transforms(spark)) {
        continue;
      }
      org.apache.parquet.column.Dictionary parquet = DictionaryFields.source(spark);
      CachedDictionary last = cached[i];
      if (last == null || last.parquet != parquet) {
        last = new CachedDictionary(parquet, spark);
        cached[i] = last;
      }
      vector.setDictionary(last);
    }
  }

  /** A chunk's string dictionary whose values are decoded on first use and then kept. */
  private static final class CachedDictionary implements Dictionary {
    private final org.apache.parquet.column.Dictionary parquet;
    private final Dictionary spark;
    private final byte[][] values;

    CachedDictionary(org.apache.parquet.column.Dictionary parquet, Dictionary spark) {
      this.parquet = parquet;
      this.spark = spark;
      this.values = new byte[parquet.getMaxId() + 1][];
    }

    @Override
    public byte[] decodeToBinary(int id) {
      byte[] value = values[id];
      if (value == null) {
        value = spark.decodeToBinary(id);
        values[id] = value;
      }
      return value;
    }

    @Override
    public int decodeToInt(int id) {
      return spark.decodeToInt(id);
    }

    @Override
    public long decodeToLong(int id) {
      return spark.decodeToLong(id);
    }

    @Override
    public float decodeToFloat(int id) {
      return spark.decodeToFloat(id);
    }

    @Override
    public double decodeToDouble(int id) {
      return spark.decodeToDouble(id);
    }
  }
}
