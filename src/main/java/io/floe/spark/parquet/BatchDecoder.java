package io.floe.spark.parquet;

import java.io.Closeable;
import java.io.IOException;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Decodes a Parquet file's selected row groups into one {@link ColumnarBatch} whose vectors are
 * refilled on every call to {@link #nextBatch()}: Spark's own vectorized reader, or Floe's {@link
 * FlatParquetReader} for files of flat columns.
 */
public interface BatchDecoder extends Closeable {
  /** The batch every call to {@link #nextBatch()} refills, columns in the requested order. */
  ColumnarBatch resultBatch();

  /** Decodes the next batch; false when the file's selected row groups are exhausted. */
  boolean nextBatch() throws IOException;
}
