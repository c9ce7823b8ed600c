package io.floe.spark.read.exec;

import io.floe.spark.types.IcebergToSpark;
import java.io.IOException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * Reads the tasks of one input partition, in order, as Spark rows, each task through a {@link
 * RowTask}, opening up to {@code prefetch-files} tasks ahead of the one being read.
 */
public final class FloeRowReader implements PartitionReader<InternalRow> {
  private final TaskPrefetcher<RowTask> tasks;
  private final ReaderMetrics metrics = new ReaderMetrics();
  private RowTask current;
  private int taskIndex = -1;
  private InternalRow row;

  /**
   * @param settings what the scan's readers share
   * @param tasks the tasks of one input partition, in order
   */
  public FloeRowReader(ReadSettings settings, List<FileScanTask> tasks) {
    IcebergToSpark converter = new IcebergToSpark(settings.readSchema().asStruct());
    this.tasks =
        new TaskPrefetcher<>(
            tasks,
            settings.prefetchFiles(),
            task -> RowTask.open(settings, task, converter));
  }

  /**
   * A reader that keeps, of the rows of each task, only those its {@code onlyDeletedBy} delete
   * files delete (all rows where that list is empty), as a changelog reads rows removed by new
   * position, deletion-vector or equality deletes.
   *
   * @param settings what the scan's readers share
   * @param tasks the tasks of one input partition, in order, each a distinct instance
   * @param onlyDeletedBy for each task, in the same order, position deletes, deletion vectors or
   *     equality deletes
   */
  FloeRowReader(
      ReadSettings settings, List<FileScanTask> tasks, List<List<DeleteFile>> onlyDeletedBy) {
    if (tasks.size() != onlyDeletedBy.size()) {
      throw new IllegalArgumentException(
          "Cannot read " + settings.tableName() + ": " + tasks.size() + " tasks but "
              + onlyDeletedBy.size() + " lists of delete files");
    }
    // the prefetcher hands the opener tasks, not positions: find each task's list by identity
    Map<FileScanTask, List<DeleteFile>> deletedBy = new IdentityHashMap<>();
    for (int i = 0; i < tasks.size(); i++) {
      if (deletedBy.put(tasks.get(i), onlyDeletedBy.get(i)) != null) {
        throw new IllegalArgumentException(
            "Cannot read " + settings.tableName() + ": a task is listed twice: " + tasks.get(i));
      }
    }
    IcebergToSpark converter = new IcebergToSpark(settings.readSchema().asStruct());
    this.tasks =
        new TaskPrefetcher<>(
            tasks,
            settings.prefetchFiles(),
            task -> RowTask.open(settings, task, deletedBy.get(task), converter));
  }

  @Override
  public boolean next() throws IOException {
    while (current == null || !current.hasNext()) {
      closeCurrent();
      if (!tasks.hasNext()) {
        return false;
      }
      current = tasks.next();
      taskIndex++;
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

  /**
   * The position, in the tasks given, of the task the current row comes from (the prefetcher
   * hands tasks back in the order given); -1 before the first row.
   */
  int taskIndex() {
    return taskIndex;
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
