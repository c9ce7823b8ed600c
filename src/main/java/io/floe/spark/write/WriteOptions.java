package io.floe.spark.write;

import java.io.Serializable;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
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
 */
public record WriteOptions(
    String commitId, long targetFileSizeBytes, boolean fanoutEnabled, String branch)
    implements Serializable {

  public static final String COMMIT_ID = "commit-id";
  public static final String TARGET_FILE_SIZE_BYTES = "target-file-size-bytes";
  public static final String FANOUT_ENABLED = "fanout-enabled";
  public static final String BRANCH = "branch";
  /** The prefix of session confs that set a write option for every write. */
  public static final String SESSION_PREFIX = "spark.floe.write.";
  /** The table property that turns the fanout writer on. */
  public static final String FANOUT_PROPERTY = "write.spark.fanout.enabled";

  private static final Set<String> KNOWN =
      Set.of(COMMIT_ID, TARGET_FILE_SIZE_BYTES, FANOUT_ENABLED, BRANCH, "path", "paths");

  public WriteOptions {
    if (commitId != null && commitId.isBlank()) {
      throw new IllegalArgumentException("Cannot write: option commit-id must not be blank");
    }
    if (targetFileSizeBytes <= 0) {
      throw new IllegalArgumentException(
          "Cannot write: target-file-size-bytes must be positive, not " + targetFileSizeBytes);
    }
  }

  /**
   * Resolves the options of one write.
   *
   * @throws IllegalArgumentException for an unknown option or a value that does not parse
   */
  public static WriteOptions resolve(
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
          "Cannot write: unknown write option(s) " + unknown + "; known options are " + new TreeSet<>(KNOWN));
    }
    Map<String, String> table = tableProperties == null ? Map.of() : tableProperties;
    String commitId = value(options, session, COMMIT_ID, null);
    String size = value(options, session, TARGET_FILE_SIZE_BYTES, table.get(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES));
    String fanout = value(options, session, FANOUT_ENABLED, table.get(FANOUT_PROPERTY));
    String branch = value(options, session, BRANCH, null);
    return new WriteOptions(
        commitId,
        size == null ? TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT : parseLong(TARGET_FILE_SIZE_BYTES, size),
        fanout != null && parseBoolean(FANOUT_ENABLED, fanout),
        branch);
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

  private static long parseLong(String option, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Cannot write: option '" + option + "' must be a whole number, not '" + value + "'", e);
    }
  }

  private static boolean parseBoolean(String option, String value) {
    String normalized = value.trim().toLowerCase(Locale.ROOT);
    if (!normalized.equals("true") && !normalized.equals("false")) {
      throw new IllegalArgumentException(
          "Cannot write: option '" + option + "' must be true or false, not '" + value + "'");
    }
    return Boolean.parseBoolean(normalized);
  }
}
