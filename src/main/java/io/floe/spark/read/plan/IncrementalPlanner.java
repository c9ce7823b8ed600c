package io.floe.spark.read.plan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IncrementalAppendScan;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans an incremental read on the driver, once: the data files appended after one snapshot up to
 * another (Iceberg's incremental append scan, which reads {@code append} snapshots only), packed
 * into task groups balanced by bytes as a snapshot scan's are. The plan reports no partitioning and
 * no ordering.
 */
public final class IncrementalPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(IncrementalPlanner.class);

  private IncrementalPlanner() {}

  /**
   * @param startSnapshotId the snapshot after which appends are read (exclusive), or null to read
   *     the appends of the end's whole ancestry
   * @param endSnapshotId the last snapshot whose appends are read (inclusive)
   * @param filter the scan's filter, in the table's current column names
   * @throws IllegalArgumentException when the start is not an ancestor of the end (Iceberg's
   *     message)
   * @throws IllegalStateException when a manifest list or manifest of the range cannot be read
   */
  public static ScanPlanner.Plan plan(
      Table table, Long startSnapshotId, long endSnapshotId, Expression filter, PlanOptions options) {
    long start = System.nanoTime();
    IncrementalAppendScan scan =
        table.newIncrementalAppendScan()
            .toSnapshot(endSnapshotId)
            .caseSensitive(options.caseSensitive())
            .filter(filter);
    if (startSnapshotId != null) {
      scan = scan.fromSnapshotExclusive(startSnapshotId);
    }
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan the incremental read of " + table.name(), e);
    } catch (NotFoundException | RuntimeIOException e) {
      // a manifest list or manifest of the range is gone or unreadable: say which read needed it
      throw new IllegalStateException(
          "Cannot plan the incremental read of " + table.name() + " after snapshot "
              + startSnapshotId + " up to " + endSnapshotId + ": " + e.getMessage(), e);
    }
    long splitSize = splitSize(tasks, options);
    List<TaskGroup> groups = groups(tasks, options);
    long millis = (System.nanoTime() - start) / 1_000_000;
    LOG.info(
        "Planned the appends of {} after snapshot {} up to {}: {} file tasks in {} input partitions in {} ms",
        table.name(), startSnapshotId, endSnapshotId, tasks.size(), groups.size(), millis);
    return new ScanPlanner.Plan(
        List.copyOf(groups), ScanLayout.unordered(splitSize), new DriverMetrics(millis, groups.size(), 0));
  }

  /** The plan of an incremental read whose range holds no snapshot: no task groups. */
  public static ScanPlanner.Plan nothing() {
    return new ScanPlanner.Plan(List.of(), ScanLayout.unordered(1), new DriverMetrics(0, 0, 0));
  }

  /**
   * Packs planned file tasks into task groups as a snapshot scan packs its own: the split size
   * from the options (or Spark's rule for its file sources: the tasks' weight over the minimum
   * number of partitions), large files split at row groups, groups balanced by bytes, each group's
   * tasks in file order. The same tasks and options give the same groups in the same order.
   */
  public static List<TaskGroup> groups(List<FileScanTask> tasks, PlanOptions options) {
    List<FileScanTask> sorted = new ArrayList<>(tasks);
    sorted.sort(TaskGrouping.TASK_ORDER);
    long splitSize = splitSize(sorted, options);
    List<TaskGroup> groups = new ArrayList<>();
    for (List<FileScanTask> group :
        TaskGrouping.balance(
            TaskGrouping.split(sorted, splitSize), splitSize, options.openFileCost(),
            TaskGrouping.TASK_ORDER)) {
      groups.add(TaskGroup.of(group));
    }
    return groups;
  }

  private static long splitSize(List<FileScanTask> tasks, PlanOptions options) {
    return TaskGrouping.splitSize(options, TaskGrouping.totalWeight(tasks, options.openFileCost()));
  }
}
