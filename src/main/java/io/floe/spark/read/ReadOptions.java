package io.floe.spark.read;

import io.floe.spark.read.plan.PlanOptions;
import io.floe.spark.util.OptionResolver;
import java.io.Serializable;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.internal.SQLConf;
import scala.Option;

/**
 * A scan's settings, resolved once on the driver in one order: the read option, then the session
 * conf {@code spark.floe.read.<option>}, then the table property, then the default.
 *
 * @param splitSize target bytes per task group ({@code split-size}, {@code read.split.target-size}),
 *     or null when none is set: the planner then derives it from the scan's size, {@code
 *     maxPartitionBytes} and {@code minPartitions}, as Spark does for its own file sources
 * @param openFileCost bytes charged per file when packing ({@code file-open-cost}, {@code
 *     read.split.open-file-cost})
 * @param maxPartitionBytes the largest derived split size ({@code spark.sql.files.maxPartitionBytes})
 * @param minPartitions the number of groups a derived split size aims for ({@code
 *     spark.sql.files.minPartitionNum}, else Spark's default parallelism)
 * @param caseSensitive whether column names resolve case-sensitively ({@code spark.sql.caseSensitive})
 * @param timeTravel the snapshot the options {@code snapshot-id}, {@code as-of-timestamp}, {@code
 *     branch} or {@code tag} ask for, or null to read the table's snapshot
 * @param batchSize rows per columnar batch ({@code batch-size}, {@code
 *     read.parquet.vectorization.batch-size})
 * @param prefetchFiles files a reader opens ahead of the one it reads ({@code prefetch-files}); 0
 *     disables prefetching
 * @param reportPartitioning whether the scan reports its partitioning to Spark when every group
 *     holds one partition key, so that storage-partitioned joins avoid a shuffle ({@code
 *     report-partitioning})
 * @param aggregatePushdown whether {@code COUNT}, {@code MIN} and {@code MAX} without a filter or
 *     GROUP BY are answered from file metadata when it is exact ({@code aggregate-pushdown})
 * @param vectorizationEnabled whether Parquet files are read into columnar batches ({@code
 *     vectorization-enabled}, {@code read.parquet.vectorization.enabled}; default true)
 * @param targetPartitions the number of input partitions to aim for when no split size is set
 *     ({@code target-partitions}, {@code read.split.target-partitions}), or null for Spark's rule
 * @param nameMapping the table's name mapping as JSON ({@code schema.name-mapping.default}), which
 *     gives field ids to the columns of files written without them; null when the table has none
 * @param ignoredMetricsColumns the names of columns (dotted for nested fields) whose file metrics the scan must not
 *     trust ({@code ignore-metrics-columns}, {@code read.metrics.ignore-columns}; comma-separated,
 *     default none): no predicate on them prunes files or partitions, and no aggregate over them is
 *     answered from metadata. The way out for tables whose manifests other tools wrote with wrong
 *     bounds, such as millisecond timestamps imported with microsecond bounds (issue 32); names the
 *     scan's schema lacks are ignored
 */
public record ReadOptions(
    Long splitSize,
    long openFileCost,
    long maxPartitionBytes,
    int minPartitions,
    boolean caseSensitive,
    TimeTravel timeTravel,
    int batchSize,
    int prefetchFiles,
    boolean reportPartitioning,
    boolean aggregatePushdown,
    boolean vectorizationEnabled,
    Integer targetPartitions,
    String nameMapping,
    List<String> ignoredMetricsColumns)
    implements Serializable {

  public static final String SPLIT_SIZE = "split-size";
  /**
   * Iceberg's bin-packing lookback ({@code read.split.planning-lookback}): accepted for
   * compatibility with Iceberg's settings and ignored, the planner balances groups without it.
   */
  public static final String LOOKBACK = "lookback";
  public static final String FILE_OPEN_COST = "file-open-cost";
  public static final String SNAPSHOT_ID = "snapshot-id";
  public static final String AS_OF_TIMESTAMP = "as-of-timestamp";
  public static final String BRANCH = "branch";
  public static final String TAG = "tag";
  public static final String BATCH_SIZE = "batch-size";
  public static final String PREFETCH_FILES = "prefetch-files";
  public static final String VECTORIZATION_ENABLED = "vectorization-enabled";
  public static final String TARGET_PARTITIONS = "target-partitions";
  /** Floe's table property for {@value #TARGET_PARTITIONS}; Iceberg has none. */
  public static final String TARGET_PARTITIONS_PROPERTY = "read.split.target-partitions";
  public static final String REPORT_PARTITIONING = "report-partitioning";
  public static final String AGGREGATE_PUSHDOWN = "aggregate-pushdown";
  public static final String IGNORE_METRICS_COLUMNS = "ignore-metrics-columns";
  /** Floe's table property for {@value #IGNORE_METRICS_COLUMNS}; Iceberg has none. */
  public static final String IGNORE_METRICS_COLUMNS_PROPERTY = "read.metrics.ignore-columns";
  /** The prefix of session confs that set a read option for every scan. */
  public static final String SESSION_PREFIX = "spark.floe.read.";

  /**
   * The official runtime's session confs that set the same thing as a Floe read option; each is
   * read after {@code spark.floe.read.<option>}, which wins when both are set.
   */
  public static final Map<String, String> ICEBERG_SESSION_CONFS =
      Map.of(
          VECTORIZATION_ENABLED, "spark.sql.iceberg.vectorization.enabled",
          REPORT_PARTITIONING, "spark.sql.iceberg.planning.preserve-data-grouping",
          AGGREGATE_PUSHDOWN, "spark.sql.iceberg.aggregate-push-down.enabled");

  public static final int BATCH_SIZE_DEFAULT = 4096;
  public static final int PREFETCH_FILES_DEFAULT = 2;
  private static final long MAX_PARTITION_BYTES_DEFAULT = 128L * 1024 * 1024;

  private static final Set<String> KNOWN = withStreamingNames(
      Set.of(
          SPLIT_SIZE,
          LOOKBACK,
          FILE_OPEN_COST,
          SNAPSHOT_ID,
          AS_OF_TIMESTAMP,
          BRANCH,
          TAG,
          BATCH_SIZE,
          PREFETCH_FILES,
          REPORT_PARTITIONING,
          AGGREGATE_PUSHDOWN,
          VECTORIZATION_ENABLED,
          TARGET_PARTITIONS,
          IGNORE_METRICS_COLUMNS,
          "path",
          "paths",
          // Spark's own time travel options (spark.sql.timeTravelVersionKey and TimestampKey),
          // which Spark resolves when it loads the table and then passes on to the scan
          "versionasof",
          "timestampasof"));

  private static Set<String> withStreamingNames(Set<String> names) {
    Set<String> all = new HashSet<>(names);
    all.addAll(StreamingReadOptionNames.ALL);
    return Set.copyOf(all);
  }

  public ReadOptions {
    ignoredMetricsColumns =
        ignoredMetricsColumns == null ? List.of() : List.copyOf(ignoredMetricsColumns);
    if ((splitSize != null && splitSize <= 0) || openFileCost < 0) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot read: split-size (%s) must be positive and file-open-cost (%d) not negative",
              splitSize, openFileCost));
    }
    if (maxPartitionBytes <= 0 || minPartitions <= 0) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot read: maxPartitionBytes (%d) and minPartitions (%d) must be positive",
              maxPartitionBytes, minPartitions));
    }
    if (batchSize <= 0) {
      throw new IllegalArgumentException(
          "Cannot read: option 'batch-size' must be positive, not " + batchSize);
    }
    if (prefetchFiles < 0) {
      throw new IllegalArgumentException(
          "Cannot read: option 'prefetch-files' must not be negative, not " + prefetchFiles);
    }
  }

  /** What the planner needs of these options. */
  public PlanOptions planOptions() {
    return new PlanOptions(
        splitSize, openFileCost, maxPartitionBytes, minPartitions, targetPartitions, caseSensitive);
  }

  /**
   * Resolves the options of one scan.
   *
   * @throws IllegalArgumentException for an unknown option or a value that does not parse
   */
  public static ReadOptions resolve(
      Map<String, String> options, SQLConf session, Map<String, String> tableProperties) {
    OptionResolver resolver =
        new OptionResolver("Cannot read", options, session, SESSION_PREFIX, tableProperties)
            .withSessionAliases(ICEBERG_SESSION_CONFS);
    resolver.rejectUnknown(KNOWN, "read");
    Integer targetPartitions = resolver.optionalInt(TARGET_PARTITIONS, TARGET_PARTITIONS_PROPERTY);
    if (targetPartitions != null && targetPartitions <= 0) {
      throw new IllegalArgumentException(
          "Cannot read: option '" + TARGET_PARTITIONS + "' must be positive, not " + targetPartitions);
    }
    return new ReadOptions(
        resolver.optionalLong(SPLIT_SIZE, TableProperties.SPLIT_SIZE),
        resolver.longValue(
            FILE_OPEN_COST,
            TableProperties.SPLIT_OPEN_FILE_COST,
            TableProperties.SPLIT_OPEN_FILE_COST_DEFAULT),
        session == null ? MAX_PARTITION_BYTES_DEFAULT : session.filesMaxPartitionBytes(),
        minPartitions(session),
        session == null || session.caseSensitiveAnalysis(),
        TimeTravel.fromOptions(options),
        resolver.intValue(BATCH_SIZE, TableProperties.PARQUET_BATCH_SIZE, BATCH_SIZE_DEFAULT),
        resolver.intValue(PREFETCH_FILES, null, PREFETCH_FILES_DEFAULT),
        resolver.booleanValue(REPORT_PARTITIONING, null, true),
        resolver.booleanValue(AGGREGATE_PUSHDOWN, null, true),
        resolver.booleanValue(
            VECTORIZATION_ENABLED,
            TableProperties.PARQUET_VECTORIZATION_ENABLED,
            TableProperties.PARQUET_VECTORIZATION_ENABLED_DEFAULT),
        targetPartitions,
        tableProperties == null ? null : tableProperties.get(TableProperties.DEFAULT_NAME_MAPPING),
        columnList(resolver.string(IGNORE_METRICS_COLUMNS, IGNORE_METRICS_COLUMNS_PROPERTY)));
  }

  private static List<String> columnList(String value) {
    if (value == null) {
      return List.of();
    }
    return Arrays.stream(value.split(",")).map(String::trim).filter(name -> !name.isEmpty()).toList();
  }

  /**
   * The field ids of the {@link #ignoredMetricsColumns} in {@code schema}, matched as the scan
   * matches column names.
   */
  public Set<Integer> ignoredMetricsFieldIds(Schema schema) {
    Set<Integer> ids = new HashSet<>();
    for (String name : ignoredMetricsColumns) {
      Types.NestedField field =
          caseSensitive ? schema.findField(name) : schema.caseInsensitiveFindField(name);
      if (field != null) {
        ids.add(field.fieldId());
      }
    }
    return Set.copyOf(ids);
  }

  /** Spark's own rule for file sources: the configured minimum, else the default parallelism. */
  private static int minPartitions(SQLConf session) {
    if (session != null) {
      Option<Object> configured = session.filesMinPartitionNum();
      if (configured.isDefined()) {
        return Math.max(1, (Integer) configured.get());
      }
    }
    Option<SparkSession> active = SparkSession.getActiveSession();
    if (active.isDefined()) {
      return Math.max(1, active.get().sparkContext().defaultParallelism());
    }
    return 1;
  }
}
