package io.floe.spark.read;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PositionDeletesScanTask;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.HasPartitionKey;

/**
 * One Spark input partition: a group of file tasks planned on the driver. The executor that gets it
 * reads exactly these tasks (each a file, or a split of one, with its delete files and residual
 * filter) and plans nothing.
 *
 * <p>When the scan reports a key-grouped partitioning, every task of the partition holds the same
 * partition key, carried as {@link #partitionKey()}; otherwise the key is null and Spark never asks
 * for it.
 *
 * <p>A partition of the {@code position_deletes} metadata table carries delete-file tasks ({@link
 * #positionDeleteTasks()}: position delete files and deletion vectors, each read whole) instead of
 * file tasks; Iceberg plans that table only as such tasks.
 */
public final class FloeInputPartition implements HasPartitionKey {
  private final int index;
  private final List<FileScanTask> tasks;
  private final InternalRow partitionKey;
  private final List<PositionDeletesScanTask> positionDeleteTasks;

  /**
   * A partition of a scan that reports no key-grouped partitioning.
   *
   * @param index the partition's position in the scan's plan
   * @param tasks the file tasks to read, in order
   */
  public FloeInputPartition(int index, List<FileScanTask> tasks) {
    this(index, tasks, null);
  }

  /**
   * @param index the partition's position in the scan's plan
   * @param tasks the file tasks to read, in order
   * @param partitionKey the partition key all tasks share, in Spark's internal representation of
   *     the reported partition transforms, or null when the scan reports no key-grouped partitioning
   */
  public FloeInputPartition(int index, List<FileScanTask> tasks, InternalRow partitionKey) {
    this(index, tasks, partitionKey, List.of());
  }

  /**
   * A partition of a {@code position_deletes} metadata table scan.
   *
   * @param index the partition's position in the scan's plan
   * @param positionDeleteTasks the delete-file tasks to read, in order
   */
  public static FloeInputPartition ofPositionDeletes(
      int index, List<PositionDeletesScanTask> positionDeleteTasks) {
    return new FloeInputPartition(index, List.of(), null, positionDeleteTasks);
  }

  /**
   * @param index the partition's position in the scan's plan
   * @param tasks the file tasks to read, in order
   * @param partitionKey the partition key all tasks share, in Spark's internal representation of
   *     the reported partition transforms, or null when the scan reports no key-grouped partitioning
   * @param positionDeleteTasks the delete-file tasks of a {@code position_deletes} scan to read, in
   *     order; empty for any other scan
   */
  public FloeInputPartition(
      int index,
      List<FileScanTask> tasks,
      InternalRow partitionKey,
      List<PositionDeletesScanTask> positionDeleteTasks) {
    if (index < 0) {
      throw new IllegalArgumentException("Cannot create input partition: negative index " + index);
    }
    this.index = index;
    this.tasks = List.copyOf(Objects.requireNonNull(tasks, "tasks is null"));
    this.partitionKey = partitionKey == null ? null : partitionKey.copy();
    this.positionDeleteTasks =
        List.copyOf(Objects.requireNonNull(positionDeleteTasks, "positionDeleteTasks is null"));
    if (!this.tasks.isEmpty() && !this.positionDeleteTasks.isEmpty()) {
      throw new IllegalArgumentException(
          "Cannot create input partition " + index + ": it holds file tasks and delete-file tasks");
    }
  }

  public int index() {
    return index;
  }

  public List<FileScanTask> tasks() {
    return tasks;
  }

  /** The delete-file tasks of a {@code position_deletes} scan; empty for any other scan. */
  public List<PositionDeletesScanTask> positionDeleteTasks() {
    return positionDeleteTasks;
  }

  /** The partition key all tasks share, or null when the scan reports no key-grouped partitioning. */
  @Override
  public InternalRow partitionKey() {
    return partitionKey;
  }

  /** Bytes this partition reads, before deletes. */
  public long sizeInBytes() {
    return tasks.stream().mapToLong(FileScanTask::length).sum()
        + positionDeleteTasks.stream().mapToLong(PositionDeletesScanTask::length).sum();
  }

  /** A stable identity of a task: which bytes of which file, with which deletes, under which spec. */
  static String taskKey(FileScanTask task) {
    String deletes =
        task.deletes().stream().map(DeleteFile::location).sorted().collect(Collectors.joining(","));
    return task.file().location()
        + "@"
        + task.start()
        + "+"
        + task.length()
        + "#"
        + task.file().specId()
        + "["
        + deletes
        + "]"
        + task.residual();
  }

  /** A stable identity of a delete-file task: which bytes of which delete file, under which spec. */
  static String taskKey(PositionDeletesScanTask task) {
    return "deletes:"
        + task.file().location()
        + "@"
        + task.start()
        + "+"
        + task.length()
        + "#"
        + task.file().specId();
  }

  private List<String> keys() {
    List<String> keys = new ArrayList<>(tasks.size() + positionDeleteTasks.size());
    tasks.forEach(task -> keys.add(taskKey(task)));
    positionDeleteTasks.forEach(task -> keys.add(taskKey(task)));
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
