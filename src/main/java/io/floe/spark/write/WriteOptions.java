package io.floe.spark.write;

import io.floe.spark.util.OptionResolver;
import io.floe.spark.util.OptionValues;
import io.floe.spark.commit.Committer;
import io.floe.spark.write.exec.DataWriterSettings;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.spark.sql.internal.SQLConf;

/**
 * A write's settings, resolved once on the driver in one order: the write option, then the session
 * conf {@code spark.floe.write.<option>}, then the table property, then the default. The options
 * the official runtime also reads from its session confs ({@code snapshot-property.*}, {@code
 * check-*}, {@code compression-*}) fall back to {@code spark.sql.iceberg.<option>} after Floe's.
 *
 * @param commitId a caller-chosen commit id ({@code commit-id}), or null for one chosen per write
 * @param targetFileSizeBytes roll data files at this size ({@code target-file-size-bytes}, {@code
 *     write.target-file-size-bytes})
 * @param fanout the fanout writer as asked for ({@code fanout-enabled}, {@code
 *     write.spark.fanout.enabled}): true keeps one open file per partition so input may come in any
 *     order, false keeps one file open and has Spark sort each task's rows by partition, null (not
 *     set) lets {@link WriteDistribution} choose by what the distribution guarantees
 * @param branch the branch to commit to ({@code branch}), or null for main
 * @param distributionMode how rows are spread over writer tasks ({@code distribution-mode}, {@code
 *     write.distribution-mode}: none, hash or range), or null for the table's default (see {@link
 *     WriteDistribution})
 * @param advisoryPartitionSizeBytes the shuffle partition size to ask Spark for when rows are
 *     distributed ({@code advisory-partition-size}, {@code
 *     write.spark.advisory-partition-size-bytes}), or 0 for Spark's own
 *     ({@code spark.sql.adaptive.advisoryPartitionSizeInBytes})
 * @param outputSpecId the id of the partition spec to write files with ({@code output-spec-id}),
 *     or null for the table's current spec
 * @param wapId the write-audit-publish id the write is staged under: the session conf {@code
 *     spark.wap.id} when the table property {@code write.wap.enabled} is true; null otherwise
 * @param snapshotProperties entries for the commit's snapshot summary: the write options {@code
 *     snapshot-property.<key>}, over the session confs {@code
 *     spark.floe.write.snapshot-property.<key>}, over the official runtime's {@code
 *     spark.sql.iceberg.snapshot-property.<key>}; never {@code floe.commit-id}
 * @param checkNullability whether planning refuses input that may hold NULL where the table
 *     requires a value ({@code check-nullability}, default true)
 * @param checkOrdering whether planning requires the input's columns and struct fields to carry
 *     the table's names in the table's order ({@code check-ordering}, default true)
 * @param isolationLevel how an overwrite or dynamic overwrite is validated against the commits
 *     since {@code validateFromSnapshotId} ({@code isolation-level}: serializable or snapshot), or
 *     null for no conflict validation
 * @param validateFromSnapshotId the snapshot conflicts are looked for after ({@code
 *     validate-from-snapshot-id}), or null for the snapshot the write started from
 * @param fileWriteProperties table properties this write's files are written with instead of the
 *     table's: {@code write.format.default} and {@code write.delete.format.default} from {@code
 *     write-format} and {@code delete-format}, {@code write.<format>.compression-codec} and {@code
 *     -level} from {@code compression-codec} and {@code compression-level}, {@code
 *     write.orc.compression-strategy} from {@code compression-strategy} (each also from {@code
 *     spark.sql.iceberg.<option>})
 * @param pathBased whether the write names its table by location ({@code path}, as {@code
 *     format("floe").save(location)} does): Spark then has no function catalog to compute
 *     partition transforms with, so only identity columns can be distributed and ordered by
 * @param mergeSchema whether the data's new columns and widened types are added to the table's
 *     schema in the write's commit ({@code merge-schema} or {@code mergeSchema}, then {@code
 *     spark.floe.write.merge-schema}, then {@code spark.sql.iceberg.merge-schema}; default false)
 * @param fanoutMaxOpenFiles the most data files a fanout writer task keeps open at once ({@code
 *     fanout-max-open-files}, {@code write.spark.fanout.max-open-files}; Floe's own, default {@value
 *     DataWriterSettings#DEFAULT_MAX_OPEN_FILES}): one more partition closes the least recently
 *     written file, and rows of that partition that come later go to a new file
 * @param useTableDistributionAndOrdering whether Spark is asked to distribute and order the rows
 *     by the table's layout ({@code use-table-distribution-and-ordering}, then {@code
 *     spark.floe.write.use-table-distribution-and-ordering}; the official runtime's write option,
 *     default true). False asks Spark for neither: rows are written in the tasks and the order
 *     they come in, by writers that accept any order
 */
public record WriteOptions(
    String commitId,
    long targetFileSizeBytes,
    Boolean fanout,
    String branch,
    DistributionMode distributionMode,
    long advisoryPartitionSizeBytes,
    Integer outputSpecId,
    String wapId,
    Map<String, String> snapshotProperties,
    boolean checkNullability,
    boolean checkOrdering,
    IsolationLevel isolationLevel,
    Long validateFromSnapshotId,
    Map<String, String> fileWriteProperties,
    boolean pathBased,
    boolean mergeSchema,
    int fanoutMaxOpenFiles,
    boolean useTableDistributionAndOrdering)
    implements Serializable {

  public static final String COMMIT_ID = "commit-id";
  public static final String TARGET_FILE_SIZE_BYTES = "target-file-size-bytes";
  public static final String FANOUT_ENABLED = "fanout-enabled";
  public static final String BRANCH = "branch";
  public static final String DISTRIBUTION_MODE = "distribution-mode";
  public static final String ADVISORY_PARTITION_SIZE = "advisory-partition-size";
  public static final String OUTPUT_SPEC_ID = "output-spec-id";
  /** The official runtime's write option that turns off the table's distribution and ordering. */
  public static final String USE_TABLE_DISTRIBUTION_AND_ORDERING =
      "use-table-distribution-and-ordering";
  public static final String CHECK_NULLABILITY = "check-nullability";
  public static final String CHECK_ORDERING = "check-ordering";
  public static final String ISOLATION_LEVEL = "isolation-level";
  public static final String VALIDATE_FROM_SNAPSHOT_ID = "validate-from-snapshot-id";
  public static final String COMPRESSION_CODEC = "compression-codec";
  public static final String COMPRESSION_LEVEL = "compression-level";
  public static final String COMPRESSION_STRATEGY = "compression-strategy";
  /** The format of the write's data files: parquet, orc or avro. */
  public static final String WRITE_FORMAT = "write-format";
  /** The format of the write's position-delete files: parquet, orc or avro. */
  public static final String DELETE_FORMAT = "delete-format";
  public static final String MERGE_SCHEMA = "merge-schema";
  public static final String FANOUT_MAX_OPEN_FILES = "fanout-max-open-files";
  /** The table property that bounds the files a fanout writer task keeps open (Floe's own). */
  public static final String FANOUT_MAX_OPEN_FILES_PROPERTY = "write.spark.fanout.max-open-files";
  /** The official runtime's other spelling of {@link #MERGE_SCHEMA}. */
  public static final String MERGE_SCHEMA_CAMEL = "mergeSchema";
  /** The prefix of write options (and session confs) that add an entry to the snapshot summary. */
  public static final String SNAPSHOT_PROPERTY_PREFIX = "snapshot-property.";
  /** The official runtime's session conf prefix for snapshot summary entries. */
  public static final String ICEBERG_SNAPSHOT_PROPERTY_CONF_PREFIX =
      "spark.sql.iceberg." + SNAPSHOT_PROPERTY_PREFIX;
  /** The prefix of the official runtime's session confs that Floe also reads for some options. */
  public static final String ICEBERG_SESSION_PREFIX = "spark.sql.iceberg.";
  /** The prefix of session confs that set a write option for every write. */
  public static final String SESSION_PREFIX = "spark.floe.write.";
  /** The table property that turns the fanout writer on. */
  public static final String FANOUT_PROPERTY = "write.spark.fanout.enabled";
  /** The table property that sets the advisory shuffle partition size for writes. */
  public static final String ADVISORY_PARTITION_SIZE_PROPERTY =
      "write.spark.advisory-partition-size-bytes";
  /** The session conf of write-audit-publish: stage the write's snapshot under this id. */
  public static final String WAP_ID_CONF = "spark.wap.id";
  /** The session conf of write-audit-publish: commit writes to this branch. */
  public static final String WAP_BRANCH_CONF = "spark.wap.branch";

  private static final Set<String> KNOWN =
      Set.of(
          COMMIT_ID,
          TARGET_FILE_SIZE_BYTES,
          FANOUT_ENABLED,
          BRANCH,
          DISTRIBUTION_MODE,
          ADVISORY_PARTITION_SIZE,
          OUTPUT_SPEC_ID,
          CHECK_NULLABILITY,
          CHECK_ORDERING,
          ISOLATION_LEVEL,
          VALIDATE_FROM_SNAPSHOT_ID,
          COMPRESSION_CODEC,
          COMPRESSION_LEVEL,
          COMPRESSION_STRATEGY,
          WRITE_FORMAT,
          DELETE_FORMAT,
          MERGE_SCHEMA,
          FANOUT_MAX_OPEN_FILES,
          VariantShreddingOptions.SHRED_VARIANTS,
          VariantShreddingOptions.VARIANT_INFERENCE_BUFFER_SIZE,
          USE_TABLE_DISTRIBUTION_AND_ORDERING,
          MERGE_SCHEMA_CAMEL.toLowerCase(java.util.Locale.ROOT),
          "path",
          "paths",
          // Spark passes a stream's checkpoint folder on to its sink among the write options
          "checkpointlocation");

  public WriteOptions {
    if (commitId != null && commitId.isBlank()) {
      throw new IllegalArgumentException("Cannot write: option commit-id must not be blank");
    }
    if (targetFileSizeBytes <= 0) {
      throw new IllegalArgumentException(
          "Cannot write: target-file-size-bytes must be positive, not " + targetFileSizeBytes);
    }
    if (advisoryPartitionSizeBytes < 0) {
      throw new IllegalArgumentException(
          "Cannot write: advisory-partition-size must be positive, not " + advisoryPartitionSizeBytes);
    }
    snapshotProperties =
        Map.copyOf(Objects.requireNonNull(snapshotProperties, "snapshotProperties is null"));
    fileWriteProperties =
        Map.copyOf(Objects.requireNonNull(fileWriteProperties, "fileWriteProperties is null"));
    if (snapshotProperties.containsKey(Committer.COMMIT_ID_KEY)) {
      throw new IllegalArgumentException(
          "Cannot write: snapshot property " + Committer.COMMIT_ID_KEY + " is set by Floe");
    }
    if (fanoutMaxOpenFiles <= 0) {
      throw new IllegalArgumentException(
          "Cannot write: " + FANOUT_MAX_OPEN_FILES + " must be positive, not " + fanoutMaxOpenFiles);
    }
  }

  /** Whether the fanout writer was asked for ({@code fanout-enabled=true}). */
  public boolean fanoutEnabled() {
    return Boolean.TRUE.equals(fanout);
  }

  /**
   * Resolves the options of one write.
   *
   * @param tableName the table written, named in error messages
   * @throws IllegalArgumentException for an unknown option or a value that does not parse; the
   *     message names the table and the option
   */
  public static WriteOptions resolve(
      String tableName,
      Map<String, String> options,
      SQLConf session,
      Map<String, String> tableProperties) {
    Objects.requireNonNull(tableName, "tableName is null");
    OptionResolver resolver =
        new OptionResolver(
            "Cannot write to " + tableName, options, session, SESSION_PREFIX, tableProperties)
            .withSessionAliases(
                Map.of(
                    DISTRIBUTION_MODE, ICEBERG_SESSION_PREFIX + DISTRIBUTION_MODE,
                    ADVISORY_PARTITION_SIZE, ICEBERG_SESSION_PREFIX + ADVISORY_PARTITION_SIZE));
    resolver.rejectUnknown(KNOWN, Set.of(SNAPSHOT_PROPERTY_PREFIX), "write");
    String commitId = resolver.string(COMMIT_ID, null);
    if (commitId != null && commitId.isBlank()) {
      throw new IllegalArgumentException(
          "Cannot write to " + tableName + ": option '" + COMMIT_ID + "' must not be blank");
    }
    long targetFileSize =
        resolver.longValue(
            TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    if (targetFileSize <= 0) {
      throw new IllegalArgumentException(
          "Cannot write to " + tableName + ": option '" + TARGET_FILE_SIZE_BYTES
              + "' must be positive, not " + targetFileSize);
    }
    String branch = resolver.string(BRANCH, null);
    String wapId = null;
    if (PropertyUtil.propertyAsBoolean(
        tableProperties, TableProperties.WRITE_AUDIT_PUBLISH_ENABLED, false)) {
      // the official runtime's write-audit-publish rules, in its words
      wapId = sessionConf(session, WAP_ID_CONF);
      String wapBranch = sessionConf(session, WAP_BRANCH_CONF);
      if (wapId != null && wapBranch != null) {
        throw new IllegalArgumentException(
            "Cannot write to " + tableName + ": Cannot set both WAP ID and branch, but got ID ["
                + wapId + "] and branch [" + wapBranch + "]");
      }
      if (wapBranch != null) {
        if (branch != null && !branch.equals(wapBranch)) {
          throw new IllegalArgumentException(
              "Cannot write to " + tableName + ": Cannot write to both branch and WAP branch, but got"
                  + " branch [" + branch + "] and WAP branch [" + wapBranch + "]");
        }
        branch = wapBranch;
      }
    }
    String distribution = resolver.string(DISTRIBUTION_MODE, TableProperties.WRITE_DISTRIBUTION_MODE);
    String advisory = resolver.string(ADVISORY_PARTITION_SIZE, ADVISORY_PARTITION_SIZE_PROPERTY);
    String fanout = resolver.string(FANOUT_ENABLED, FANOUT_PROPERTY);
    // the official runtime reads only the write option; Floe's session conf comes after it
    String useTable = resolver.string(USE_TABLE_DISTRIBUTION_AND_ORDERING, null);
    int maxOpenFiles =
        resolver.intValue(
            FANOUT_MAX_OPEN_FILES,
            FANOUT_MAX_OPEN_FILES_PROPERTY,
            DataWriterSettings.DEFAULT_MAX_OPEN_FILES);
    if (maxOpenFiles <= 0) {
      throw new IllegalArgumentException(
          "Cannot write to " + tableName + ": option '" + FANOUT_MAX_OPEN_FILES
              + "' must be positive, not " + maxOpenFiles);
    }
    return new WriteOptions(
        commitId,
        targetFileSize,
        fanout == null
            ? null
            : OptionValues.parseBoolean("Cannot write to " + tableName, FANOUT_ENABLED, fanout),
        branch,
        distribution == null ? null : parseMode(tableName, distribution),
        advisory == null ? 0L : parsePositiveLong(resolver, tableName, advisory),
        resolver.optionalInt(OUTPUT_SPEC_ID, null),
        wapId,
        SnapshotProperties.resolve(tableName, options, session),
        check(resolver, tableName, session, CHECK_NULLABILITY),
        check(resolver, tableName, session, CHECK_ORDERING),
        isolationLevel(tableName, resolver.string(ISOLATION_LEVEL, null)),
        resolver.optionalLong(VALIDATE_FROM_SNAPSHOT_ID, null),
        fileWriteProperties(tableName, resolver, session, tableProperties),
        resolver.given("path") || resolver.given("paths"),
        mergeSchema(resolver, tableName, session),
        maxOpenFiles,
        useTable == null
            || OptionValues.parseBoolean(
                "Cannot write to " + tableName, USE_TABLE_DISTRIBUTION_AND_ORDERING, useTable));
  }

  /**
   * These options for a write to the branch the table's name selects.
   *
   * @throws IllegalArgumentException when the {@code branch} option names another branch
   */
  public WriteOptions onBranch(String tableName, String selected) {
    if (branch != null && !branch.equals(selected)) {
      throw new IllegalArgumentException(
          "Cannot write to " + tableName + ".branch_" + selected + ": option '" + BRANCH
              + "' names another branch, '" + branch + "'");
    }
    return new WriteOptions(
        commitId, targetFileSizeBytes, fanout, selected, distributionMode,
        advisoryPartitionSizeBytes, outputSpecId, wapId, snapshotProperties,
        checkNullability, checkOrdering, isolationLevel, validateFromSnapshotId,
        fileWriteProperties, pathBased, mergeSchema, fanoutMaxOpenFiles,
        useTableDistributionAndOrdering);
  }

  /** These options with another distribution mode (null for the table's default). */
  public WriteOptions withDistributionMode(DistributionMode mode) {
    return new WriteOptions(
        commitId, targetFileSizeBytes, fanout, branch, mode, advisoryPartitionSizeBytes,
        outputSpecId, wapId, snapshotProperties, checkNullability, checkOrdering, isolationLevel,
        validateFromSnapshotId, fileWriteProperties, pathBased, mergeSchema, fanoutMaxOpenFiles,
        useTableDistributionAndOrdering);
  }

  /**
   * The file formats ({@link WriteFileFormats}) and compression options ({@link FileCompression})
   * of the write, as the table properties its files are written with; each option also read from
   * {@code spark.sql.iceberg.<option>} after Floe's.
   */
  private static Map<String, String> fileWriteProperties(
      String tableName,
      OptionResolver resolver,
      SQLConf session,
      Map<String, String> tableProperties) {
    UnaryOperator<String> given =
        option -> {
          String value = resolver.string(option, null);
          return value != null ? value : sessionConf(session, ICEBERG_SESSION_PREFIX + option);
        };
    String action = "Cannot write to " + tableName;
    WriteFileFormats formats = WriteFileFormats.resolve(action, given, tableProperties);
    Map<String, String> properties = new HashMap<>(formats.properties());
    properties.putAll(FileCompression.resolve(action, given, tableProperties, formats.data()));
    properties.putAll(VariantShreddingOptions.resolve(action, given));
    return properties;
  }

  /** {@code merge-schema}, or its other spelling, then the session confs; off by default. */
  private static boolean mergeSchema(OptionResolver resolver, String tableName, SQLConf session) {
    String value = resolver.optionOnly(MERGE_SCHEMA);
    if (value == null) {
      value = resolver.optionOnly(MERGE_SCHEMA_CAMEL);
    }
    if (value == null) {
      value = resolver.string(MERGE_SCHEMA, null);
    }
    if (value == null) {
      value = sessionConf(session, ICEBERG_SESSION_PREFIX + MERGE_SCHEMA);
    }
    return value != null && OptionValues.parseBoolean("Cannot write to " + tableName, MERGE_SCHEMA, value);
  }

  /**
   * A planning check, on unless turned off: the option, then {@code spark.floe.write.<option>},
   * then the official runtime's session conf {@code spark.sql.iceberg.<option>}.
   */
  private static boolean check(
      OptionResolver resolver, String tableName, SQLConf session, String option) {
    String value = resolver.string(option, null);
    if (value == null) {
      value = sessionConf(session, ICEBERG_SESSION_PREFIX + option);
    }
    return value == null
        || OptionValues.parseBoolean("Cannot write to " + tableName, option, value);
  }

  private static IsolationLevel isolationLevel(String tableName, String value) {
    if (value == null) {
      return null;
    }
    for (IsolationLevel level : IsolationLevel.values()) {
      if (level.name().equalsIgnoreCase(value.trim())) {
        return level;
      }
    }
    throw new IllegalArgumentException(
        "Cannot write to " + tableName + ": option '" + ISOLATION_LEVEL
            + "' must be serializable or snapshot, not '" + value + "'");
  }

  private static String sessionConf(SQLConf session, String key) {
    if (session == null) {
      return null;
    }
    String value = session.getConfString(key, null);
    return value == null || value.isBlank() ? null : value;
  }

  private static DistributionMode parseMode(String tableName, String value) {
    for (DistributionMode mode : DistributionMode.values()) {
      if (mode.modeName().equalsIgnoreCase(value.trim())) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "Cannot write to " + tableName + ": option '" + DISTRIBUTION_MODE
            + "' must be none, hash or range, not '" + value + "'");
  }

  private static long parsePositiveLong(OptionResolver resolver, String tableName, String value) {
    long parsed = resolver.parseLong(ADVISORY_PARTITION_SIZE, value);
    if (parsed <= 0) {
      throw new IllegalArgumentException(
          "Cannot write to " + tableName + ": option '" + ADVISORY_PARTITION_SIZE
              + "' must be positive, not '" + value + "'");
    }
    return parsed;
  }
}
