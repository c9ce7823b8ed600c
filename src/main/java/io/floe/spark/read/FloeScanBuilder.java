package io.floe.spark.read;

import io.floe.spark.expressions.SparkPredicates;
import io.floe.spark.read.exec.FileKeyColumn;
import io.floe.spark.read.plan.DistinctCounts;
import io.floe.spark.read.plan.IncrementalPlanner;
import io.floe.spark.read.plan.MetadataAggregates;
import io.floe.spark.read.plan.ScanPlanner;
import io.floe.spark.types.SparkSchemas;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionUtil;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Collects what Spark pushes into a scan (required columns, filters, a limit, an aggregation) and
 * builds a {@link FloeScan} planned against one snapshot. Every predicate is handed back to Spark
 * except those that select whole partitions, so Iceberg's pruning and residuals are never the only
 * filter applied to a row they cannot decide exactly.
 */
public final class FloeScanBuilder
    implements ScanBuilder,
        SupportsPushDownV2Filters,
        SupportsPushDownRequiredColumns,
        SupportsPushDownLimit,
        SupportsPushDownAggregates {
  /**
   * The session conf that lets Spark's dynamic pruning filter the scan at run time on data columns
   * too, by their file bounds (default false: partition columns only).
   */
  public static final String DATA_COLUMN_RUNTIME_FILTERS = "spark.floe.read.runtime-filter-data-columns";

  /** The session conf of write-audit-publish that names the branch a session writes and reads. */
  private static final String WAP_BRANCH_CONF = "spark.wap.branch";

  private final Table table;
  private final Long pinnedSnapshotId;
  private final Schema schema;
  private final ReadOptions options;
  private final Map<String, String> givenOptions;
  private MicroBatchStreamFactory streams;
  // null unless the options ask for the appends between two snapshots
  private final IncrementalRange incremental;
  // why the incremental options do not resolve, for a batch read; a stream resolves them itself
  private final IllegalArgumentException incrementalFailure;
  private final List<Predicate> pushed = new ArrayList<>();
  private final Set<Integer> ignoredMetricsFieldIds;
  private Expression filter = Expressions.alwaysTrue();
  private int postScanFilters;
  private StructType requested;
  private Integer limit;
  private Aggregation askedAggregation;
  private Optional<MetadataAggregates.Answer> askedAnswer = Optional.empty();
  private MetadataAggregates.Answer aggregateAnswer;
  private boolean wholeFiles;
  private ScanPlanShare plans;

  /**
   * @param table the table or metadata table to scan
   * @param snapshotId the snapshot the table was loaded at (time travel), or null
   * @param schema the schema the table reported to Spark
   * @param options the scan's read options
   */
  public FloeScanBuilder(
      Table table, Long snapshotId, Schema schema, CaseInsensitiveStringMap options) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.pinnedSnapshotId = snapshotId;
    this.schema = Objects.requireNonNull(schema, "schema is null");
    Objects.requireNonNull(options, "options is null");
    this.options =
        ReadOptions.resolve(options.asCaseSensitiveMap(), sessionConf(), table.properties());
    this.ignoredMetricsFieldIds = this.options.ignoredMetricsFieldIds(schema);
    this.givenOptions = Map.copyOf(options.asCaseSensitiveMap());
    IncrementalRange range = null;
    IllegalArgumentException failure = null;
    if (!(table instanceof BaseMetadataTable)) {
      try {
        range = IncrementalRange.fromOptions(table, givenOptions, this.options.timeTravel());
      } catch (IllegalArgumentException e) {
        Snapshot current = table.currentSnapshot();
        if (this.options.timeTravel() != null || snapshotId != null || current == null) {
          throw e;
        }
        // Spark builds a stream's scan as it builds a batch read's, and a stream gives these
        // options its own meaning (it may start after the current snapshot, and on a restart its
        // checkpoint decides): the failure is a batch read's, raised by build() when the scan
        // cannot stream, else by the built scan's toBatch()
        range = new IncrementalRange(null, current.snapshotId(), true);
        failure = e;
      }
    }
    this.incremental = range;
    this.incrementalFailure = failure;
    if (incremental != null && snapshotId != null) {
      // the table itself was loaded at a snapshot (VERSION AS OF, a branch's name)
      throw new IllegalArgumentException(
          "Cannot read " + table.name() + ": Cannot use time travel in incremental scan");
    }
  }

  /**
   * Makes the built scan read every row of each file it plans (a copy-on-write scan, which copies
   * the rows it does not change): pushed filters still prune whole files, by partition and column
   * metrics, in the one planning pass, but never row groups inside a file.
   */
  public FloeScanBuilder readingWholeFiles() {
    this.wholeFiles = true;
    return this;
  }

  /**
   * Lets the built scan take a plan another scan of the table offered ({@link ScanPlanShare}) when
   * it would plan the same files, instead of planning them again.
   */
  public FloeScanBuilder sharingPlansWith(ScanPlanShare share) {
    this.plans = Objects.requireNonNull(share, "share is null");
    return this;
  }

  /** Lets the built scan run as a stream's source ({@link FloeScan#toMicroBatchStream}). */
  public FloeScanBuilder withStreaming(MicroBatchStreamFactory factory) {
    this.streams = Objects.requireNonNull(factory, "factory is null");
    return this;
  }

  /**
   * Plans with every predicate that converts, and hands back to Spark all but those that select
   * whole partitions: a predicate that converts exactly and decides, for every partition spec of the
   * table, the same from a file's partition as it would from each of the file's rows (an identity
   * column compared with a value, a timestamp range on day boundaries under {@code days(ts)}) holds
   * for every row of every file planned with it, so Spark need not evaluate it again. With no
   * predicate left for Spark, it can push a LIMIT or an aggregate as well.
   */
  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    List<Predicate> postScan = new ArrayList<>();
    for (Predicate predicate : predicates) {
      if (namesIgnoredMetricsColumn(predicate)) {
        postScan.add(predicate);
        continue;
      }
      Optional<Expression> exact = selectingPartitions(predicate);
      if (exact.isPresent() && printable(predicate)) {
        pushed.add(predicate);
        filter = Expressions.and(filter, exact.get());
        continue;
      }
      Optional<Expression> converted =
          SparkPredicates.convert(predicate, schema, options.caseSensitive());
      if (converted.isPresent()) {
        if (printable(predicate)) {
          pushed.add(predicate);
        }
        filter = Expressions.and(filter, converted.get());
      }
      postScan.add(predicate);
    }
    postScanFilters += postScan.size();
    return postScan.toArray(new Predicate[0]);
  }

  /**
   * Whether the predicate names a column of {@code ignore-metrics-columns}: such a predicate is
   * left to Spark whole and never prunes, since the metrics it would prune by may be wrong. A
   * predicate that does not convert names nothing Floe would prune by.
   */
  private boolean namesIgnoredMetricsColumn(Predicate predicate) {
    if (ignoredMetricsFieldIds.isEmpty()) {
      return false;
    }
    Optional<Expression> converted =
        SparkPredicates.convert(predicate, schema, options.caseSensitive());
    if (converted.isEmpty()) {
      return false;
    }
    try {
      Set<Integer> referenced =
          Binder.boundReferences(
              schema.asStruct(), List.of(converted.get()), options.caseSensitive());
      return referenced.stream().anyMatch(ignoredMetricsFieldIds::contains);
    } catch (RuntimeException e) {
      return true;
    }
  }

  /**
   * The exact conversion of a predicate that selects whole partitions in every spec of the table,
   * or empty. Only for a data table scanned in its current schema: the specs are bound to that
   * schema, so a name the scan's older schema gives another column must not be looked up there.
   */
  private Optional<Expression> selectingPartitions(Predicate predicate) {
    if (table instanceof BaseMetadataTable || !schema.sameSchema(table.schema())) {
      return Optional.empty();
    }
    Optional<Expression> exact =
        SparkPredicates.convertExact(predicate, schema, options.caseSensitive());
    try {
      return exact.filter(
          expression ->
              ExpressionUtil.selectsPartitions(expression, table, options.caseSensitive()));
    } catch (RuntimeException e) {
      // a predicate Iceberg cannot project stays with Spark
      return Optional.empty();
    }
  }

  /**
   * Whether Spark can print a predicate. Spark prints the pushed predicates while it optimizes a
   * query, and its printing of a NULL binary literal ({@code bin IN (X'', NULL)}) fails an
   * assertion, which fails the query; such a predicate still prunes files here but is not reported
   * as pushed (Spark evaluates every predicate after the scan anyway).
   */
  private static boolean printable(Predicate predicate) {
    try {
      predicate.toString();
      return true;
    } catch (AssertionError | RuntimeException e) {
      return false;
    }
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pushed.toArray(new Predicate[0]);
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.requested = requiredSchema;
  }

  /**
   * Remembers the limit, so planning can stop at the files that surely hold that many rows. Spark
   * pushes a limit only when no filter is left for it to apply after the scan, and still applies
   * the limit itself.
   */
  @Override
  public boolean pushLimit(int newLimit) {
    if (newLimit < 0) {
      return false;
    }
    this.limit = limit == null ? newLimit : Math.min(limit, newLimit);
    return true;
  }

  @Override
  public boolean isPartiallyPushed() {
    return true;
  }

  /**
   * Whether file metadata answers the aggregation exactly; only then is it pushed, and completely.
   */
  @Override
  public boolean supportCompletePushDown(Aggregation aggregation) {
    return answer(aggregation).isPresent();
  }

  @Override
  public boolean pushAggregation(Aggregation aggregation) {
    Optional<MetadataAggregates.Answer> answer = answer(aggregation);
    aggregateAnswer = answer.orElse(null);
    return answer.isPresent();
  }

  private Optional<MetadataAggregates.Answer> answer(Aggregation aggregation) {
    if (aggregation != askedAggregation) {
      askedAggregation = aggregation;
      boolean eligible =
          options.aggregatePushdown()
              && !(table instanceof BaseMetadataTable)
              && postScanFilters == 0
              && limit == null
              && incremental == null;
      // with no predicate left for Spark, the filter selects whole partitions: every row of every
      // file planned with it counts
      askedAnswer =
          eligible
              ? MetadataAggregates.answer(
                  table,
                  snapshotToRead(),
                  schema,
                  filter,
                  aggregation,
                  options.caseSensitive(),
                  ignoredMetricsFieldIds)
              : Optional.empty();
    }
    return askedAnswer;
  }

  @Override
  public Scan build() {
    if (aggregateAnswer != null) {
      return new FloeAggregateScan(
          table.name(),
          snapshotToRead(),
          aggregateAnswer.schema(),
          aggregateAnswer.rows(),
          aggregateAnswer.groupBy(),
          aggregateAnswer.functions());
    }
    boolean dataTable = !(table instanceof BaseMetadataTable);
    Long snapshotId = dataTable ? snapshotToRead() : null;
    // Spark resolved the query against the schema the table reported, so rows come in that schema
    // even when a read option picks an older snapshot: files are read by field id, columns the
    // snapshot lacked read null, and renamed columns keep their data.
    Schema readSchema = readSchema(schema);
    SQLConf conf = sessionConf();
    ScanPlanner.Hints hints =
        new ScanPlanner.Hints(
            limit,
            options.reportPartitioning() && conf.v2BucketingEnabled(),
            conf.numShufflePartitions(),
            conf.cboEnabled() || conf.planStatsEnabled(),
            // data-column runtime filters give Spark a pruning subquery per join; on TPC-H they cost
            // more than they saved, so like the official runtime Floe offers only partition
            // columns unless asked
            conf.dynamicPartitionPruningEnabled()
                && Boolean.parseBoolean(conf.getConfString(DATA_COLUMN_RUNTIME_FILTERS, "false").trim()),
            ignoredMetricsFieldIds,
            wholeFiles);
    FloeScan shared =
        plans != null && dataTable && incremental == null && limit == null
            ? plans.take(snapshotId, schema, options, filter)
            : null;
    if (shared != null) {
      FloeScan scan =
          new FloeScan(
              table.name(), metadataLocation(), snapshotId, table.io(), schema, readSchema, filter,
              ScanPlanShare.prune(
                  shared.partitions(), filter, schema, table.specs(), options.caseSensitive()),
              options, shared.layout(), shared.metrics());
      scan.runtimeFilterColumns(shared.runtimeFilterColumns());
      return withStreams(scan, dataTable);
    }
    if (incrementalFailure != null && streams == null) {
      throw incrementalFailure;
    }
    if (incrementalFailure != null) {
      // only a stream can read these options: its scan plans nothing
      return new StreamOnlyScan(
          withStreams(
              scanOf(IncrementalPlanner.nothing(), metadataLocation(), snapshotId, readSchema),
              dataTable),
          table.name(),
          incrementalFailure);
    }
    Expression planFilter = filter;
    IncrementalRange range = incremental;
    Supplier<ScanPlanner.Plan> planning =
        range == null
            ? () ->
                ScanPlanner.plan(
                    table, snapshotId, dataTable, planFilter, schema, readSchema,
                    options.planOptions(), hints)
            : () -> range.plan(table, planFilter, options.planOptions());
    FloeScan scan;
    if (streams != null && dataTable) {
      // the scan may serve a stream, which plans its own micro-batches: the snapshot (or the
      // incremental range) is planned only when the scan is used as a batch
      scan =
          FloeScan.planningLater(
              table.name(), metadataLocation(), snapshotId, table.io(), schema, readSchema, filter,
              options, planning);
    } else {
      scan = scanOf(planning.get(), metadataLocation(), snapshotId, readSchema);
    }
    if (dataTable && incremental == null && snapshotId != null) {
      // only table metadata is read, and only when the cost-based optimizer will use the counts
      scan.columnStatistics(
          DistinctCounts.reported(conf) ? DistinctCounts.of(table, snapshotId) : DistinctCounts.none(),
          DistinctCounts.columnStatsReported(conf));
    }
    return withStreams(scan, dataTable);
  }

  /** The scan of a plan, with the builder's table, schemas, filter and options. */
  private FloeScan scanOf(
      ScanPlanner.Plan plan, String metadataLocation, Long snapshotId, Schema readSchema) {
    FloeScan scan =
        new FloeScan(
            table.name(),
            metadataLocation,
            snapshotId,
            table.io(),
            schema,
            readSchema,
            filter,
            FloeInputPartition.of(plan.groups()),
            options,
            plan.layout(),
            plan.metrics());
    scan.runtimeFilterColumns(plan.runtimeFilterColumns());
    return scan;
  }

  private FloeScan withStreams(FloeScan scan, boolean dataTable) {
    if (streams != null && dataTable) {
      MicroBatchStreamFactory factory = streams;
      scan.streamingWith(checkpoint -> factory.create(scan, givenOptions, checkpoint));
    }
    return scan;
  }

  private Long snapshotToRead() {
    if (incremental != null) {
      return incremental.endSnapshotId();
    }
    if (options.timeTravel() != null) {
      return options.timeTravel().snapshotId(table);
    }
    if (pinnedSnapshotId != null) {
      return pinnedSnapshotId;
    }
    Snapshot wapHead = wapBranchHead();
    if (wapHead != null) {
      return wapHead.snapshotId();
    }
    Snapshot current = table.currentSnapshot();
    return current == null ? null : current.snapshotId();
  }

  /**
   * Write-audit-publish: on a table with {@code write.wap.enabled}, while the session conf {@code
   * spark.wap.branch} names a branch the table has, reads without a time travel of their own see
   * that branch, where the session's writes go. A branch not created yet leaves reads on main.
   */
  private Snapshot wapBranchHead() {
    if (!PropertyUtil.propertyAsBoolean(
        table.properties(), TableProperties.WRITE_AUDIT_PUBLISH_ENABLED, false)) {
      return null;
    }
    String branch = SQLConf.get().getConfString(WAP_BRANCH_CONF, null);
    SnapshotRef ref = branch == null ? null : table.refs().get(branch);
    return ref == null || !ref.isBranch() ? null : table.snapshot(ref.snapshotId());
  }

  private Schema readSchema(Schema tableSchema) {
    if (requested == null) {
      return tableSchema;
    }
    StructType dataFields = new StructType();
    List<Types.NestedField> metadataFields = new ArrayList<>();
    for (StructField field : requested.fields()) {
      if (MetadataColumns.isMetadataColumn(field.name())
          && tableSchema.findField(field.name()) == null) {
        metadataFields.add(MetadataColumns.metadataColumn(table, field.name()));
      } else if (FileKeyColumn.NAME.equals(field.name())
          && tableSchema.findField(field.name()) == null) {
        metadataFields.add(FileKeyColumn.FIELD);
      } else {
        dataFields = dataFields.add(field);
      }
    }
    Schema data = SparkSchemas.prune(tableSchema, dataFields, options.caseSensitive());
    if (metadataFields.isEmpty()) {
      return data;
    }
    List<Types.NestedField> columns = new ArrayList<>(data.columns());
    columns.addAll(metadataFields);
    return new Schema(columns);
  }

  private String metadataLocation() {
    if (table instanceof HasTableOperations) {
      return ((HasTableOperations) table).operations().current().metadataFileLocation();
    }
    return null;
  }

  private static SQLConf sessionConf() {
    return SQLConf.get();
  }
}
