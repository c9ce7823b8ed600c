package io.floe.spark.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskGroup;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.TableScanUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a snapshot's file tasks on the driver, once, and packs them into input partitions. The same
 * snapshot, filter and options give the same partitions in the same order.
 */
final class ScanPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(ScanPlanner.class);
  private static final Comparator<FileScanTask> TASK_ORDER =
      Comparator.comparing((FileScanTask task) -> task.file().location())
          .thenComparingLong(FileScanTask::start);

  private ScanPlanner() {}

  /**
   * @param snapshotId the snapshot to plan, or null to plan the table's current state (metadata
   *     tables) or nothing (a data table without snapshots)
   */
  static List<FloeInputPartition> plan(
      Table table, Long snapshotId, boolean dataTable, Expression filter, ReadOptions options) {
    if (dataTable && snapshotId == null) {
      return List.of();
    }
    long start = System.nanoTime();
    TableScan scan = table.newScan().caseSensitive(options.caseSensitive()).filter(filter);
    if (dataTable) {
      scan = scan.useSnapshot(snapshotId);
    }

    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> files = scan.planFiles()) {
      files.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan scan of " + table.name() + ": " + e.getMessage(), e);
    }
    tasks.sort(TASK_ORDER);

    List<ScanTaskGroup<FileScanTask>> groups =
        TableScanUtil.planTaskGroups(
            tasks, options.splitSize(), options.lookback(), options.openFileCost());
    List<FloeInputPartition> partitions = new ArrayList<>(groups.size());
    for (ScanTaskGroup<FileScanTask> group : groups) {
      partitions.add(new FloeInputPartition(partitions.size(), new ArrayList<>(group.tasks())));
    }
    LOG.info(
        "Planned {} file tasks of {} (snapshot {}) into {} input partitions in {} ms",
        tasks.size(), table.name(), snapshotId, partitions.size(),
        (System.nanoTime() - start) / 1_000_000);
    return partitions;
  }
}
