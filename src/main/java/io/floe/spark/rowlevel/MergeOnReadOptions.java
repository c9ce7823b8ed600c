package io.floe.spark.rowlevel;

import io.floe.spark.util.OptionResolver;
import io.floe.spark.write.WriteOptions;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.deletes.DeleteGranularity;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The settings of a merge-on-read DELETE, UPDATE or MERGE that an append does not have, resolved
 * once on the driver in the order of every Floe write: the write option, then the session conf
 * {@code spark.floe.write.<option>}, then the table property of the command, then the default
 * (the official runtime's names and defaults).
 *
 * @param isolationLevel {@code isolation-level}, {@code write.<command>.isolation-level}:
 *     serializable (the default) or snapshot
 * @param granularity {@code delete-granularity}, {@code write.delete.granularity}: {@code file}
 *     (the default) writes one position-delete file per data file, {@code partition} one per
 *     partition; format v3 tables always write one deletion vector per data file
 * @param distributionMode {@code distribution-mode} (and its session confs, {@code
 *     spark.sql.iceberg.distribution-mode} among them), {@code write.<command>.distribution-mode}:
 *     hash (the default), range or none ({@link RowLevelDistributionMode})
 * @param targetDeleteFileSizeBytes {@code target-delete-file-size-bytes}, {@code
 *     write.delete.target-file-size-bytes} (default 64 MB): where a position-delete file rolls to
 *     the next one
 * @param writeOptions the options left for {@link WriteOptions} to resolve (all but {@code
 *     delete-granularity} and {@code target-delete-file-size-bytes})
 */
public record MergeOnReadOptions(
    IsolationLevel isolationLevel,
    DeleteGranularity granularity,
    DistributionMode distributionMode,
    long targetDeleteFileSizeBytes,
    Map<String, String> writeOptions) {

  /** The write option (and {@code spark.floe.write.} session conf) of the delete granularity. */
  public static final String DELETE_GRANULARITY = "delete-granularity";
  /** The write option (and session conf) of the position-delete file size; the official name. */
  public static final String TARGET_DELETE_FILE_SIZE_BYTES = "target-delete-file-size-bytes";

  public MergeOnReadOptions {
    Objects.requireNonNull(isolationLevel, "isolationLevel is null");
    Objects.requireNonNull(granularity, "granularity is null");
    Objects.requireNonNull(distributionMode, "distributionMode is null");
    writeOptions = Map.copyOf(Objects.requireNonNull(writeOptions, "writeOptions is null"));
    if (targetDeleteFileSizeBytes <= 0) {
      throw new IllegalArgumentException(
          "Cannot write deletes: option '" + TARGET_DELETE_FILE_SIZE_BYTES + "' must be positive, not "
              + targetDeleteFileSizeBytes);
    }
  }

  /**
   * Resolves the settings of one operation.
   *
   * @throws IllegalArgumentException for a value that does not parse, naming the table, the option
   *     or property and the values allowed
   */
  public static MergeOnReadOptions resolve(
      String tableName,
      Command command,
      Map<String, String> options,
      SQLConf session,
      Map<String, String> tableProperties) {
    String action = "Cannot " + command.name() + " " + tableName;
    OptionResolver resolver =
        new OptionResolver(action, options, session, WriteOptions.SESSION_PREFIX, tableProperties);
    String isolationProperty = isolationProperty(command);
    String isolation = resolver.string(WriteOptions.ISOLATION_LEVEL, isolationProperty);
    String granularity = resolver.string(DELETE_GRANULARITY, TableProperties.DELETE_GRANULARITY);
    long targetDeleteFileSize =
        resolver.longValue(
            TARGET_DELETE_FILE_SIZE_BYTES,
            TableProperties.DELETE_TARGET_FILE_SIZE_BYTES,
            TableProperties.DELETE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    if (targetDeleteFileSize <= 0) {
      throw new IllegalArgumentException(
          action + ": option '" + TARGET_DELETE_FILE_SIZE_BYTES + "' or table property '"
              + TableProperties.DELETE_TARGET_FILE_SIZE_BYTES + "' must be positive, not "
              + targetDeleteFileSize);
    }

    Map<String, String> rest = new HashMap<>();
    options.forEach(
        (key, value) -> {
          if (!key.equalsIgnoreCase(DELETE_GRANULARITY)
              && !key.equalsIgnoreCase(TARGET_DELETE_FILE_SIZE_BYTES)) {
            rest.put(key, value);
          }
        });
    return new MergeOnReadOptions(
        isolation == null
            ? IsolationLevel.SERIALIZABLE
            : parseIsolation(action, WriteOptions.ISOLATION_LEVEL, isolationProperty, isolation),
        granularity == null ? DeleteGranularity.FILE : parseGranularity(action, granularity),
        RowLevelDistributionMode.mergeOnRead(tableName, command, options, session, tableProperties),
        targetDeleteFileSize,
        rest);
  }

  static String isolationProperty(Command command) {
    return switch (command) {
      case DELETE -> TableProperties.DELETE_ISOLATION_LEVEL;
      case UPDATE -> TableProperties.UPDATE_ISOLATION_LEVEL;
      case MERGE -> TableProperties.MERGE_ISOLATION_LEVEL;
    };
  }

  private static IsolationLevel parseIsolation(
      String action, String option, String property, String value) {
    String normalized = value.trim().toLowerCase(Locale.ROOT);
    for (IsolationLevel level : IsolationLevel.values()) {
      if (level.name().toLowerCase(Locale.ROOT).equals(normalized)) {
        return level;
      }
    }
    throw new IllegalArgumentException(
        action + ": option '" + option + "' or table property '" + property
            + "' must be serializable or snapshot, not '" + value + "'");
  }

  private static DeleteGranularity parseGranularity(String action, String value) {
    String normalized = value.trim().toLowerCase(Locale.ROOT);
    for (DeleteGranularity granularity : DeleteGranularity.values()) {
      if (granularity.toString().equals(normalized)) {
        return granularity;
      }
    }
    throw new IllegalArgumentException(
        action + ": option '" + DELETE_GRANULARITY + "' or table property '"
            + TableProperties.DELETE_GRANULARITY + "' must be file or partition, not '" + value + "'");
  }
}
