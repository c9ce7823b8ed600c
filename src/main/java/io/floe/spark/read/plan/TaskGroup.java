package io.floe.spark.read.plan;

import java.util.List;
import java.util.Objects;
import org.apache.iceberg.ScanTask;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * One group of scan tasks the planner formed, read together by one executor: file tasks of a data
 * or metadata table, or the delete-file tasks of a {@code position_deletes} table.
 *
 * @param tasks the tasks, in the order they are read
 * @param partitionKey the partition key every task shares, in Spark's internal representation of
 *     the reported partition transforms, or null when the scan reports no key-grouped partitioning
 */
public record TaskGroup(List<ScanTask> tasks, InternalRow partitionKey) {
  public TaskGroup {
    tasks = List.copyOf(Objects.requireNonNull(tasks, "tasks is null"));
  }

  /** A group without a partition key. */
  public static TaskGroup of(List<? extends ScanTask> tasks) {
    return new TaskGroup(List.copyOf(tasks), null);
  }

  /** A group whose tasks share {@code partitionKey}. */
  public static TaskGroup of(List<? extends ScanTask> tasks, InternalRow partitionKey) {
    return new TaskGroup(List.copyOf(tasks), partitionKey);
  }
}
