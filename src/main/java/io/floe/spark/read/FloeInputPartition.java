package io.floe.spark.read;

import io.floe.spark.read.plan.TaskGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.ContentScanTask;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.HasPartitionKey;

/**
 * One Spark input partition: a group of scan tasks planned on the driver. The executor that gets
 * it reads exactly these tasks and plans nothing. For a data or metadata table they are file tasks
 * (each a file, or a split of one, with its delete files and residual filter); for the {@code
 * position_deletes} metadata table, which Iceberg plans only as such, they are delete-file tasks
 * (position delete files and deletion vectors, each read whole).
 *
 * <p>When the scan reports a key-grouped partitioning, every task of the partition holds the same
 * partition key, carried as {@link #partitionKey()}; otherwise the key is null and Spark never asks
 * for it.
 */
public final class FloeInputPartition implements HasPartitionKey {
  private final int index;
  private final List<ScanTask> tasks;
  private final InternalRow partitionKey;

  /**
   * @param index the partition's position in the scan's plan
   * @param tasks the scan tasks to read, in order
   * @param partitionKey the partition key all tasks share, in Spark's internal representation of
   *     the reported partition transforms, or null when the scan reports no key-grouped partitioning
   */
  public FloeInputPartition(int index, List<ScanTask> tasks, InternalRow partitionKey) {
    if (index < 0) {
      throw new IllegalArgumentException("Cannot create input partition: negative index " + index);
    }
    this.index = index;
    this.tasks = List.copyOf(Objects.requireNonNull(tasks, "tasks is null"));
    this.partitionKey = partitionKey == null ? null : partitionKey.copy();
  }

  /** The input partitions of planned groups, numbered in order. */
  static List<FloeInputPartition> of(List<TaskGroup> groups) {
    List<FloeInputPartition> partitions = new ArrayList<>(groups.size());
    for (TaskGroup group : groups) {
      partitions.add(new FloeInputPartition(partitions.size(), group.tasks(), group.partitionKey()));
    }
    return partitions;
  }

  /** The planned groups of input partitions, in order. */
  static List<TaskGroup> groups(List<FloeInputPartition> partitions) {
    List<TaskGroup> groups = new ArrayList<>(partitions.size());
    partitions.forEach(partition -> groups.add(partition.group()));
    return groups;
  }

  public int index() {
    return index;
  }

  public List<ScanTask> tasks() {
    return tasks;
  }

  /** The partition key all tasks share, or null when the scan reports no key-grouped partitioning. */
  @Override
  public InternalRow partitionKey() {
    return partitionKey;
  }

  /** This partition's tasks and key, as the planner formed them. */
  TaskGroup group() {
    return new TaskGroup(tasks, partitionKey);
  }

  /** Bytes this partition reads, before deletes. */
  public long sizeInBytes() {
    long bytes = 0;
    for (ScanTask task : tasks) {
      bytes += task instanceof ContentScanTask ? ((ContentScanTask<?>) task).length() : task.sizeBytes();
    }
    return bytes;
  }

  /**
   * A stable identity of a task: which bytes of which file under which spec, and for a file task
   * with which deletes and residual.
   */
  static String taskKey(ScanTask task) {
    if (task instanceof FileScanTask) {
      FileScanTask file = (FileScanTask) task;
      String deletes =
          file.deletes().stream().map(DeleteFile::location).sorted().collect(Collectors.joining(","));
      return content(file) + "[" + deletes + "]" + file.residual();
    }
    if (task instanceof ContentScanTask) {
      return "deletes:" + content((ContentScanTask<?>) task);
    }
    return task.toString();
  }

  private static String content(ContentScanTask<?> task) {
    return task.file().location()
        + "@"
        + task.start()
        + "+"
        + task.length()
        + "#"
        + task.file().specId();
  }

  private List<String> keys() {
    List<String> keys = new ArrayList<>(tasks.size());
    tasks.forEach(task -> keys.add(taskKey(task)));
    return keys;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeInputPartition)) {
      return false;
    }
    FloeInputPartition that = (FloeInputPartition) other;
    return index == that.index
        && keys().equals(that.keys())
        && Objects.equals(partitionKey, that.partitionKey);
  }

  @Override
  public int hashCode() {
    return Objects.hash(index, keys(), partitionKey);
  }

  @Override
  public String toString() {
    return "FloeInputPartition{index="
        + index
        + (partitionKey == null ? "" : ", partitionKey=" + partitionKey)
        + ", tasks="
        + keys()
        + "}";
  }
}
