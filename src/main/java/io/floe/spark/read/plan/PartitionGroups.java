package io.floe.spark.read.plan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * Which partition of which spec a file task reads: the key by which a copy-on-write scan packs a
 * partition's tasks into one group ({@link TaskGrouping#balanceByPartition}), the check that a
 * plan's groups kept every partition in one group, and the regrouping of a planned scan's tasks
 * so that they do.
 */
public final class PartitionGroups {
  private PartitionGroups() {}

  /** The task's spec id and partition value, equal for tasks of the same partition. */
  static Object key(FileScanTask task) {
    StructLikeWrapper partition =
        StructLikeWrapper.forType(task.spec().partitionType()).set(task.partition());
    return Map.entry(task.spec().specId(), partition);
  }

  /**
   * Whether every task of the groups is of the spec {@code specId} and no partition has tasks in
   * two groups.
   */
  public static boolean apart(List<List<FileScanTask>> groups, int specId) {
    return apart(groups, specId, PartitionGroups::key);
  }

  /**
   * Whether every task of the groups is of the spec {@code specId} and no partition, as {@code
   * key} tells a task's partition, has tasks in two groups.
   */
  static boolean apart(
      List<List<FileScanTask>> groups, int specId, Function<FileScanTask, ?> key) {
    Map<Object, Integer> groupOfPartition = new HashMap<>();
    for (int group = 0; group < groups.size(); group++) {
      for (FileScanTask task : groups.get(group)) {
        if (task.spec().specId() != specId) {
          return false;
        }
        Integer earlier = groupOfPartition.putIfAbsent(key.apply(task), group);
        if (earlier != null && earlier != group) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Groups that keep every partition of the spec {@code specId}, as {@code key} tells a task's
   * partition, in one group: {@code groups} themselves when they do, else their tasks packed again
   * by partition, to the same split size or, when a partition weighs more (its bytes with each file
   * charged {@code openFileCost}), to that partition's weight. A write into another spec keys a
   * task by the written partition its rows land in, which may gather several partitions of the
   * tasks' own spec.
   *
   * <p>Empty when a task is not of that spec or a partition's size is more than {@code
   * maxPartitionBytes}, whether or not one group holds them. A partition's size is the larger of
   * its tasks' bytes and their rows (estimated from their files' record counts) times {@code
   * rowBytes}: rows take more room in a shuffle than in compressed files, and a shuffle splits a
   * partition by the room they take there.
   */
  public static Optional<List<List<FileScanTask>>> keptApart(
      List<List<FileScanTask>> groups,
      int specId,
      Function<FileScanTask, ?> key,
      long splitSize,
      long openFileCost,
      long maxPartitionBytes,
      long rowBytes) {
    List<FileScanTask> tasks = new ArrayList<>();
    // a written partition is derived from the task's own: once per task, for every pass below
    // (a piece merged back with its neighbours when packing is a new task, keyed when met)
    Map<FileScanTask, Object> keys = new IdentityHashMap<>();
    Function<FileScanTask, Object> cached = task -> keys.computeIfAbsent(task, key);
    Map<Object, Long> bytes = new HashMap<>();
    Map<Object, Long> rowSizes = new HashMap<>();
    Map<Object, Long> weights = new HashMap<>();
    for (List<FileScanTask> group : groups) {
      for (FileScanTask task : group) {
        tasks.add(task);
        Object partition = cached.apply(task);
        bytes.merge(partition, task.length(), Long::sum);
        rowSizes.merge(
            partition, ScanStatistics.estimatedRows(task) * Math.max(rowBytes, 0), Long::sum);
        weights.merge(partition, TaskGrouping.weight(task, openFileCost), Long::sum);
      }
    }
    for (Map.Entry<Object, Long> partition : bytes.entrySet()) {
      if (Math.max(partition.getValue(), rowSizes.get(partition.getKey())) > maxPartitionBytes) {
        return Optional.empty();
      }
    }
    long heaviest = weights.values().stream().mapToLong(Long::longValue).max().orElse(0);
    if (apart(groups, specId, cached)) {
      return Optional.of(groups);
    }
    List<List<FileScanTask>> regrouped =
        TaskGrouping.balanceByPartition(
            tasks, cached, Math.max(splitSize, heaviest), openFileCost,
            TaskGrouping.TASK_ORDER);
    return apart(regrouped, specId, cached) ? Optional.of(regrouped) : Optional.empty();
  }
}
