package io.floe.spark.read;

import io.floe.spark.read.plan.ChangeTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One Spark input partition of a changelog read: change tasks planned on the driver. The executor
 * that gets it reads exactly these files and plans nothing.
 */
public final class ChangelogInputPartition implements InputPartition {
  private final int index;
  private final List<ChangeTask> tasks;

  /**
   * @param index the partition's position in the scan's plan
   * @param tasks the change tasks to read, in order
   */
  public ChangelogInputPartition(int index, List<ChangeTask> tasks) {
    if (index < 0) {
      throw new IllegalArgumentException("Cannot create input partition: negative index " + index);
    }
    this.index = index;
    this.tasks = List.copyOf(Objects.requireNonNull(tasks, "tasks is null"));
  }

  /** The input partitions of planned groups, numbered in order. */
  static List<ChangelogInputPartition> of(List<List<ChangeTask>> groups) {
    List<ChangelogInputPartition> partitions = new ArrayList<>(groups.size());
    for (List<ChangeTask> group : groups) {
      partitions.add(new ChangelogInputPartition(partitions.size(), group));
    }
    return partitions;
  }

  public int index() {
    return index;
  }

  public List<ChangeTask> tasks() {
    return tasks;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ChangelogInputPartition)) {
      return false;
    }
    ChangelogInputPartition that = (ChangelogInputPartition) other;
    return index == that.index && tasks.equals(that.tasks);
  }

  @Override
  public int hashCode() {
    return Objects.hash(index, tasks);
  }

  @Override
  public String toString() {
    return "ChangelogInputPartition{index=" + index + ", tasks=" + tasks + "}";
  }
}
