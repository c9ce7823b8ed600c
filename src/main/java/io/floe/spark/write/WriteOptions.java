package io.floe.spark.write;

import io.floe.spark.util.OptionValues;
import java.io.Serializable;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.TableProperties;
import org.apache.spark.sql.internal.SQLConf;

/**
 * A write's settings, resolved once on the driver in one order: the write option, then the session
 * conf {@code spark.floe.write.<option>}, then the table property, then the default.
 *
 * @param commitId a caller-chosen commit id ({@code commit-id}), or null for one chosen per write
 * @param targetFileSizeBytes roll data files at this size ({@code target-file-size-bytes}, {@code
 *     write.target-file-size-bytes})
 * @param fanoutEnabled keep one open file per partition so input may come in any order ({@code
 *     fanout-enabled}, {@code write.spark.fanout.enabled})
 * @param branch the branch to commit to ({@code branch}), or null for main
 * @param distributionMode how rows are spread over writer tasks ({@code distribution-mode}, {@code
 *     write.distribution-mode}: none, hash or range), or null for the table's default (see {@link
 *     WriteDistribution})
 * @param advisoryPartitionSizeBytes the shuffle partition size to ask Spark for when rows are
 *     distributed ({@code advisory-partition-size}, {@code
 *     write.spark.advisory-partition-size-bytes}), or 0 for Spark's own
 *     ({@code spark.sql.adaptive.advisoryPartitionSizeInBytes})
 * @param pathBased whether the write names its table by location ({@code path}, as {@code
 *     format("floe").save(location)} does): Spark then has no function catalog to compute
 *     partition transforms with, so only identity columns can be distributed and ordered by
 */
public record WriteOptions(
    String commitId,
    long targetFileSizeBytes,
    boolean fanoutEnabled,
    String branch,
    DistributionMode distributionMode,
    long advisoryPartitionSizeBytes,
    boolean pathBased)
    implements Serializable {

  public static final String COMMIT_ID = "commit-id";
  public static final String TARGET_FILE_SIZE_BYTES = "target-file-size-bytes";
  public static final String FANOUT_ENABLED = "fanout-enabled";
  public static final String BRANCH = "branch";
  public static final String DISTRIBUTION_MODE = "distribution-mode";
  public static final String ADVISORY_PARTITION_SIZE = "advisory-partition-size";
  /** The prefix of session confs that set a write option for every write. */
  public static final String SESSION_PREFIX = "spark.floe.write.";
  /** The table property that turns the fanout writer on. */
  public static final String FANOUT_PROPERTY = "write.spark.fanout.enabled";
  /** The table property that sets the advisory shuffle partition size for writes. */
  public static final String ADVISORY_PARTITION_SIZE_PROPERTY =
      "write.spark.advisory-partition-size-bytes";

  private static final Set<String> KNOWN =
      Set.of(
          COMMIT_ID,
          TARGET_FILE_SIZE_BYTES,
          FANOUT_ENABLED,
          BRANCH,
          DISTRIBUTION_MODE,
          ADVISORY_PARTITION_SIZE,
          "path",
          "paths");

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
    Objects.requireNonNull(options, "options is null");
    Set<String> unknown = new TreeSet<>();
    options.keySet().forEach(key -> {
      if (!KNOWN.contains(key.toLowerCase(Locale.ROOT))) {
        unknown.add(key);
      }
    });
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "Cannot write to " + tableName + ": unknown write option(s) " + unknown
              + "; known options are " + new TreeSet<>(KNOWN));
    }
    Map<String, String> table = tableProperties == null ? Map.of() : tableProperties;
    String commitId = value(options, session, COMMIT_ID, null);
    if (commitId != null && commitId.isBlank()) {
      throw new IllegalArgumentException(
          "Cannot write to " + tableName + ": option '" + COMMIT_ID + "' must not be blank");
    }
    String size = value(options, session, TARGET_FILE_SIZE_BYTES, table.get(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES));
    long targetFileSize =
        size == null
            ? TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT
            : parseLong(tableName, TARGET_FILE_SIZE_BYTES, size);
    if (targetFileSize <= 0) {
      throw new IllegalArgumentException(
          "Cannot write to " + tableName + ": option '" + TARGET_FILE_SIZE_BYTES
              + "' must be positive, not " + targetFileSize);
    }
    String fanout = value(options, session, FANOUT_ENABLED, table.get(FANOUT_PROPERTY));
    String branch = value(options, session, BRANCH, null);
    String distribution =
        value(options, session, DISTRIBUTION_MODE, table.get(TableProperties.WRITE_DISTRIBUTION_MODE));
    String advisory =
        value(options, session, ADVISORY_PARTITION_SIZE, table.get(ADVISORY_PARTITION_SIZE_PROPERTY));
    return new WriteOptions(
        commitId,
        targetFileSize,
        fanout != null && parseBoolean(tableName, FANOUT_ENABLED, fanout),
        branch,
        distribution == null ? null : parseMode(tableName, distribution),
        advisory == null ? 0L : parsePositiveLong(tableName, ADVISORY_PARTITION_SIZE, advisory),
        options.keySet().stream()
            .anyMatch(key -> key.equalsIgnoreCase("path") || key.equalsIgnoreCase("paths")));
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

  private static long parsePositiveLong(String tableName, String option, String value) {
    long parsed = parseLong(tableName, option, value);
    if (parsed <= 0) {
      throw new IllegalArgumentException(
          "Cannot write to " + tableName + ": option '" + option + "' must be positive, not '"
              + value + "'");
    }
    return parsed;
  }

  private static String value(
      Map<String, String> options, SQLConf session, String option, String fallback) {
    for (Map.Entry<String, String> entry : options.entrySet()) {
      if (entry.getKey().equalsIgnoreCase(option)) {
        return entry.getValue();
      }
    }
    if (session != null) {
      String conf = session.getConfString(SESSION_PREFIX + option, null);
      if (conf != null) {
        return conf;
      }
    }
    return fallback;
  }

  private static long parseLong(String tableName, String option, String value) {
    return OptionValues.parseLong("Cannot write to " + tableName, option, value, "a whole number");
  }

  private static boolean parseBoolean(String tableName, String option, String value) {
    return OptionValues.parseBoolean("Cannot write to " + tableName, option, value);
  }
}
