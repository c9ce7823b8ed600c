package io.floe.spark.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.PositionDeletesTable;
import org.apache.iceberg.ScanTaskGroup;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
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
   * @param filter the filter, in the column names of {@code schema}
   * @param schema the schema the scan reports to Spark and reads with; task residuals come back in
   *     its names
   */
  static List<FloeInputPartition> plan(
      Table table,
      Long snapshotId,
      boolean dataTable,
      Expression filter,
      Schema schema,
      ReadOptions options) {
    if (dataTable && snapshotId == null) {
      return List.of();
    }
    if (table instanceof PositionDeletesTable) {
      // Iceberg plans this table only as a batch scan of delete-file tasks, not as file tasks
      throw new UnsupportedOperationException(
          "Cannot read " + table.name() + ": the position_deletes metadata table is not supported");
    }
    long start = System.nanoTime();
    Schema planningSchema = dataTable ? planningSchema(table, snapshotId) : table.schema();
    boolean renamed = !FilterNames.sameNames(schema, planningSchema);
    Expression planningFilter =
        renamed
            ? FilterNames.translate(filter, schema, planningSchema, options.caseSensitive())
                .orElse(Expressions.alwaysTrue())
            : filter;
    TableScan scan =
        table
            .newScan()
            .caseSensitive(options.caseSensitive())
            .filter(planningFilter)
            .planWith(PlanningPool.get());
    if (dataTable) {
      scan = scan.useSnapshot(snapshotId);
    }

    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> files = scan.planFiles()) {
      files.forEach(
          task ->
              tasks.add(
                  renamed
                      ? withResidualIn(schema, planningSchema, task)
                      : withComputableResidual(task)));
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

  /**
   * The schema Iceberg binds a scan's filter and residuals with: the snapshot's own schema when
   * reading an older snapshot, the table's current schema when reading the current one.
   */
  private static Schema planningSchema(Table table, long snapshotId) {
    Snapshot current = table.currentSnapshot();
    if (current != null && current.snapshotId() == snapshotId) {
      return table.schema();
    }
    return SnapshotUtil.schemaFor(table, snapshotId);
  }

  /**
   * The task itself when Iceberg can work out its residual, else the task with no residual. Iceberg's
   * residual evaluator fails on some predicates over a NULL partition value (startsWith over a
   * truncate partition holding NULL throws a NullPointerException); the residual only lets the
   * reader skip row groups and Spark filters every row anyway, so such a task is read unfiltered
   * rather than failing on the executor.
   */
  private static FileScanTask withComputableResidual(FileScanTask task) {
    if (residualOrNull(task) != null) {
      return task;
    }
    return new BaseFileScanTask(
        task.file(),
        task.deletes().toArray(new DeleteFile[0]),
        SchemaParser.toJson(task.schema()),
        PartitionSpecParser.toJson(task.spec()),
        ResidualEvaluator.unpartitioned(Expressions.alwaysTrue()));
  }

  /** The task's residual, or null when Iceberg's residual evaluator fails on it. */
  private static Expression residualOrNull(FileScanTask task) {
    try {
      return task.residual();
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * The task with its residual in the names the reader projects. The residual only lets the reader
   * skip row groups, so one that cannot be carried over is dropped; Spark filters the rows anyway.
   */
  private static FileScanTask withResidualIn(
      Schema schema, Schema planningSchema, FileScanTask task) {
    Expression residual =
        FilterNames.translate(
                Objects.requireNonNullElse(residualOrNull(task), Expressions.alwaysTrue()),
                planningSchema,
                schema,
                true)
            .orElse(Expressions.alwaysTrue());
    return new BaseFileScanTask(
        task.file(),
        task.deletes().toArray(new DeleteFile[0]),
        SchemaParser.toJson(task.schema()),
        PartitionSpecParser.toJson(task.spec()),
        ResidualEvaluator.unpartitioned(residual));
  }
}
