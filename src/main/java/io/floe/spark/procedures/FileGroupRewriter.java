package io.floe.spark.procedures;

import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ReadOptions;
import io.floe.spark.read.plan.DriverMetrics;
import io.floe.spark.read.plan.ScanLayout;
import io.floe.spark.write.FloeDataWriterFactory;
import io.floe.spark.write.WriteDistribution;
import io.floe.spark.write.WriteOptions;
import io.floe.spark.write.exec.DataWriterSettings;
import io.floe.spark.write.exec.RowLineageSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.ScanTaskGroup;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.TableScanUtil;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.classic.Dataset$;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.execution.datasources.v2.DistributionAndOrderingUtils$;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.util.CollectionAccumulator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * Rewrites one compaction file group as one Spark job, from Floe's own pieces: a {@link FloeScan}
 * planned on the driver from exactly the group's file tasks (deletes applied while reading), and
 * Floe's data writers ({@link FloeDataWriterFactory}) on the executors. Nothing is committed here;
 * the new data files are returned to be committed together with the removal of the old ones.
 *
 * <p>Bin-packing reads the group in splits of the group's input split size, and each split becomes
 * a writer task, so no shuffle is needed. Sorting (and bin-packing into another partition spec)
 * range-partitions the rows into as many tasks as the group should give files, by the output
 * spec's partition transforms and then the sort order, and sorts each task's rows: Spark's own
 * distribution-and-ordering step, with the catalog's transform functions.
 *
 * <p>If the job fails, the files of the tasks that finished are deleted before the failure is
 * rethrown; files of duplicate task attempts that the job's result does not hold are deleted too.
 */
final class FileGroupRewriter {
  private static final Logger LOG = LoggerFactory.getLogger(FileGroupRewriter.class);
  private static final int LOOKBACK = 10;

  private final SparkSession spark;
  private final FunctionCatalog functions;
  private final Table table;
  private final Table tableCopy;
  private final long startingSnapshotId;
  private final SortOrder sortOrder;
  private final ZOrder zOrder;
  private final ReadOptions readOptions;
  // format v3: rewritten rows keep their _row_id and _last_updated_sequence_number
  private final boolean lineage;

  /**
   * A z-order rewrite: the columns (as the table's schema names them) and the function that
   * computes their interleaved value.
   */
  record ZOrder(List<String> columns, ZOrderValue value) {}

  /**
   * @param spark the session the jobs run in
   * @param functions the catalog whose transform functions sort by partition transforms
   * @param table the table, as loaded on the driver
   * @param startingSnapshotId the snapshot the groups were planned from
   * @param sortOrder the order to sort each group by, or null to bin-pack
   */
  FileGroupRewriter(
      SparkSession spark,
      FunctionCatalog functions,
      Table table,
      long startingSnapshotId,
      SortOrder sortOrder) {
    this(spark, functions, table, startingSnapshotId, sortOrder, null);
  }

  /**
   * @param zOrder the z-order to sort each group by, or null; exclusive with {@code sortOrder}
   */
  FileGroupRewriter(
      SparkSession spark,
      FunctionCatalog functions,
      Table table,
      long startingSnapshotId,
      SortOrder sortOrder,
      ZOrder zOrder) {
    this.zOrder = zOrder;
    this.spark = Objects.requireNonNull(spark, "spark is null");
    this.functions = Objects.requireNonNull(functions, "functions is null");
    this.table = Objects.requireNonNull(table, "table is null");
    this.tableCopy = SerializableTable.copyOf(table);
    this.startingSnapshotId = startingSnapshotId;
    this.sortOrder = sortOrder;
    this.readOptions = ReadOptions.resolve(Map.of(), SQLConf.get(), table.properties());
    this.lineage = TableUtil.supportsRowLineage(table);
  }

  /** What the job wrote, and how long it took. */
  record Result(List<DataFile> files, long millis) {}

  /**
   * Runs the group's job and returns its new data files.
   *
   * @param description the job's description in the Spark UI
   * @throws RuntimeException when the job fails; its files are deleted first
   */
  Result rewrite(RewriteFileGroup group, String description) {
    long start = System.nanoTime();
    PartitionSpec outputSpec = table.specs().get(group.outputSpecId());
    boolean shuffles = sortOrder != null || zOrder != null;
    boolean reorders = shuffles || !group.fileScanTasks().get(0).spec().equals(outputSpec);
    long splitSize =
        !shuffles
            ? group.inputSplitSize()
            : readOptions.splitSize() != null
                ? readOptions.splitSize()
                : TableProperties.SPLIT_SIZE_DEFAULT;
    FloeScan scan = scan(group.fileScanTasks(), splitSize);
    LogicalPlan plan =
        DataSourceV2Relation.create(
            new FileGroupTable(table.name() + " (rewrite group)", scan),
            Option.empty(),
            Option.empty());
    SortOrder order = sortOrder != null ? sortOrder : SortOrder.unsorted();
    if (zOrder != null) {
      plan = zOrdered(plan, group.expectedOutputFiles());
    } else if (reorders) {
      plan =
          DistributionAndOrderingUtils$.MODULE$.prepareQuery(
              new OrderedGroupWrite(outputSpec, order, group.expectedOutputFiles()),
              plan,
              Option.apply(functions));
    }
    boolean recordsSortOrder =
        sortOrder != null && !table.sortOrder().isUnsorted() && table.sortOrder().sameOrder(order);
    DataWriterSettings settings =
        new DataWriterSettings(
            tableCopy,
            group.outputSpecId(),
            group.maxOutputFileSize(),
            false,
            recordsSortOrder,
            Map.of());
    if (lineage) {
      // the scan reads each row's lineage after the table's columns; the files keep it
      settings = settings.withLineage(RowLineageSource.inDataRow());
    }
    CollectionAccumulator<String> written = spark.sparkContext().collectionAccumulator();
    FileGroupWriteTask task =
        new FileGroupWriteTask(
            new FloeDataWriterFactory(settings, UUID.randomUUID().toString()), written);
    spark.sparkContext().setJobDescription(description);
    List<DataFile> files = new ArrayList<>();
    try {
      Dataset$.MODULE$
              .ofRows(spark, plan)
              .queryExecution()
              .toRdd()
              .toJavaRDD()
              .mapPartitions(task)
              .collect()
              .forEach(message -> files.addAll(message.dataFiles()));
    } catch (RuntimeException | Error e) {
      deleteQuietly(new HashSet<>(written.value()), Set.of());
      throw e;
    } finally {
      spark.sparkContext().setJobDescription(null);
    }
    Set<String> kept = new HashSet<>();
    files.forEach(file -> kept.add(file.location()));
    deleteQuietly(new HashSet<>(written.value()), kept);
    return new Result(files, (System.nanoTime() - start) / 1_000_000);
  }

  /**
   * The rows range-partitioned into {@code files} tasks by their z-order value and sorted by it
   * within each task, the value column dropped again.
   */
  private LogicalPlan zOrdered(LogicalPlan plan, int files) {
    String valueColumn = "__floe_zorder_value";
    Column[] inputs = zOrder.columns().stream().map(org.apache.spark.sql.functions::col).toArray(Column[]::new);
    Column value =
        org.apache.spark.sql.functions.udf(zOrder.value(), DataTypes.BinaryType).apply(org.apache.spark.sql.functions.struct(inputs));
    org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> sorted =
        Dataset$.MODULE$
            .ofRows(spark, plan)
            .withColumn(valueColumn, value)
            .repartitionByRange(Math.max(1, files), org.apache.spark.sql.functions.col(valueColumn))
            .sortWithinPartitions(valueColumn)
            .drop(valueColumn);
    return ((org.apache.spark.sql.classic.Dataset<org.apache.spark.sql.Row>) sorted).logicalPlan();
  }

  /** The group's file tasks, split and packed into input partitions of about {@code splitSize}. */
  private FloeScan scan(List<FileScanTask> tasks, long splitSize) {
    List<FloeInputPartition> partitions = new ArrayList<>();
    for (ScanTaskGroup<FileScanTask> bin :
        TableScanUtil.planTaskGroups(
            CloseableIterable.withNoopClose(tasks), splitSize, LOOKBACK, 0L)) {
      List<ScanTask> binTasks = new ArrayList<>(bin.tasks());
      partitions.add(new FloeInputPartition(partitions.size(), binTasks, null));
    }
    return new FloeScan(
        table.name(),
        ((HasTableOperations) table).operations().current().metadataFileLocation(),
        startingSnapshotId,
        table.io(),
        table.schema(),
        lineage ? MetadataColumns.schemaWithRowLineage(table.schema()) : table.schema(),
        Expressions.alwaysTrue(),
        partitions,
        readOptions,
        ScanLayout.unordered(splitSize),
        new DriverMetrics(0L, partitions.size(), 0L));
  }

  private void deleteQuietly(Set<String> locations, Set<String> keep) {
    for (String location : locations) {
      if (!keep.contains(location)) {
        try {
          table.io().deleteFile(location);
        } catch (RuntimeException e) {
          LOG.warn("Could not delete uncommitted rewrite file {}", location, e);
        }
      }
    }
  }

  /**
   * Deletes files this rewriter wrote that will not be committed.
   *
   * @param files the files of a group whose commit certainly failed, or that was never committed
   */
  void deleteUncommitted(List<DataFile> files) {
    Set<String> locations = new HashSet<>();
    files.forEach(file -> locations.add(file.location()));
    deleteQuietly(locations, Set.of());
  }

  /**
   * The distribution and ordering a reordering rewrite asks Spark for: rows range-partitioned into
   * {@code partitions} tasks by the output spec's partition transforms and then the sort order, and
   * sorted so within each task; the same transforms a write into the table sorts by.
   */
  private final class OrderedGroupWrite implements RequiresDistributionAndOrdering {
    private final org.apache.spark.sql.connector.expressions.SortOrder[] ordering;
    private final int partitions;

    OrderedGroupWrite(PartitionSpec spec, SortOrder order, int partitions) {
      Map<String, String> options = new HashMap<>();
      options.put(WriteOptions.DISTRIBUTION_MODE, "range");
      options.put(WriteOptions.FANOUT_ENABLED, "false");
      // the rewrite writes where the table's files are, whatever the session's write-audit-publish
      Map<String, String> properties = new HashMap<>(table.properties());
      properties.remove(TableProperties.WRITE_AUDIT_PUBLISH_ENABLED);
      WriteOptions writeOptions =
          WriteOptions.resolve(table.name(), options, SQLConf.get(), properties);
      this.ordering = WriteDistribution.of(table.schema(), spec, order, writeOptions).ordering();
      this.partitions = Math.max(1, partitions);
    }

    @Override
    public Distribution requiredDistribution() {
      return ordering.length == 0 ? Distributions.unspecified() : Distributions.ordered(ordering);
    }

    @Override
    public boolean distributionStrictlyRequired() {
      return true;
    }

    @Override
    public int requiredNumPartitions() {
      return partitions;
    }

    @Override
    public org.apache.spark.sql.connector.expressions.SortOrder[] requiredOrdering() {
      return ordering;
    }

    @Override
    public String description() {
      return "rewrite of " + table.name();
    }
  }
}
