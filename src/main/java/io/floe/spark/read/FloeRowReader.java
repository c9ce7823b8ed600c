package io.floe.spark.read;

import io.floe.spark.types.IcebergToSpark;
import java.io.IOException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * Reads the tasks of one input partition, in order, as Spark rows, each task through a {@link
 * RowTask}, opening up to {@code prefetch-files} tasks ahead of the one being read.
 */
final class FloeRowReader implements PartitionReader<InternalRow> {
  private final TaskPrefetcher<RowTask> tasks;
  private final ReaderMetrics metrics = new ReaderMetrics();
  private RowTask current;
  private InternalRow row;

  FloeRowReader(FloeReaderFactory factory, FloeInputPartition partition) {
    IcebergToSpark converter = new IcebergToSpark(factory.readSchema().asStruct());
    this.tasks =
        new TaskPrefetcher<>(
            partition.tasks(),
            factory.prefetchFiles(),
            task -> RowTask.open(factory, task, converter));
  }

  @Override
  public boolean next() throws IOException {
    while (current == null || !current.hasNext()) {
      closeCurrent();
      if (!tasks.hasNext()) {
        return false;
      }
      current = tasks.next();
      if (current.bytes() > 0) {
        metrics.fileOpened(current.bytes());
      }
    }
    row = current.next();
    return true;
  }

  @Override
  public InternalRow get() {
    return row;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return metrics.taskValues();
  }

  @Override
  public void close() throws IOException {
    try {
      closeCurrent();
    } finally {
      tasks.close();
    }
  }

  private void closeCurrent() throws IOException {
    if (current != null) {
      RowTask closing = current;
      current = null;
      closing.close();
    }
  }
}
