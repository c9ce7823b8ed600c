package io.floe.spark.parquet;

import java.lang.reflect.Field;
import org.apache.spark.sql.execution.datasources.parquet.ParquetDictionary;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reaches the dictionary Spark's vectorized Parquet reader leaves on a column vector and the Parquet
 * dictionary inside it: non-public fields, looked up once. When a Spark version does not have them,
 * {@link #available()} is false and callers leave Spark's lazy decoding alone.
 */
final class DictionaryFields {
  private static final Logger LOG = LoggerFactory.getLogger(DictionaryFields.class);
  private static final Field VECTOR_DICTIONARY;
  private static final Field PARQUET_DICTIONARY;
  private static final Field NEEDS_TRANSFORM;

  static {
    Field vector = null;
    Field parquet = null;
    Field transform = null;
    try {
      vector = WritableColumnVector.class.getDeclaredField("dictionary");
      parquet = ParquetDictionary.class.getDeclaredField("dictionary");
      transform = ParquetDictionary.class.getDeclaredField("needTransform");
      vector.setAccessible(true);
      parquet.setAccessible(true);
      transform.setAccessible(true);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.info("Decoding Parquet dictionaries per row as Spark does: {}", e.toString());
      vector = null;
      parquet = null;
      transform = null;
    }
    VECTOR_DICTIONARY = vector;
    PARQUET_DICTIONARY = parquet;
    NEEDS_TRANSFORM = transform;
  }

  private DictionaryFields() {}

  static boolean available() {
    return VECTOR_DICTIONARY != null;
  }

  /** The Parquet dictionary {@code vector} decodes through, or null when it has another kind. */
  static ParquetDictionary parquetDictionary(WritableColumnVector vector) {
    try {
      return VECTOR_DICTIONARY.get(vector) instanceof ParquetDictionary dictionary
          ? dictionary
          : null;
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("Cannot read a Parquet dictionary", e);
    }
  }

  /** The column chunk's own dictionary inside Spark's wrapper. */
  static org.apache.parquet.column.Dictionary source(ParquetDictionary dictionary) {
    try {
      return (org.apache.parquet.column.Dictionary) PARQUET_DICTIONARY.get(dictionary);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("Cannot read a Parquet dictionary", e);
    }
  }

  /** Whether Spark's wrapper converts values (unsigned or decimal) as it decodes them. */
  static boolean transforms(ParquetDictionary dictionary) {
    try {
      return NEEDS_TRANSFORM.getBoolean(dictionary);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("Cannot read a Parquet dictionary", e);
    }
  }
}
