package io.floe.spark.read.exec;

import java.io.Closeable;
import java.io.IOException;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** One opened file task producing columnar batches; a batch is valid until the next call. */
interface TaskBatches extends Closeable {
  /** The next batch with at least one row, or null when the task is exhausted. */
  ColumnarBatch next() throws IOException;

  /** Bytes of the task's split, or 0 for a task that reads no data file. */
  long bytes();

  /** Parquet row groups read, or 0 when the task is not read by row groups. */
  int rowGroups();
}
