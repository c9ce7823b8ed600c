package io.floe.spark.read.plan.manifest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.EnvironmentContext;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.events.Listeners;
import org.apache.iceberg.events.ScanEvent;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionUtil;
import org.apache.iceberg.expressions.ManifestEvaluator;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.inmemory.InMemoryInputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.metrics.DefaultMetricsContext;
import org.apache.iceberg.metrics.ImmutableScanReport;
import org.apache.iceberg.metrics.ScanMetrics;
import org.apache.iceberg.metrics.ScanMetricsResult;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.iceberg.metrics.Timer;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans the file tasks of a table's snapshot when it has no delete manifests, as Iceberg's
 * table scan plans them (the same manifests kept by partition summaries, the same entries kept by
 * partition and column metrics, the same residuals and statistics), but faster:
 *
 * <ul>
 *   <li>every kept manifest is handed to the planning pool at once. Iceberg's parallel planning
 *       keeps only twice the pool size of manifests in flight and its consumer looks for finished
 *       ones every 10 ms, so a table of many small manifests is planned at a few manifests per 10
 *       ms whatever the pool size. A single kept manifest is read by the calling thread, and the
 *       pool is not even started for it;
 *   <li>a manifest whose entries' metrics rule all of them out ({@link ManifestPruner}) is not
 *       decoded in full. Each manifest is still read from storage once: the pruner and Iceberg's
 *       reader read the same bytes.
 * </ul>
 *
 * <p>Snapshots with delete manifests are planned by Iceberg's table scan, which matches delete
 * files to data files.
 */
public final class DataManifestPlanner {
  // the data file fields a task needs, without and with column statistics, as Iceberg's scans read
  private static final List<String> SCAN_COLUMNS =
      List.of(
          "snapshot_id",
          "file_path",
          "file_ordinal",
          "file_format",
          "block_size_in_bytes",
          "file_size_in_bytes",
          "record_count",
          "partition",
          "key_metadata",
          "split_offsets",
          "sort_order_id");
  private static final List<String> SCAN_WITH_STATS_COLUMNS =
      concat(
          SCAN_COLUMNS,
          List.of(
              "value_counts",
              "null_value_counts",
              "nan_value_counts",
              "lower_bounds",
              "upper_bounds",
              "column_sizes"));
  private static final DeleteFile[] NO_DELETES = new DeleteFile[0];

  private static final Logger LOG = LoggerFactory.getLogger(DataManifestPlanner.class);

  private final Table table;
  private final Snapshot snapshot;
  private final Schema schema;
  private final FileIO io;
  private final Map<Integer, PartitionSpec> specs;
  private final Expression filter;
  private final boolean caseSensitive;
  private final Set<Integer> statsColumnIds;
  private final ManifestPruner pruner;
  private final Map<Integer, SpecContext> contexts = new ConcurrentHashMap<>();
  private final ScanMetrics metrics = ScanMetrics.of(new DefaultMetricsContext());

  private DataManifestPlanner(
      Table table,
      Snapshot snapshot,
      Expression filter,
      boolean caseSensitive,
      List<String> statsColumns) {
    this.table = table;
    this.snapshot = snapshot;
    this.io = table.io();
    this.schema = planningSchema(table, snapshot.snapshotId());
    if (schema.schemaId() == table.schema().schemaId()) {
      this.specs = table.specs();
    } else {
      // a snapshot of an older schema is read with it, and Iceberg binds the specs to it
      Map<Integer, PartitionSpec> bound = new HashMap<>();
      table.specs().forEach((id, spec) -> bound.put(id, spec.toUnbound().bind(schema, true)));
      this.specs = Map.copyOf(bound);
    }
    this.filter = filter;
    this.caseSensitive = caseSensitive;
    this.statsColumnIds =
        statsColumns.stream()
            .map(schema::findField)
            // a column the snapshot's schema lacks has no statistics in its files to keep
            .filter(Objects::nonNull)
            .map(Types.NestedField::fieldId)
            .collect(Collectors.toUnmodifiableSet());
    this.pruner =
        filter.op() == Expression.Operation.TRUE || manifestCacheEnabled(io)
            ? null
            : new ManifestPruner(specs, filter, caseSensitive);
  }

  /**
   * The schema Iceberg binds a scan's filter and residuals with: the snapshot's own schema when
   * reading an older snapshot, the table's current schema when reading the current one.
   */
  public static Schema planningSchema(Table table, long snapshotId) {
    Snapshot current = table.currentSnapshot();
    if (current != null && current.snapshotId() == snapshotId) {
      return table.schema();
    }
    return SnapshotUtil.schemaFor(table, snapshotId);
  }

  /**
   * Whether Iceberg keeps manifests in memory for this FileIO ({@code io.manifest.cache-enabled}):
   * its reader then decodes them from memory, while the pruner would read them from storage again.
   */
  private static boolean manifestCacheEnabled(FileIO io) {
    try {
      return PropertyUtil.propertyAsBoolean(
          io.properties(),
          CatalogProperties.IO_MANIFEST_CACHE_ENABLED,
          CatalogProperties.IO_MANIFEST_CACHE_ENABLED_DEFAULT);
    } catch (UnsupportedOperationException e) {
      // a FileIO without properties has no cache settings either
      return false;
    }
  }

  /**
   * Plans the file tasks of a snapshot of {@code table}, or of the table's current state when
   * {@code snapshotId} is null (metadata tables), and hands each to {@code planned}: by this
   * planner when it can plan the snapshot, else by Iceberg's table scan.
   *
   * @param filter the filter, in the names of the schema Iceberg binds the snapshot's filters with
   * @param statsColumns the columns whose statistics the tasks' files keep (none: no statistics)
   */
  public static void planFiles(
      Table table,
      Long snapshotId,
      Expression filter,
      boolean caseSensitive,
      List<String> statsColumns,
      Consumer<FileScanTask> planned) {
    if (snapshotId != null && plans(table, snapshotId)) {
      plan(table, snapshotId, filter, caseSensitive, statsColumns, PlanningPool::get)
          .forEach(planned);
      return;
    }
    TableScan scan =
        table
            .newScan()
            .caseSensitive(caseSensitive)
            .filter(filter)
            .planWith(PlanningPool.get());
    if (snapshotId != null) {
      scan = scan.useSnapshot(snapshotId);
    }
    if (!statsColumns.isEmpty()) {
      scan = scan.includeColumnStats(statsColumns);
    }
    try (CloseableIterable<FileScanTask> files = scan.planFiles()) {
      files.forEach(planned);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot plan scan of " + table.name() + ": " + e.getMessage(), e);
    }
  }

  /** Whether this planner plans {@code snapshotId} of {@code table}: it has no delete manifests. */
  static boolean plans(Table table, long snapshotId) {
    Snapshot snapshot = table.snapshot(snapshotId);
    return snapshot != null && snapshot.deleteManifests(table.io()).isEmpty();
  }

  /**
   * The file tasks of a snapshot this planner {@link #plans} that may hold rows matching {@code
   * filter}, in no particular order.
   *
   * @param filter the filter, in the names of the snapshot's schema (the table's current schema
   *     for its current snapshot)
   * @param statsColumns the columns whose statistics the tasks' files keep (none: no statistics)
   * @param pool the threads that read the kept manifests, asked for only when more than one is kept
   */
  static List<FileScanTask> plan(
      Table table,
      long snapshotId,
      Expression filter,
      boolean caseSensitive,
      List<String> statsColumns,
      Supplier<? extends ExecutorService> pool) {
    return new DataManifestPlanner(
            table, table.snapshot(snapshotId), filter, caseSensitive, statsColumns)
        .plan(pool);
  }

  private List<FileScanTask> plan(Supplier<? extends ExecutorService> pool) {
    // Iceberg's table scans tell the registered listeners of every scan before they plan it
    Listeners.notifyAll(new ScanEvent(table.name(), snapshot.snapshotId(), filter, schema));
    Timer.Timed duration = metrics.totalPlanningDuration().start();
    List<ManifestFile> manifests = snapshot.dataManifests(io);
    metrics.totalDataManifests().increment((long) manifests.size());
    List<ManifestFile> kept = new ArrayList<>();
    for (ManifestFile manifest : manifests) {
      if ((manifest.hasAddedFiles() || manifest.hasExistingFiles())
          && context(manifest.partitionSpecId()).manifests().eval(manifest)) {
        kept.add(manifest);
      } else {
        skipped(manifest);
      }
    }
    // one manifest gains nothing from another thread: the handoff and, in a fresh JVM, starting
    // the pool and its thread would only add to the query's first run
    List<FileScanTask> tasks =
        kept.size() <= 1 ? inline(kept) : inParallel(kept, pool.get());
    duration.stop();
    report();
    return tasks;
  }

  private List<FileScanTask> inline(List<ManifestFile> kept) {
    List<FileScanTask> tasks = new ArrayList<>();
    kept.forEach(manifest -> tasks.addAll(tasks(manifest)));
    return tasks;
  }

  private List<FileScanTask> inParallel(List<ManifestFile> kept, ExecutorService pool) {
    List<CompletableFuture<List<FileScanTask>>> reads = new ArrayList<>(kept.size());
    for (ManifestFile manifest : kept) {
      reads.add(CompletableFuture.supplyAsync(() -> tasks(manifest), pool));
    }
    List<FileScanTask> tasks = new ArrayList<>();
    try {
      for (CompletableFuture<List<FileScanTask>> read : reads) {
        tasks.addAll(read.join());
      }
    } catch (CompletionException e) {
      reads.forEach(read -> read.cancel(false));
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
    return tasks;
  }

  private List<FileScanTask> tasks(ManifestFile manifest) {
    FileIO manifestIo = io;
    if (pruner != null) {
      // read once: the pruner decides on these bytes and Iceberg's reader reads the same ones, so
      // an object store serves each manifest once, as without pruning
      InputFile contents = contents(manifest);
      if (!pruner.mayMatch(manifest, contents)) {
        skipped(manifest);
        return List.of();
      }
      manifestIo = new ReadManifestIO(io, manifest.path(), contents);
    }
    metrics.scannedDataManifests().increment();
    SpecContext context = context(manifest.partitionSpecId());
    boolean withStats = !statsColumnIds.isEmpty();
    List<FileScanTask> tasks = new ArrayList<>();
    try (ManifestReader<DataFile> reader =
        ManifestFiles.read(manifest, manifestIo, specs)
            .filterRows(filter)
            .caseSensitive(caseSensitive)
            .select(withStats ? SCAN_WITH_STATS_COLUMNS : SCAN_COLUMNS)) {
      for (DataFile file : reader) {
        tasks.add(
            new BaseFileScanTask(
                withStats ? file.copyWithStats(statsColumnIds) : file,
                NO_DELETES,
                context.schema(),
                context.spec(),
                context.residuals()));
        metrics.totalFileSizeInBytes().increment(file.fileSizeInBytes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read manifest " + manifest.path() + ": " + e.getMessage(), e);
    }
    metrics.resultDataFiles().increment((long) tasks.size());
    long liveFiles = liveFiles(manifest);
    if (liveFiles >= tasks.size()) {
      metrics.skippedDataFiles().increment(liveFiles - tasks.size());
    }
    return tasks;
  }

  /** The manifest's bytes, read once from storage (decrypted when the table's FileIO does that). */
  private InputFile contents(ManifestFile manifest) {
    try (InputStream in = io.newInputFile(manifest).newStream()) {
      return new InMemoryInputFile(manifest.path(), in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read manifest " + manifest.path() + ": " + e.getMessage(), e);
    }
  }

  private void skipped(ManifestFile manifest) {
    metrics.skippedDataManifests().increment();
    metrics.skippedDataFiles().increment(Math.max(0, liveFiles(manifest)));
  }

  /** The manifest's added and existing files, or -1 when it does not record them. */
  private static long liveFiles(ManifestFile manifest) {
    Integer added = manifest.addedFilesCount();
    Integer existing = manifest.existingFilesCount();
    return added == null || existing == null ? -1 : (long) added + existing;
  }

  /**
   * Reports the scan to the table's metrics reporter, as Iceberg's table scans do (a REST catalog
   * sends it to its server; other catalogs log it or hand it to a configured reporter).
   */
  private void report() {
    if (!(table instanceof BaseTable base)) {
      return;
    }
    List<Integer> projected = new ArrayList<>(TypeUtil.getProjectedIds(schema));
    ScanReport report =
        ImmutableScanReport.builder()
            .schemaId(schema.schemaId())
            .projectedFieldIds(projected)
            .projectedFieldNames(projected.stream().map(schema::findColumnName).toList())
            .tableName(table.name())
            .snapshotId(snapshot.snapshotId())
            .filter(ExpressionUtil.sanitize(schema.asStruct(), filter, caseSensitive))
            .scanMetrics(ScanMetricsResult.fromScanMetrics(metrics))
            .metadata(EnvironmentContext.get())
            .build();
    try {
      base.reporter().report(report);
    } catch (RuntimeException e) {
      // a reporter that fails must not fail the query it reports on
      LOG.warn("Cannot report the scan of {}: {}", table.name(), e.toString());
    }
  }

  private SpecContext context(int specId) {
    return contexts.computeIfAbsent(specId, id -> new SpecContext(specs.get(id)));
  }

  private static List<String> concat(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return List.copyOf(all);
  }

  /** What every task of one partition spec shares, worked out once per plan. */
  private final class SpecContext {
    private final ManifestEvaluator manifests;
    private final ResidualEvaluator residuals;
    private final String schema;
    private final String spec;

    SpecContext(PartitionSpec spec) {
      this.manifests =
          ManifestEvaluator.forPartitionFilter(
              Projections.inclusive(spec, caseSensitive).project(filter), spec,
              caseSensitive);
      this.residuals = ResidualEvaluator.of(spec, filter, caseSensitive);
      this.schema = SchemaParser.toJson(spec.schema());
      this.spec = PartitionSpecParser.toJson(spec);
    }

    ManifestEvaluator manifests() {
      return manifests;
    }

    ResidualEvaluator residuals() {
      return residuals;
    }

    String schema() {
      return schema;
    }

    String spec() {
      return spec;
    }
  }
}
