package io.floe.spark.read.plan;

import io.floe.spark.read.plan.manifest.DataManifestPlanner;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.PositionDeletesTable;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.SortField;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a snapshot's file tasks on the driver, once, and packs them into task groups, one per input
 * partition. The same snapshot, filter and options give the same groups in the same order.
 *
 * <p>Tasks are split at row-group boundaries and packed into groups balanced by bytes ({@link
 * TaskGrouping}). When the tasks share a spec of identity and bucket transforms and the scan may
 * report it, tasks are packed per partition key instead, and the scan reports a key-grouped
 * partitioning ({@link KeyGrouping}), unless that would make many more groups than balancing does.
 * The table's sort order is reported only when every group holds it ({@link ScanOrdering}).
 */
public final class ScanPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(ScanPlanner.class);

  /**
   * What the scan builder asks of a plan beyond its filter and options.
   *
   * @param limit the number of rows Spark needs at most, or null for all
   * @param keyGrouping whether the plan may group tasks by partition key (the read option and
   *     {@code spark.sql.sources.v2.bucketing.enabled} allow it)
   * @param minKeyGroups the number of key groups always acceptable (a join would shuffle into as
   *     many partitions anyway); more are accepted up to the number of balanced groups
   * @param columnStats whether to load column statistics of the read columns for the optimizer
   * @param runtimeFilters whether to keep the bounds of the read columns a runtime filter may
   *     prune by (Spark's dynamic pruning is on), and report them in the plan
   * @param ignoredMetrics field ids of the columns whose file metrics the scan must not trust
   * @param wholeFiles whether every task must read every row of its file (a copy-on-write scan,
   *     which copies the rows it does not change): the filter prunes files but the tasks carry no
   *     residual, so no row group is skipped; and the tasks of a partition that fits one group
   *     are packed into one ({@link PartitionGroups})
   */
  public record Hints(
      Integer limit,
      boolean keyGrouping,
      int minKeyGroups,
      boolean columnStats,
      boolean runtimeFilters,
      Set<Integer> ignoredMetrics,
      boolean wholeFiles) {
    public Hints {
      ignoredMetrics = Set.copyOf(Objects.requireNonNull(ignoredMetrics, "ignoredMetrics is null"));
    }
  }

  /**
   * A planned scan.
   *
   * @param groups the task groups, in the order of their input partitions
   * @param layout what the scan reports of its groups
   * @param metrics what planning measured
   * @param runtimeFilterColumns field ids of the data columns whose file bounds a runtime filter
   *     may prune the groups by ({@link RuntimeColumns})
   */
  public record Plan(
      List<TaskGroup> groups,
      ScanLayout layout,
      DriverMetrics metrics,
      Set<Integer> runtimeFilterColumns) {
    public Plan {
      runtimeFilterColumns =
          Set.copyOf(Objects.requireNonNull(runtimeFilterColumns, "runtimeFilterColumns is null"));
    }

    /** A plan whose groups no data-column runtime filter prunes. */
    public Plan(List<TaskGroup> groups, ScanLayout layout, DriverMetrics metrics) {
      this(groups, layout, metrics, Set.of());
    }
  }

  private ScanPlanner() {}

  /**
   * @param snapshotId the snapshot to plan, or null to plan the table's current state (metadata
   *     tables) or nothing (a data table without snapshots)
   * @param filter the filter, in the column names of {@code schema}
   * @param schema the schema the scan reports to Spark and reads with; task residuals come back in
   *     its names
   * @param readSchema the projected columns
   */
  public static Plan plan(
      Table table,
      Long snapshotId,
      boolean dataTable,
      Expression filter,
      Schema schema,
      Schema readSchema,
      PlanOptions options,
      Hints hints) {
    long start = System.nanoTime();
    if (dataTable && snapshotId == null) {
      return new Plan(List.of(), ScanLayout.unordered(1), new DriverMetrics(0, 0, 0));
    }
    if (table instanceof PositionDeletesTable) {
      // Iceberg plans this table only as a batch scan of delete-file tasks, not as file tasks
      return PositionDeletesPlanner.plan((PositionDeletesTable) table, filter, options);
    }
    Schema planningSchema = dataTable ? DataManifestPlanner.planningSchema(table, snapshotId) : table.schema();
    boolean renamed = !FilterNames.sameNames(schema, planningSchema);
    Expression planningFilter =
        renamed
            ? FilterNames.translate(filter, schema, planningSchema, options.caseSensitive())
                .orElse(Expressions.alwaysTrue())
            : filter;
    List<FileScanTask> tasks = new ArrayList<>();
    PlanningProgress progress = new PlanningProgress(table.name(), start);
    WithoutResidual withoutResidual = new WithoutResidual();
    Consumer<FileScanTask> planned =
        task -> {
          tasks.add(
              hints.wholeFiles()
                  ? withoutResidual.apply(task)
                  : renamed
                      ? withResidualIn(schema, planningSchema, task)
                      : withComputableResidual(task));
          progress.planned(tasks.size());
        };
    List<Integer> runtimeCandidates =
        dataTable && hints.runtimeFilters()
            ? RuntimeColumns.candidates(planningSchema, readSchema, hints.ignoredMetrics())
            : List.of();
    List<String> statsColumns =
        dataTable
            ? statsColumns(table, planningSchema, readSchema, hints, runtimeCandidates)
            : List.of();
    DataManifestPlanner.planFiles(
        table,
        dataTable ? snapshotId : null,
        planningFilter,
        options.caseSensitive(),
        statsColumns,
        planned);
    tasks.sort(TaskGrouping.TASK_ORDER);
    int plannedFiles = distinctFiles(tasks);
    List<FileScanTask> read =
        dataTable && hints.limit() != null ? enoughFor(hints.limit(), tasks) : tasks;

    long splitSize =
        TaskGrouping.splitSize(options, TaskGrouping.totalWeight(read, options.openFileCost()));
    List<FileScanTask> splits = TaskGrouping.split(read, splitSize);
    Optional<ScanOrdering> ordering =
        dataTable
            ? ScanOrdering.of(table.sortOrder(), splits, schema, readSchema)
            : Optional.empty();
    Comparator<FileScanTask> order =
        ordering.map(ScanOrdering::taskOrder).orElse(TaskGrouping.TASK_ORDER);

    // a copy-on-write scan keeps each partition in one group where it can: a rewrite whose rows
    // stay in the tasks that read them then writes one file per partition
    List<List<FileScanTask>> balanced =
        hints.wholeFiles()
            ? TaskGrouping.balanceByPartition(splits, splitSize, options.openFileCost(), order)
            : TaskGrouping.balance(splits, splitSize, options.openFileCost(), order);
    List<TaskGroup> partitions = null;
    ScanLayout layout = null;
    Optional<KeyGrouping> keys =
        hints.keyGrouping() ? KeyGrouping.of(splits, schema, readSchema) : Optional.empty();
    if (keys.isPresent()) {
      List<TaskGroup> keyed =
          keyedGroups(keys.get(), splits, splitSize, options.openFileCost(), order);
      if (keyed.size() <= Math.max(balanced.size(), hints.minKeyGroups())) {
        partitions = keyed;
        layout =
            new ScanLayout(
                splitSize,
                keys.get().transforms(),
                holds(ordering, groupsOf(keyed)) ? ordering.get().sortKeys() : List.of());
      }
    }
    if (partitions == null) {
      partitions = new ArrayList<>(balanced.size());
      for (List<FileScanTask> group : balanced) {
        partitions.add(TaskGroup.of(group));
      }
      layout =
          new ScanLayout(
              splitSize,
              List.of(),
              holds(ordering, balanced) ? ordering.get().sortKeys() : List.of());
    }

    long planningMillis = (System.nanoTime() - start) / 1_000_000;
    long skipped = dataTable ? skippedFiles(table, snapshotId, plannedFiles, read) : 0;
    LOG.info(
        "Planned {} file tasks of {} (snapshot {}) into {} input partitions in {} ms",
        splits.size(), table.name(), snapshotId, partitions.size(), planningMillis);
    return new Plan(
        List.copyOf(partitions),
        layout,
        new DriverMetrics(planningMillis, partitions.size(), skipped),
        RuntimeColumns.withBounds(table, runtimeCandidates, planningSchema, read));
  }

  /**
   * Columns whose statistics the plan needs: the first sort column, to check the ordering of
   * groups, the read columns when the optimizer uses column statistics, and the columns a runtime
   * filter may prune by.
   */
  private static List<String> statsColumns(
      Table table,
      Schema planningSchema,
      Schema readSchema,
      Hints hints,
      List<Integer> runtimeCandidates) {
    Set<String> columns = new LinkedHashSet<>();
    if (!table.sortOrder().isUnsorted()) {
      SortField first = table.sortOrder().fields().get(0);
      String name = planningSchema.findColumnName(first.sourceId());
      if (name != null) {
        columns.add(name);
      }
    }
    if (hints.columnStats()) {
      for (Types.NestedField field : readSchema.columns()) {
        String name = planningSchema.findColumnName(field.fieldId());
        if (field.type().isPrimitiveType() && name != null) {
          columns.add(name);
        }
      }
    }
    for (int fieldId : runtimeCandidates) {
      columns.add(planningSchema.findColumnName(fieldId));
    }
    return List.copyOf(columns);
  }

  /**
   * The leading tasks that surely hold {@code limit} rows. Planned tasks are whole files; a file
   * with delete files counts no rows, since its deletes may remove any number of them.
   */
  private static List<FileScanTask> enoughFor(int limit, List<FileScanTask> tasks) {
    List<FileScanTask> kept = new ArrayList<>();
    long rows = 0;
    for (int pos = 0; pos < tasks.size() && rows < limit; pos++) {
      FileScanTask task = tasks.get(pos);
      kept.add(task);
      if (task.deletes().isEmpty()) {
        rows += Math.max(0, task.file().recordCount());
      }
    }
    return kept;
  }

  private static List<TaskGroup> keyedGroups(
      KeyGrouping keys,
      List<FileScanTask> tasks,
      long splitSize,
      long openFileCost,
      Comparator<FileScanTask> order) {
    Map<List<Object>, List<FileScanTask>> byKey = new LinkedHashMap<>();
    for (FileScanTask task : tasks) {
      byKey.computeIfAbsent(keys.groupingKey(task), key -> new ArrayList<>()).add(task);
    }
    List<TaskGroup> partitions = new ArrayList<>();
    for (List<FileScanTask> keyTasks : byKey.values()) {
      InternalRow key = keys.key(keyTasks.get(0));
      for (List<FileScanTask> group :
          TaskGrouping.balance(keyTasks, splitSize, openFileCost, order)) {
        partitions.add(TaskGroup.of(group, key));
      }
    }
    return partitions;
  }

  private static List<List<FileScanTask>> groupsOf(List<TaskGroup> partitions) {
    List<List<FileScanTask>> groups = new ArrayList<>(partitions.size());
    for (TaskGroup partition : partitions) {
      List<FileScanTask> tasks = new ArrayList<>(partition.tasks().size());
      partition.tasks().forEach(task -> tasks.add(task.asFileScanTask()));
      groups.add(tasks);
    }
    return groups;
  }

  private static boolean holds(Optional<ScanOrdering> ordering, List<List<FileScanTask>> groups) {
    return ordering.isPresent() && groups.stream().allMatch(ordering.get()::holds);
  }

  private static int distinctFiles(List<FileScanTask> tasks) {
    Set<String> files = new HashSet<>();
    tasks.forEach(task -> files.add(task.file().location()));
    return files.size();
  }

  /** Data files of the snapshot the plan does not read, by filters or a limit. */
  private static long skippedFiles(
      Table table, long snapshotId, int plannedFiles, List<FileScanTask> read) {
    Snapshot snapshot = table.snapshot(snapshotId);
    String total =
        snapshot == null || snapshot.summary() == null
            ? null
            : snapshot.summary().get(SnapshotSummary.TOTAL_DATA_FILES_PROP);
    long totalFiles;
    try {
      totalFiles = total == null ? plannedFiles : Long.parseLong(total);
    } catch (NumberFormatException e) {
      totalFiles = plannedFiles;
    }
    return Math.max(0, totalFiles - distinctFiles(read));
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
    return new WithoutResidual().apply(task);
  }

  /**
   * Rebuilds tasks without their residual, so that they read every row group of their file; the
   * schema and spec of a plan's tasks are written out once per spec, not once per task.
   */
  private static final class WithoutResidual implements UnaryOperator<FileScanTask> {
    private final Map<Integer, String[]> json = new HashMap<>();

    @Override
    public FileScanTask apply(FileScanTask task) {
      String[] schemaAndSpec =
          json.computeIfAbsent(
              task.spec().specId(),
              id ->
                  new String[] {
                    SchemaParser.toJson(task.schema()), PartitionSpecParser.toJson(task.spec())
                  });
      return new BaseFileScanTask(
          task.file(),
          task.deletes().toArray(new DeleteFile[0]),
          schemaAndSpec[0],
          schemaAndSpec[1],
          ResidualEvaluator.unpartitioned(Expressions.alwaysTrue()));
    }
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

  /**
   * Logs at INFO how far a long planning has come: the file tasks planned so far, every {@value
   * #EVERY} tasks, so that a driver reading many manifests shows it is working.
   */
  private static final class PlanningProgress {
    private static final int EVERY = 50_000;
    private final String table;
    private final long startNanos;

    PlanningProgress(String table, long startNanos) {
      this.table = table;
      this.startNanos = startNanos;
    }

    void planned(int count) {
      if (count % EVERY == 0) {
        LOG.info(
            "Planning {}: {} file tasks so far, {} ms", table, count,
            (System.nanoTime() - startNanos) / 1_000_000);
      }
    }
  }
}
