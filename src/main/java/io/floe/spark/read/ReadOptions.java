package io.floe.spark.read;

import java.io.Serializable;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.TableProperties;
import org.apache.spark.sql.internal.SQLConf;

/**
 * A scan's settings, resolved once on the driver in one order: the read option, then the session
 * conf {@code spark.floe.read.<option>}, then the table property, then the default.
 *
 * @param splitSize target bytes per task group ({@code split-size}, {@code read.split.target-size})
 * @param lookback bins considered when packing ({@code lookback}, {@code read.split.planning-lookback})
 * @param openFileCost bytes charged per file when packing ({@code file-open-cost}, {@code
 *     read.split.open-file-cost})
 * @param caseSensitive whether column names resolve case-sensitively ({@code spark.sql.caseSensitive})
 * @param snapshotId the snapshot to read ({@code snapshot-id}), or null
 * @param asOfTimestamp read the snapshot current at this time in millis ({@code as-of-timestamp}), or
 *     null
 * @param branch the branch to read ({@code branch}), or null
 * @param tag the tag to read ({@code tag}), or null
 */
public record ReadOptions(
    long splitSize,
    int lookback,
    long openFileCost,
    boolean caseSensitive,
    Long snapshotId,
    Long asOfTimestamp,
    String branch,
    String tag)
    implements Serializable {

  public static final String SPLIT_SIZE = "split-size";
  public static final String LOOKBACK = "lookback";
  public static final String FILE_OPEN_COST = "file-open-cost";
  public static final String SNAPSHOT_ID = "snapshot-id";
  public static final String AS_OF_TIMESTAMP = "as-of-timestamp";
  public static final String BRANCH = "branch";
  public static final String TAG = "tag";
  /** The prefix of session confs that set a read option for every scan. */
  public static final String SESSION_PREFIX = "spark.floe.read.";

  private static final Set<String> KNOWN =
      Set.of(
          SPLIT_SIZE, LOOKBACK, FILE_OPEN_COST, SNAPSHOT_ID, AS_OF_TIMESTAMP, BRANCH, TAG, "path",
          "paths",
          // Spark's own time travel options (spark.sql.timeTravelVersionKey and TimestampKey),
          // which Spark resolves when it loads the table and then passes on to the scan
          "versionasof",
          "timestampasof");

  public ReadOptions {
    if (splitSize <= 0 || lookback <= 0 || openFileCost < 0) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot read: split-size (%d) and lookback (%d) must be positive and file-open-cost (%d)"
                  + " not negative",
              splitSize, lookback, openFileCost));
    }
    int travel =
        (snapshotId != null ? 1 : 0)
            + (asOfTimestamp != null ? 1 : 0)
            + (branch != null ? 1 : 0)
            + (tag != null ? 1 : 0);
    if (travel > 1) {
      throw new IllegalArgumentException(
          "Cannot read: set at most one of snapshot-id, as-of-timestamp, branch and tag");
    }
  }

  /**
   * Resolves the options of one scan.
   *
   * @throws IllegalArgumentException for an unknown option or a value that does not parse
   */
  public static ReadOptions resolve(
      Map<String, String> options, SQLConf session, Map<String, String> tableProperties) {
    Objects.requireNonNull(options, "options is null");
    Set<String> unknown = new TreeSet<>();
    options.keySet().forEach(key -> {
      if (!KNOWN.contains(key.toLowerCase(Locale.ROOT))) {
        unknown.add(key);
      }
    });
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "Cannot read: unknown read option(s) " + unknown + "; known options are " + new TreeSet<>(KNOWN));
    }
    Resolver resolver = new Resolver(options, session, tableProperties);
    return new ReadOptions(
        resolver.longValue(SPLIT_SIZE, TableProperties.SPLIT_SIZE, TableProperties.SPLIT_SIZE_DEFAULT),
        (int)
            resolver.longValue(
                LOOKBACK, TableProperties.SPLIT_LOOKBACK, TableProperties.SPLIT_LOOKBACK_DEFAULT),
        resolver.longValue(
            FILE_OPEN_COST,
            TableProperties.SPLIT_OPEN_FILE_COST,
            TableProperties.SPLIT_OPEN_FILE_COST_DEFAULT),
        session == null || session.caseSensitiveAnalysis(),
        resolver.optionalLong(SNAPSHOT_ID),
        resolver.optionalLong(AS_OF_TIMESTAMP),
        resolver.optional(BRANCH),
        resolver.optional(TAG));
  }

  private static final class Resolver {
    private final Map<String, String> options;
    private final SQLConf session;
    private final Map<String, String> tableProperties;

    Resolver(Map<String, String> options, SQLConf session, Map<String, String> tableProperties) {
      this.options = options;
      this.session = session;
      this.tableProperties = tableProperties == null ? Map.of() : tableProperties;
    }

    String optional(String option) {
      for (Map.Entry<String, String> entry : options.entrySet()) {
        if (entry.getKey().equalsIgnoreCase(option)) {
          return entry.getValue();
        }
      }
      return null;
    }

    Long optionalLong(String option) {
      String value = optional(option);
      return value == null ? null : parse(option, value);
    }

    long longValue(String option, String tableProperty, long defaultValue) {
      String value = optional(option);
      if (value == null && session != null) {
        value = session.getConfString(SESSION_PREFIX + option, null);
      }
      if (value == null) {
        value = tableProperties.get(tableProperty);
      }
      return value == null ? defaultValue : parse(option, value);
    }

    private static long parse(String option, String value) {
      try {
        return Long.parseLong(value.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "Cannot read: option '" + option + "' must be a whole number, not '" + value + "'", e);
      }
    }
  }
}
