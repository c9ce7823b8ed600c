package io.floe.spark.rowlevel;

import io.floe.spark.util.OptionResolver;
import io.floe.spark.write.WriteOptions;
import java.util.Map;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableProperties;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The distribution mode of a DELETE, UPDATE or MERGE, resolved in the order of an insert's: the
 * write option {@code distribution-mode}, then the session confs {@code
 * spark.floe.write.distribution-mode} and {@code spark.sql.iceberg.distribution-mode}, then the
 * command's table property ({@code write.delete.distribution-mode}, {@code
 * write.update.distribution-mode}, {@code write.merge.distribution-mode}), then the default. The
 * defaults are the official runtime's:
 *
 * <ul>
 *   <li>{@code hash} for every merge-on-read command and for a copy-on-write DELETE or UPDATE;
 *   <li>for a copy-on-write MERGE, which writes its rows as an insert does, {@code hash} when the
 *       table is partitioned, else the insert's mode ({@code write.distribution-mode}, or {@code
 *       range} for a sorted table and {@code none} otherwise).
 * </ul>
 *
 * A copy-on-write MERGE into an unpartitioned table asked for {@code hash}, or for {@code range}
 * without a sort order, has nothing to distribute by and gets {@code none}, as an insert does.
 */
final class RowLevelDistributionMode {
  private RowLevelDistributionMode() {}

  /**
   * The mode of a copy-on-write operation.
   *
   * @param spec the spec its files are written with
   * @param insertMode the insert's mode from {@code write.distribution-mode}, or null
   */
  static DistributionMode copyOnWrite(
      String tableName,
      Command command,
      Map<String, String> options,
      SQLConf session,
      Map<String, String> tableProperties,
      PartitionSpec spec,
      SortOrder sortOrder,
      DistributionMode insertMode) {
    DistributionMode given = given(tableName, command, options, session, tableProperties);
    if (command != Command.MERGE) {
      return given == null ? DistributionMode.HASH : given;
    }
    if (given != null) {
      return nothingToDistributeBy(given, spec, sortOrder) ? DistributionMode.NONE : given;
    }
    if (spec.isPartitioned()) {
      return DistributionMode.HASH;
    }
    if (insertMode != null) {
      return nothingToDistributeBy(insertMode, spec, sortOrder) ? DistributionMode.NONE : insertMode;
    }
    return sortOrder.isSorted() ? DistributionMode.RANGE : DistributionMode.NONE;
  }

  /** The mode of a merge-on-read operation: the one given, else {@code hash}. */
  static DistributionMode mergeOnRead(
      String tableName,
      Command command,
      Map<String, String> options,
      SQLConf session,
      Map<String, String> tableProperties) {
    DistributionMode given = given(tableName, command, options, session, tableProperties);
    return given == null ? DistributionMode.HASH : given;
  }

  /** The command's table property. */
  static String propertyOf(Command command) {
    return switch (command) {
      case DELETE -> TableProperties.DELETE_DISTRIBUTION_MODE;
      case UPDATE -> TableProperties.UPDATE_DISTRIBUTION_MODE;
      case MERGE -> TableProperties.MERGE_DISTRIBUTION_MODE;
    };
  }

  private static boolean nothingToDistributeBy(
      DistributionMode mode, PartitionSpec spec, SortOrder sortOrder) {
    return spec.isUnpartitioned()
        && (mode == DistributionMode.HASH
            || (mode == DistributionMode.RANGE && sortOrder.isUnsorted()));
  }

  /** The mode the option, a session conf or the command's property gives, or null. */
  private static DistributionMode given(
      String tableName,
      Command command,
      Map<String, String> options,
      SQLConf session,
      Map<String, String> tableProperties) {
    String property = propertyOf(command);
    String action = "Cannot " + command.name() + " " + tableName;
    String value =
        new OptionResolver(action, options, session, WriteOptions.SESSION_PREFIX, tableProperties)
            .withSessionAliases(
                Map.of(
                    WriteOptions.DISTRIBUTION_MODE,
                    WriteOptions.ICEBERG_SESSION_PREFIX + WriteOptions.DISTRIBUTION_MODE))
            .string(WriteOptions.DISTRIBUTION_MODE, property);
    if (value == null || value.isBlank()) {
      return null;
    }
    for (DistributionMode mode : DistributionMode.values()) {
      if (mode.modeName().equalsIgnoreCase(value.trim())) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        action + ": option '" + WriteOptions.DISTRIBUTION_MODE + "' or table property '"
            + property + "' must be none, hash or range, not '" + value + "'");
  }
}
