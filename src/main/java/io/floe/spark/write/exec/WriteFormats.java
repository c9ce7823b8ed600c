package io.floe.spark.write.exec;

import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;

/**
 * The file formats a writer task writes, read from the write's own properties (where the driver put
 * the {@code write-format} and {@code delete-format} options, already checked) over the table's:
 * data files in {@code write.format.default} (Parquet by default), position-delete files in {@code
 * write.delete.format.default}, else in the data files' format, as in the official runtime.
 */
final class WriteFormats {
  private WriteFormats() {}

  /** The format of the task's data files. */
  static FileFormat data(Table table, Map<String, String> writeProperties) {
    String value =
        property(table, writeProperties, TableProperties.DEFAULT_FILE_FORMAT);
    return value == null ? FileFormat.PARQUET : parse(table, TableProperties.DEFAULT_FILE_FORMAT, value);
  }

  /** The format of the task's position-delete files. */
  static FileFormat deletes(Table table, Map<String, String> writeProperties) {
    String value = property(table, writeProperties, TableProperties.DELETE_DEFAULT_FILE_FORMAT);
    return value == null
        ? data(table, writeProperties)
        : parse(table, TableProperties.DELETE_DEFAULT_FILE_FORMAT, value);
  }

  private static String property(Table table, Map<String, String> writeProperties, String key) {
    String value = writeProperties.get(key);
    if (value == null) {
      value = table.properties().get(key);
    }
    return value == null || value.isBlank() ? null : value;
  }

  private static FileFormat parse(Table table, String key, String value) {
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "parquet":
        return FileFormat.PARQUET;
      case "orc":
        return FileFormat.ORC;
      case "avro":
        return FileFormat.AVRO;
      default:
        throw new IllegalArgumentException(
            "Cannot write to " + table.name() + ": " + key + " must be parquet, orc or avro, not '"
                + value + "'");
    }
  }
}
