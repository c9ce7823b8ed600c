package io.floe.spark.rowlevel;

import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.TableProperties;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;

/**
 * How a DELETE, UPDATE or MERGE changes a table, as the table properties {@code
 * write.delete.mode}, {@code write.update.mode} and {@code write.merge.mode} choose it (Iceberg's
 * names and default, copy-on-write).
 */
public enum RowLevelMode {
  /** Rewrites every data file that holds a changed row. */
  COPY_ON_WRITE("copy-on-write"),
  /** Writes delete files (position deletes or deletion vectors) and new rows beside the data. */
  MERGE_ON_READ("merge-on-read");

  private final String propertyValue;

  RowLevelMode(String propertyValue) {
    this.propertyValue = propertyValue;
  }

  /** The value the table property takes. */
  public String propertyValue() {
    return propertyValue;
  }

  /** The table property that chooses the mode of the command. */
  public static String propertyOf(Command command) {
    switch (command) {
      case DELETE:
        return TableProperties.DELETE_MODE;
      case UPDATE:
        return TableProperties.UPDATE_MODE;
      case MERGE:
        return TableProperties.MERGE_MODE;
      default:
        throw new IllegalArgumentException("Unknown row-level command: " + command);
    }
  }

  /**
   * The mode the table's properties choose for the command.
   *
   * @throws IllegalArgumentException naming the property when its value is neither mode
   */
  public static RowLevelMode of(String tableName, Command command, Map<String, String> properties) {
    String property = propertyOf(command);
    String value = properties.get(property);
    if (value == null) {
      return COPY_ON_WRITE;
    }
    for (RowLevelMode mode : values()) {
      if (mode.propertyValue.equals(value.trim().toLowerCase(Locale.ROOT))) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "Cannot " + command.name() + " " + tableName + ": table property '" + property
            + "' must be copy-on-write or merge-on-read, not '" + value + "'");
  }
}
