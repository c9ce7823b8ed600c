package io.floe.spark.rowlevel;

import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.TableProperties;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;

/**
 * The isolation level a DELETE, UPDATE or MERGE is validated under: the write option {@code
 * isolation-level} (or its session conf) when given, else the table property {@code
 * write.delete.isolation-level}, {@code write.update.isolation-level} or {@code
 * write.merge.isolation-level}, else serializable (Iceberg's names and default).
 */
final class RowLevelIsolation {
  private RowLevelIsolation() {}

  /** The table property that sets the command's isolation level. */
  static String propertyOf(Command command) {
    switch (command) {
      case DELETE:
        return TableProperties.DELETE_ISOLATION_LEVEL;
      case UPDATE:
        return TableProperties.UPDATE_ISOLATION_LEVEL;
      case MERGE:
        return TableProperties.MERGE_ISOLATION_LEVEL;
      default:
        throw new IllegalArgumentException("Unknown row-level command: " + command);
    }
  }

  /**
   * @param option the level the write options resolved, or null when none was given
   * @throws IllegalArgumentException naming the property when its value is neither level
   */
  static IsolationLevel resolve(
      String tableName, Command command, IsolationLevel option, Map<String, String> properties) {
    if (option != null) {
      return option;
    }
    String property = propertyOf(command);
    String value = properties.get(property);
    if (value == null) {
      return IsolationLevel.SERIALIZABLE;
    }
    for (IsolationLevel level : IsolationLevel.values()) {
      if (level.name().equalsIgnoreCase(value.trim())) {
        return level;
      }
    }
    throw new IllegalArgumentException(
        "Cannot " + command.name() + " " + tableName + ": table property '" + property
            + "' must be serializable or snapshot, not '" + value + "'");
  }

  /** The level as the options and properties spell it. */
  static String name(IsolationLevel level) {
    return level.name().toLowerCase(Locale.ROOT);
  }
}
