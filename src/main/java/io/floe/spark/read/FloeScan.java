package io.floe.spark.read;

import io.floe.spark.expressions.SparkPredicates;
import io.floe.spark.read.exec.ColumnarSupport;
import io.floe.spark.read.exec.ReadSettings;
import io.floe.spark.read.exec.ReaderMetrics;
import io.floe.spark.read.plan.DistinctCounts;
import io.floe.spark.read.plan.DriverMetrics;
import io.floe.spark.read.plan.PartitionGroups;
import io.floe.spark.read.plan.RuntimeFilters;
import io.floe.spark.read.plan.ScanLayout;
import io.floe.spark.read.plan.ScanPlanner;
import io.floe.spark.read.plan.ScanStatistics;
import io.floe.spark.read.plan.TaskGroup;
import io.floe.spark.types.SparkSchemas;
import io.floe.spark.util.PlanValues;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportOrdering;
import org.apache.spark.sql.connector.read.SupportsReportPartitioning;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering;
import org.apache.spark.sql.connector.read.partitioning.KeyGroupedPartitioning;
import org.apache.spark.sql.connector.read.partitioning.Partitioning;
import org.apache.spark.sql.connector.read.partitioning.UnknownPartitioning;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;

/**
 * A scan pinned to one snapshot and schema, with its file tasks planned once on the driver and
 * grouped into input partitions. A commit by someone else after planning does not change what it
 * reads. An empty scan (no snapshot, or everything pruned) is valid and returns no rows.
 *
 * <p>It tells Spark what is true of its groups and nothing more: a key-grouped partitioning when
 * every group holds one partition key ({@link ScanLayout#partitioning()}), the table's sort order
 * when every group comes out in it ({@link ScanLayout#ordering()}), and its size after pruning.
 *
 * <p>The one thing that changes after construction is a runtime filter ({@link #filter}), which
 * Spark applies before it asks for the batch to run: the scan then reads the planned groups less
 * the tasks the filter rules out. Each runtime filter starts again from the planned groups.
 * Equality and hashing look only at the planned scan.
 *
 * <p>A scan of a table that can also stream is built before it plans ({@link #planningLater}):
 * Spark builds a stream's scan as it builds a batch read's, and a stream plans its micro-batches
 * itself, so planning the whole snapshot for it would be wasted (and would fail on a manifest the
 * stream never needs). Such a scan plans once, when a batch use first needs the plan (its
 * partitions, statistics, partitioning, runtime filters, equality, or travel: Java serialization,
 * also Kryo's through {@code FloeKryoRegistrator}, plans first, so a copy always carries its plan).
 * {@link #toMicroBatchStream} plans nothing; once a stream has been made from an unplanned scan,
 * its statistics are unknown rather than planned. A planning failure is raised by the call that
 * planned, and again by each later one.
 */
public final class FloeScan
    implements SupportsReportStatistics,
        SupportsReportPartitioning,
        SupportsReportOrdering,
        SupportsRuntimeV2Filtering,
        Serializable {
  private static final Statistics UNKNOWN_SIZE =
      new Statistics() {
        @Override
        public OptionalLong sizeInBytes() {
          return OptionalLong.empty();
        }

        @Override
        public OptionalLong numRows() {
          return OptionalLong.empty();
        }
      };

  private final String tableName;
  private final String metadataLocation;
  private final Long snapshotId;
  private final FileIO io;
  private final Schema tableSchema;
  private final Schema readSchema;
  private final Expression filter;
  private final ReadOptions options;
  // the plan: set by the constructor, or by the first use that needs it (planningLater)
  private volatile List<FloeInputPartition> partitions;
  private volatile ScanLayout layout;
  private volatile DriverMetrics metrics;
  private volatile List<FloeInputPartition> filtered;
  private volatile long runtimeSkippedFiles;
  private volatile Set<Integer> runtimeFilterColumns = Set.of();
  // driver-only: plans a scan built before planning; null once planned
  private transient Supplier<ScanPlanner.Plan> planning;
  private transient volatile boolean streamed;
  // driver-only: builds the stream source, null when the table offers none
  private transient Function<String, MicroBatchStream> streams;
  // driver-only, like the optimizer that reads them: the statistics file's distinct counts (null
  // when none were looked up) and whether the session reports column statistics at all
  private transient DistinctCounts distinctCounts;
  private transient boolean columnStatsReported = true;

  /**
   * @param tableName the table's name
   * @param metadataLocation the metadata file the plan was made from, or null when unknown
   * @param snapshotId the snapshot read, or null for a table without snapshots
   * @param io the table's FileIO
   * @param tableSchema the schema of the snapshot read
   * @param readSchema the projected schema, metadata columns included
   * @param filter the converted filter used for planning
   * @param partitions the planned task groups
   * @param options the resolved read options
   * @param layout how the groups were formed and what they promise
   * @param metrics what planning measured
   */
  public FloeScan(
      String tableName,
      String metadataLocation,
      Long snapshotId,
      FileIO io,
      Schema tableSchema,
      Schema readSchema,
      Expression filter,
      List<FloeInputPartition> partitions,
      ReadOptions options,
      ScanLayout layout,
      DriverMetrics metrics) {
    this(tableName, metadataLocation, snapshotId, io, tableSchema, readSchema, filter, options, null);
    this.layout = Objects.requireNonNull(layout, "layout is null");
    this.metrics = Objects.requireNonNull(metrics, "metrics is null");
    this.filtered = List.copyOf(Objects.requireNonNull(partitions, "partitions is null"));
    this.partitions = filtered;
  }

  /** The scan without its plan: given later by {@code planning}, or at once when that is null. */
  private FloeScan(
      String tableName,
      String metadataLocation,
      Long snapshotId,
      FileIO io,
      Schema tableSchema,
      Schema readSchema,
      Expression filter,
      ReadOptions options,
      Supplier<ScanPlanner.Plan> planning) {
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.metadataLocation = metadataLocation;
    this.snapshotId = snapshotId;
    this.io = Objects.requireNonNull(io, "io is null");
    this.tableSchema = Objects.requireNonNull(tableSchema, "tableSchema is null");
    this.readSchema = Objects.requireNonNull(readSchema, "readSchema is null");
    this.filter = Objects.requireNonNull(filter, "filter is null");
    this.options = Objects.requireNonNull(options, "options is null");
    this.planning = planning;
  }

  /**
   * A scan that plans when a batch use first needs its plan, and never for a stream; the
   * arguments are the constructor's, with {@code planning} in place of the plan.
   *
   * @param planning plans the scan; called once, or again after it failed
   */
  static FloeScan planningLater(
      String tableName,
      String metadataLocation,
      Long snapshotId,
      FileIO io,
      Schema tableSchema,
      Schema readSchema,
      Expression filter,
      ReadOptions options,
      Supplier<ScanPlanner.Plan> planning) {
    return new FloeScan(
        tableName, metadataLocation, snapshotId, io, tableSchema, readSchema, filter, options,
        Objects.requireNonNull(planning, "planning is null"));
  }

  /** Plans the scan if it was built before planning; a failure leaves it unplanned. */
  private void plan() {
    if (partitions != null) {
      return;
    }
    synchronized (this) {
      if (partitions != null) {
        return;
      }
      ScanPlanner.Plan plan = planning.get();
      List<FloeInputPartition> groups = FloeInputPartition.of(plan.groups());
      this.layout = plan.layout();
      this.metrics = plan.metrics();
      this.runtimeFilterColumns = plan.runtimeFilterColumns();
      this.filtered = groups;
      this.partitions = groups;
      this.planning = null;
    }
  }

  /** Whether the scan holds its plan: always, but for one built to plan later and not used yet. */
  public boolean planned() {
    return partitions != null;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    plan();
    out.defaultWriteObject();
  }

  public String tableName() {
    return tableName;
  }

  public String metadataLocation() {
    return metadataLocation;
  }

  public Long snapshotId() {
    return snapshotId;
  }

  public FileIO io() {
    return io;
  }

  public Schema tableSchema() {
    return tableSchema;
  }

  public Schema projectedSchema() {
    return readSchema;
  }

  public Expression filter() {
    return filter;
  }

  /** The planned task groups, before any runtime filter. */
  public List<FloeInputPartition> partitions() {
    plan();
    return partitions;
  }

  public ReadOptions options() {
    return options;
  }

  public ScanLayout layout() {
    plan();
    return layout;
  }

  public DriverMetrics metrics() {
    plan();
    return metrics;
  }

  /**
   * The partition spec of every task of the plan; empty when there are no tasks, tasks of several
   * specs, or tasks other than data file tasks.
   */
  public Optional<PartitionSpec> taskSpec() {
    PartitionSpec spec = null;
    for (FloeInputPartition partition : partitions()) {
      for (ScanTask task : partition.tasks()) {
        if (!task.isFileScanTask()) {
          return Optional.empty();
        }
        PartitionSpec taskSpec = task.asFileScanTask().spec();
        if (spec != null && spec.specId() != taskSpec.specId()) {
          return Optional.empty();
        }
        spec = taskSpec;
      }
    }
    return Optional.ofNullable(spec);
  }

  /**
   * This scan with each partition that {@code writtenPartition} gives for a task read by one task
   * group, for a write whose rows land in the partition so told (the partition of the file they
   * were read from, or a coarser one) and so need no shuffle to reach one file per partition: the
   * scan itself when its groups already keep those partitions apart, else a scan of the same tasks
   * packed again by them ({@link PartitionGroups#keptApart}), which promises Spark no partitioning
   * or order. Empty when that cannot be: tasks of several specs, a partition larger than {@code
   * maxPartitionBytes} (its bytes, or its rows times {@code rowBytes}), a runtime filter already
   * applied, or a stream's scan.
   */
  public Optional<FloeScan> withPartitionsApart(
      long maxPartitionBytes, long rowBytes, Function<FileScanTask, ?> writtenPartition) {
    Optional<PartitionSpec> spec = taskSpec();
    if (spec.isEmpty() || streamed || filtered != partitions) {
      return Optional.empty();
    }
    List<List<FileScanTask>> groups = new ArrayList<>(partitions.size());
    for (FloeInputPartition partition : partitions) {
      groups.add(partition.tasks().stream().map(ScanTask::asFileScanTask).toList());
    }
    Optional<List<List<FileScanTask>>> apart =
        PartitionGroups.keptApart(
            groups, spec.get().specId(), writtenPartition, layout.splitSize(),
            options.planOptions().openFileCost(), maxPartitionBytes, rowBytes);
    if (apart.isEmpty() || apart.get() == groups) {
      return apart.map(same -> this);
    }
    List<TaskGroup> regrouped = apart.get().stream().map(TaskGroup::of).toList();
    FloeScan scan =
        new FloeScan(
            tableName, metadataLocation, snapshotId, io, tableSchema, readSchema, filter,
            FloeInputPartition.of(regrouped), options, ScanLayout.unordered(layout.splitSize()),
            new DriverMetrics(
                metrics.planningMillis(), regrouped.size(), metrics.skippedDataFiles()));
    scan.runtimeFilterColumns = runtimeFilterColumns;
    scan.distinctCounts = distinctCounts;
    scan.columnStatsReported = columnStatsReported;
    return Optional.of(scan);
  }

  /** The task groups the scan reads now: the planned ones less what a runtime filter ruled out. */
  public List<FloeInputPartition> readPartitions() {
    plan();
    return filtered;
  }

  @Override
  public StructType readSchema() {
    return SparkSchemas.toSpark(readSchema);
  }

  @Override
  public Batch toBatch() {
    plan();
    List<FloeInputPartition> groups = filtered;
    return new FloeBatch(
        groups,
        readerFactory(groups.stream().flatMap(partition -> partition.tasks().stream()).toList()));
  }

  /**
   * The reader factory of tasks of this scan: its batches' and its stream's, which reads the tasks
   * of each micro-batch with it and passes none (so nested ORC columns are read as rows there).
   * Plans nothing.
   *
   * @param tasks the tasks the factory will read, which decide whether nested ORC columns are read
   *     in ORC's vectors ({@link ColumnarSupport#supportsOrcScan})
   */
  public FloeReaderFactory readerFactory(List<? extends ScanTask> tasks) {
    return new FloeReaderFactory(
        new ReadSettings(
            tableName, io, tableSchema, readSchema, options.caseSensitive(),
            options.batchSize(), options.prefetchFiles(),
            options.nameMapping() == null ? null : NameMappingParser.fromJson(options.nameMapping())),
        options.vectorizationEnabled(),
        ColumnarSupport.supportsOrcScan(readSchema, tableSchema, tasks)
            && !ColumnarSupport.mayHoldSparkOrcTimestamps(
                tableSchema, options.nameMapping() != null));
  }

  /**
   * Lets a runtime filter prune by the file bounds of these data columns too, beyond partitions
   * ({@link ScanPlanner.Plan#runtimeFilterColumns()}); a scan given none prunes by partition only.
   */
  void runtimeFilterColumns(Set<Integer> fieldIds) {
    this.runtimeFilterColumns = Set.copyOf(fieldIds);
  }

  /** Field ids of the data columns whose file bounds a runtime filter may prune by. */
  public Set<Integer> runtimeFilterColumns() {
    plan();
    return runtimeFilterColumns;
  }

  /** Lets the scan run as a stream's source; {@code streams} maps the checkpoint location to it. */
  void streamingWith(Function<String, MicroBatchStream> streams) {
    this.streams = streams;
  }

  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    if (streams == null) {
      throw new UnsupportedOperationException(
          "Cannot read " + tableName + " as a stream: the table takes batch reads only");
    }
    streamed = true;
    return streams.apply(checkpointLocation);
  }

  /**
   * Sets what the scan's statistics add to file metadata: the distinct counts of the statistics
   * file for the scan's snapshot, and whether column statistics are reported at all.
   */
  void columnStatistics(DistinctCounts counts, boolean reported) {
    this.distinctCounts = Objects.requireNonNull(counts, "counts is null");
    this.columnStatsReported = reported;
  }

  /**
   * The statistics of the groups read; unknown for a stream's scan that has not planned, whose
   * size is each micro-batch's, not the snapshot's.
   */
  @Override
  public Statistics estimateStatistics() {
    if (streamed && !planned()) {
      return UNKNOWN_SIZE;
    }
    plan();
    return ScanStatistics.of(
        FloeInputPartition.groups(filtered),
        readSchema,
        tableSchema,
        distinctCounts == null ? DistinctCounts.none() : distinctCounts,
        columnStatsReported);
  }

  @Override
  public Partitioning outputPartitioning() {
    plan();
    List<FloeInputPartition> groups = filtered;
    if (layout.keyGrouped()) {
      return new KeyGroupedPartitioning(layout.sparkPartitioning(), groups.size());
    }
    return new UnknownPartitioning(groups.size());
  }

  @Override
  public SortOrder[] outputOrdering() {
    plan();
    return layout.sparkOrdering();
  }

  @Override
  public NamedReference[] filterAttributes() {
    plan();
    // Spark resolves these against the scan's output, so only projected columns can be offered
    return RuntimeFilters.attributes(
        FloeInputPartition.groups(partitions), readSchema, runtimeFilterColumns);
  }

  @Override
  public void filter(Predicate[] predicates) {
    Expression runtime = Expressions.alwaysTrue();
    for (Predicate predicate : predicates) {
      Optional<Expression> converted =
          SparkPredicates.convert(predicate, tableSchema, options.caseSensitive());
      if (converted.isPresent()) {
        runtime = Expressions.and(runtime, converted.get());
      }
    }
    if (runtime.op() == Expression.Operation.TRUE) {
      return;
    }
    plan();
    List<FloeInputPartition> remaining =
        FloeInputPartition.of(
            RuntimeFilters.apply(
                FloeInputPartition.groups(partitions), runtime, tableSchema,
                runtimeFilterColumns, options.caseSensitive(), layout, options.openFileCost()));
    this.runtimeSkippedFiles = files(partitions).size() - files(remaining).size();
    this.filtered = remaining;
  }

  private static Set<String> files(List<FloeInputPartition> groups) {
    Set<String> files = new HashSet<>();
    for (FloeInputPartition group : groups) {
      for (ScanTask task : group.tasks()) {
        if (task.isFileScanTask()) {
          files.add(task.asFileScanTask().file().location());
        }
      }
    }
    return files;
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    List<CustomMetric> supported = new ArrayList<>(List.of(ReaderMetrics.all()));
    supported.addAll(List.of(DriverMetrics.all()));
    return supported.toArray(new CustomMetric[0]);
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    if (!planned()) {
      return new DriverMetrics(0, 0, 0).values();
    }
    return new DriverMetrics(
            metrics.planningMillis(),
            filtered.size(),
            metrics.skippedDataFiles() + runtimeSkippedFiles)
        .values();
  }

  @Override
  public String description() {
    if (!planned()) {
      return String.format(
          "Floe %s [snapshot=%s, filters=%s, not planned]",
          tableName, snapshotId == null ? "none" : snapshotId, filter);
    }
    List<FloeInputPartition> groups = filtered;
    StringBuilder text =
        new StringBuilder(
            String.format(
                "Floe %s [snapshot=%s, filters=%s, groups=%d",
                tableName, snapshotId == null ? "none" : snapshotId, filter, groups.size()));
    if (layout.keyGrouped()) {
      text.append(", partitioning=").append(describe(layout.sparkPartitioning()));
    }
    if (!layout.ordering().isEmpty()) {
      text.append(", ordering=").append(describe(layout.sparkOrdering()));
    }
    return text.append("]").toString();
  }

  private static String describe(org.apache.spark.sql.connector.expressions.Expression[] expressions) {
    List<String> parts = new ArrayList<>();
    for (org.apache.spark.sql.connector.expressions.Expression expression : expressions) {
      parts.add(expression.describe());
    }
    return parts.toString();
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeScan)) {
      return false;
    }
    FloeScan that = (FloeScan) other;
    if (!tableName.equals(that.tableName)
        || !Objects.equals(metadataLocation, that.metadataLocation)
        || !Objects.equals(snapshotId, that.snapshotId)) {
      return false;
    }
    plan();
    that.plan();
    return tableName.equals(that.tableName)
        && Objects.equals(metadataLocation, that.metadataLocation)
        && Objects.equals(snapshotId, that.snapshotId)
        && PlanValues.sameIo(io, that.io)
        && tableSchema.sameSchema(that.tableSchema)
        && readSchema.sameSchema(that.readSchema)
        && filter.toString().equals(that.filter.toString())
        && partitions.equals(that.partitions)
        && options.equals(that.options)
        && layout.equals(that.layout);
  }

  @Override
  public int hashCode() {
    // what the scan was built from, never the plan: the same before and after planning
    return Objects.hash(
        tableName, metadataLocation, snapshotId, PlanValues.schemaHash(readSchema),
        filter.toString());
  }

  @Override
  public String toString() {
    return description();
  }
}
