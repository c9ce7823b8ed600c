package io.floe.spark.write;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.TableProperties;

/**
 * The file formats of one write, checked on the driver before any task runs: data files in the
 * {@code write-format} option (or session conf), else the table property {@code
 * write.format.default}, else Parquet; position-delete files in {@code delete-format}, else {@code
 * write.delete.format.default}, else the data files' format, as in the official runtime. Deletion
 * vectors (format v3) are always Puffin. Each value is parquet, orc or avro, in any case.
 *
 * @param data the format of the write's data files
 * @param deletes the format of its position-delete files
 * @param properties the formats the write's options chose, as the table properties that carry them
 *     to the writer tasks over the table's ({@code write.format.default}, {@code
 *     write.delete.format.default}); empty when the options name none
 */
record WriteFileFormats(FileFormat data, FileFormat deletes, Map<String, String> properties) {

  /**
   * @param action what fails on a bad value, such as {@code "Cannot write to db.t"}
   * @param given the value given for an option (write option or session conf), or null
   * @throws IllegalArgumentException naming the option or property and the value that is not
   *     parquet, orc or avro
   */
  static WriteFileFormats resolve(
      String action, UnaryOperator<String> given, Map<String, String> tableProperties) {
    Map<String, String> properties = new HashMap<>();
    FileFormat data =
        format(
            action,
            "option '" + WriteOptions.WRITE_FORMAT + "'",
            given.apply(WriteOptions.WRITE_FORMAT));
    if (data != null) {
      properties.put(TableProperties.DEFAULT_FILE_FORMAT, name(data));
    } else {
      data =
          format(
              action,
              "table property '" + TableProperties.DEFAULT_FILE_FORMAT + "'",
              tableProperties.get(TableProperties.DEFAULT_FILE_FORMAT));
    }
    if (data == null) {
      data = FileFormat.PARQUET;
    }
    FileFormat deletes =
        format(
            action,
            "option '" + WriteOptions.DELETE_FORMAT + "'",
            given.apply(WriteOptions.DELETE_FORMAT));
    if (deletes != null) {
      properties.put(TableProperties.DELETE_DEFAULT_FILE_FORMAT, name(deletes));
    } else {
      deletes =
          format(
              action,
              "table property '" + TableProperties.DELETE_DEFAULT_FILE_FORMAT + "'",
              tableProperties.get(TableProperties.DELETE_DEFAULT_FILE_FORMAT));
    }
    return new WriteFileFormats(data, deletes == null ? data : deletes, Map.copyOf(properties));
  }

  private static String name(FileFormat format) {
    return format.name().toLowerCase(Locale.ROOT);
  }

  private static FileFormat format(String action, String source, String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "parquet":
        return FileFormat.PARQUET;
      case "orc":
        return FileFormat.ORC;
      case "avro":
        return FileFormat.AVRO;
      default:
        throw new IllegalArgumentException(
            action + ": " + source + " must be parquet, orc or avro, not '" + value + "'");
    }
  }
}
