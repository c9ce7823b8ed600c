package io.floe.spark.read;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One Spark input partition: a group of file tasks planned on the driver. The executor that gets it
 * reads exactly these tasks (each a file, or a split of one, with its delete files and residual
 * filter) and plans nothing.
 */
public final class FloeInputPartition implements InputPartition {
  private final int index;
  private final List<FileScanTask> tasks;

  /**
   * @param index the partition's position in the scan's plan
   * @param tasks the file tasks to read, in order
   */
  public FloeInputPartition(int index, List<FileScanTask> tasks) {
    if (index < 0) {
      throw new IllegalArgumentException("Cannot create input partition: negative index " + index);
    }
    this.index = index;
    this.tasks = List.copyOf(Objects.requireNonNull(tasks, "tasks is null"));
  }

  public int index() {
    return index;
  }

  public List<FileScanTask> tasks() {
    return tasks;
  }

  /** Bytes this partition reads, before deletes. */
  public long sizeInBytes() {
    return tasks.stream().mapToLong(FileScanTask::length).sum();
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

  private List<String> keys() {
    return tasks.stream().map(FloeInputPartition::taskKey).collect(Collectors.toList());
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
    return index == that.index && keys().equals(that.keys());
  }

  @Override
  public int hashCode() {
    return Objects.hash(index, keys());
  }

  @Override
  public String toString() {
    return "FloeInputPartition{index=" + index + ", tasks=" + keys() + "}";
  }
}
