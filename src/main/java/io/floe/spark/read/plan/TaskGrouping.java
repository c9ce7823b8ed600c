package io.floe.spark.read.plan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Function;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MergeableScanTask;
import org.apache.iceberg.util.TableScanUtil;

/**
 * Splits file tasks at Parquet row-group boundaries and packs them into groups balanced by bytes.
 *
 * <p>Each task weighs its bytes (data and delete files) or, when larger, {@code openFileCost} per
 * file it opens. The number of groups is the total weight divided by the split size, rounded up,
 * and at most the number of tasks. Tasks are placed heaviest first, each into the lightest group
 * so far (the longest-processing-time rule), so no group exceeds the mean by more than its
 * heaviest task. Ties are broken by file location and offset and by group position: the same tasks
 * and settings always give the same groups in the same order.
 */
final class TaskGrouping {
  /** Tasks in file order: location, then offset in the file. */
  static final Comparator<FileScanTask> TASK_ORDER =
      Comparator.comparing((FileScanTask task) -> task.file().location())
          .thenComparingLong(FileScanTask::start);

  private TaskGrouping() {}

  /** What a task costs to read, for balancing. */
  static long weight(FileScanTask task, long openFileCost) {
    return Math.max(task.sizeBytes(), task.filesCount() * openFileCost);
  }

  static long totalWeight(List<FileScanTask> tasks, long openFileCost) {
    long total = 0;
    for (FileScanTask task : tasks) {
      total += weight(task, openFileCost);
    }
    return total;
  }

  /**
   * The split size of a scan: the configured one; else the scan's weight spread over the configured
   * number of partitions ({@code target-partitions}); else Spark's rule for its file sources, the
   * scan's weight spread over the minimum number of partitions, at least the cost of opening a file
   * and at most {@code spark.sql.files.maxPartitionBytes}, made a little smaller where that gives
   * whole waves (see {@link #wholeWaves}).
   */
  static long splitSize(PlanOptions options, long totalWeight) {
    if (options.splitSize() != null) {
      return options.splitSize();
    }
    if (options.targetPartitions() != null) {
      // an asked-for partition count wins over maxPartitionBytes, as an asked-for size does
      long perPartition =
          (totalWeight + options.targetPartitions() - 1) / options.targetPartitions();
      return Math.max(1, Math.max(options.openFileCost(), perPartition));
    }
    long perPartition = (totalWeight + options.minPartitions() - 1) / options.minPartitions();
    long size = Math.min(options.maxPartitionBytes(), Math.max(options.openFileCost(), perPartition));
    return wholeWaves(Math.max(1, size), totalWeight, options.minPartitions());
  }

  /**
   * Shrinks a derived split size so that the number of groups it gives is a multiple of {@code
   * slots} (the minimum number of partitions, by default the cluster's task slots).
   *
   * <p>Spark's rule alone can give, say, 3 groups for 2 slots: the third runs alone after the first
   * two, so the scan takes two full group lengths with one slot idle half the time. Rounding the
   * count up to a whole number of waves (4 groups of three quarters the size) keeps the same number
   * of waves, each shorter, and every slot busy to the end. A scan that fits one group stays one:
   * Spark's rule found it not worth splitting.
   */
  static long wholeWaves(long size, long totalWeight, int slots) {
    long count = (totalWeight + size - 1) / size;
    if (count <= 1 || slots <= 1 || count % slots == 0) {
      return size;
    }
    long waves = (count + slots - 1) / slots;
    long groups = waves * slots;
    return Math.max(1, (totalWeight + groups - 1) / groups);
  }

  /**
   * Splits each task larger than {@code splitSize} at its row-group offsets (or at fixed sizes when
   * the file records none), then joins neighbouring pieces of a file again up to {@code splitSize},
   * so a split holds whole row groups and is as close to the split size as they allow.
   */
  static List<FileScanTask> split(List<FileScanTask> tasks, long splitSize) {
    List<FileScanTask> result = new ArrayList<>(tasks.size());
    for (FileScanTask task : tasks) {
      if (task.isDataTask() || task.length() <= splitSize) {
        result.add(task);
        continue;
      }
      FileScanTask pending = null;
      for (FileScanTask piece : task.split(splitSize)) {
        if (pending instanceof MergeableScanTask<?> mergeable
            && mergeable.canMerge(piece)
            && pending.length() + piece.length() <= splitSize) {
          pending = (FileScanTask) mergeable.merge(piece);
        } else {
          if (pending != null) {
            result.add(pending);
          }
          pending = piece;
        }
      }
      if (pending != null) {
        result.add(pending);
      }
    }
    return result;
  }

  /**
   * Packs tasks into balanced groups; each group's tasks come in {@code order}, with neighbouring
   * pieces of one file merged back into one task.
   */
  static List<List<FileScanTask>> balance(
      List<FileScanTask> tasks,
      long splitSize,
      long openFileCost,
      Comparator<FileScanTask> order) {
    List<List<FileScanTask>> singles = new ArrayList<>(tasks.size());
    for (FileScanTask task : tasks) {
      singles.add(List.of(task));
    }
    return pack(singles, splitSize, openFileCost, order);
  }

  /**
   * Packs tasks into balanced groups as {@link #balance} does, with the tasks of each partition
   * (of each spec) in one group when together they weigh at most the split size; a heavier
   * partition's tasks are balanced into groups of their own first. A copy-on-write rewrite whose
   * rows stay in the tasks that read them then writes one file per such partition, as a shuffle by
   * partition would have it write.
   */
  static List<List<FileScanTask>> balanceByPartition(
      List<FileScanTask> tasks,
      long splitSize,
      long openFileCost,
      Comparator<FileScanTask> order) {
    return balanceByPartition(tasks, PartitionGroups::key, splitSize, openFileCost, order);
  }

  /**
   * As {@link #balanceByPartition(List, long, long, Comparator)}, with partitions told by {@code
   * key}.
   */
  static List<List<FileScanTask>> balanceByPartition(
      List<FileScanTask> tasks,
      Function<FileScanTask, ?> key,
      long splitSize,
      long openFileCost,
      Comparator<FileScanTask> order) {
    Map<Object, List<FileScanTask>> byPartition = new LinkedHashMap<>();
    for (FileScanTask task : tasks) {
      byPartition.computeIfAbsent(key.apply(task), partition -> new ArrayList<>()).add(task);
    }
    List<List<FileScanTask>> bundles = new ArrayList<>(byPartition.size());
    for (List<FileScanTask> partitionTasks : byPartition.values()) {
      if (totalWeight(partitionTasks, openFileCost) <= splitSize) {
        bundles.add(partitionTasks);
      } else {
        bundles.addAll(balance(partitionTasks, splitSize, openFileCost, order));
      }
    }
    return pack(bundles, splitSize, openFileCost, order);
  }

  /**
   * The longest-processing-time packing of bundles of tasks, each bundle kept whole, into as many
   * groups as the split size asks and the bundles allow.
   */
  private static List<List<FileScanTask>> pack(
      List<List<FileScanTask>> bundles,
      long splitSize,
      long openFileCost,
      Comparator<FileScanTask> order) {
    if (bundles.isEmpty()) {
      return List.of();
    }
    // each bundle weighed once: a scan of many files packs as many single-task bundles
    List<Bundle> heaviestFirst = new ArrayList<>(bundles.size());
    long total = 0;
    for (List<FileScanTask> tasks : bundles) {
      Bundle bundle = new Bundle(tasks, totalWeight(tasks, openFileCost));
      heaviestFirst.add(bundle);
      total += bundle.weight();
    }
    long wanted = (total + splitSize - 1) / splitSize;
    int count = (int) Math.max(1, Math.min(bundles.size(), wanted));

    heaviestFirst.sort(
        Comparator.comparingLong(Bundle::weight)
            .reversed()
            .thenComparing(bundle -> bundle.tasks().get(0), TASK_ORDER));
    List<List<FileScanTask>> groups = new ArrayList<>(count);
    long[] weights = new long[count];
    PriorityQueue<Integer> lightest =
        new PriorityQueue<>(
            Comparator.comparingLong((Integer group) -> weights[group]).thenComparingInt(g -> g));
    for (int group = 0; group < count; group++) {
      groups.add(new ArrayList<>());
      lightest.add(group);
    }
    for (Bundle bundle : heaviestFirst) {
      int group = lightest.poll();
      groups.get(group).addAll(bundle.tasks());
      weights[group] += bundle.weight();
      lightest.add(group);
    }

    List<List<FileScanTask>> result = new ArrayList<>(count);
    for (List<FileScanTask> group : groups) {
      group.sort(order);
      result.add(TableScanUtil.mergeTasks(group));
    }
    return result;
  }

  /** Tasks packed into one group together, with their weight. */
  private record Bundle(List<FileScanTask> tasks, long weight) {}
}
