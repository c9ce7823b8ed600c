package io.floe.spark.read.plan;

import io.floe.spark.read.plan.manifest.PlanningPool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.PositionDeletesScanTask;
import org.apache.iceberg.PositionDeletesTable;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a scan of the {@code position_deletes} metadata table on the driver, once. Iceberg plans
 * that table only as a batch scan of delete-file tasks ({@link PositionDeletesScanTask}: a position
 * delete file, or a deletion vector in a Puffin file), never as file tasks; its planning prunes
 * delete manifests and files by the filter on {@code partition} and by the delete files' bounds of
 * {@code file_path}. The tasks are sorted by delete file and packed in that order into groups of
 * about the scan's split size, so the same snapshot, filter and options give the same partitions.
 * Each task is read whole by the executor's position-deletes reader.
 */
final class PositionDeletesPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(PositionDeletesPlanner.class);

  /** Delete-file tasks in file order: location, then offset in the file. */
  static final Comparator<PositionDeletesScanTask> TASK_ORDER =
      Comparator.comparing((PositionDeletesScanTask task) -> task.file().location())
          .thenComparingLong(PositionDeletesScanTask::start);

  private PositionDeletesPlanner() {}

  /**
   * @param table the position_deletes metadata table, at its table's current snapshot
   * @param filter the filter, in the metadata table's column names
   * @param options the scan's read options (split size, target partitions, file open cost)
   */
  static ScanPlanner.Plan plan(PositionDeletesTable table, Expression filter, PlanOptions options) {
    long start = System.nanoTime();
    List<PositionDeletesScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<ScanTask> planned =
        table
            .newBatchScan()
            .caseSensitive(options.caseSensitive())
            .filter(filter)
            .planWith(PlanningPool.get())
            .planFiles()) {
      for (ScanTask task : planned) {
        if (!(task instanceof PositionDeletesScanTask)) {
          throw new IllegalStateException(
              "Cannot plan scan of " + table.name() + ": unexpected task " + task);
        }
        tasks.add((PositionDeletesScanTask) task);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot plan scan of " + table.name() + ": " + e.getMessage(), e);
    }
    tasks.sort(TASK_ORDER);

    long openFileCost = options.openFileCost();
    long total = 0;
    for (PositionDeletesScanTask task : tasks) {
      total += weight(task, openFileCost);
    }
    long splitSize = TaskGrouping.splitSize(options, total);
    List<TaskGroup> partitions = new ArrayList<>();
    List<PositionDeletesScanTask> group = new ArrayList<>();
    long groupWeight = 0;
    for (PositionDeletesScanTask task : tasks) {
      long weight = weight(task, openFileCost);
      if (!group.isEmpty() && groupWeight + weight > splitSize) {
        partitions.add(TaskGroup.of(group));
        group = new ArrayList<>();
        groupWeight = 0;
      }
      group.add(task);
      groupWeight += weight;
    }
    if (!group.isEmpty()) {
      partitions.add(TaskGroup.of(group));
    }

    long planningMillis = (System.nanoTime() - start) / 1_000_000;
    LOG.info(
        "Planned {} delete-file tasks of {} into {} input partitions in {} ms",
        tasks.size(), table.name(), partitions.size(), planningMillis);
    return new ScanPlanner.Plan(
        List.copyOf(partitions),
        ScanLayout.unordered(splitSize),
        new DriverMetrics(planningMillis, partitions.size(), 0));
  }

  private static long weight(PositionDeletesScanTask task, long openFileCost) {
    return Math.max(task.length(), openFileCost);
  }
}
