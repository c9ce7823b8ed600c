package io.floe.spark.read.plan;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * Which partition of which spec a file task reads: the key by which a copy-on-write scan packs a
 * partition's tasks into one group ({@link TaskGrouping#balanceByPartition}), and the check that a
 * plan's groups kept every partition in one group.
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
    Map<Object, Integer> groupOfPartition = new HashMap<>();
    for (int group = 0; group < groups.size(); group++) {
      for (FileScanTask task : groups.get(group)) {
        if (task.spec().specId() != specId) {
          return false;
        }
        Integer earlier = groupOfPartition.putIfAbsent(key(task), group);
        if (earlier != null && earlier != group) {
          return false;
        }
      }
    }
    return true;
  }
}
