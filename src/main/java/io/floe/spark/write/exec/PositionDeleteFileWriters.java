package io.floe.spark.write.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * Opens one task's position-delete files (format v2): {@code file_path} and {@code pos} only,
 * never the deleted row, with the table's properties and Iceberg's metrics settings for position
 * deletes. Parquet by default; ORC or Avro, through Iceberg's generic writers, when the write's
 * delete format says so ({@link WriteFormats#deletes}). Serves position deletes only.
 *
 * <p>Adds the location of every file it opens to the list it was given, before the file is
 * written, so that an aborted task can delete a file that never closed. Not thread-safe; one per
 * writer task.
 */
final class PositionDeleteFileWriters implements FileWriterFactory<InternalRow> {
  private final Table table;
  private final Map<String, String> writeProperties;
  private final MetricsConfig metricsConfig;
  private final FileFormat format;
  private final List<String> opened;

  /**
   * @param table the read-only table copy whose properties apply
   * @param writeProperties properties that replace the table's for these files only
   * @param opened where the location of each opened file is added
   */
  PositionDeleteFileWriters(Table table, Map<String, String> writeProperties, List<String> opened) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.writeProperties = Objects.requireNonNull(writeProperties, "writeProperties is null");
    this.metricsConfig = MetricsConfig.forPositionDelete(table);
    this.opened = Objects.requireNonNull(opened, "opened is null");
    this.format = WriteFormats.deletes(table, writeProperties);
  }

  /** The format of the delete files this factory opens. */
  FileFormat format() {
    return format;
  }

  @Override
  public PositionDeleteWriter<InternalRow> newPositionDeleteWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    String location = file.encryptingOutputFile().location();
    opened.add(location);
    try {
      if (format != FileFormat.PARQUET) {
        // rows are never written, so the writer's row type does not matter
        return FormatModelRegistry.<InternalRow>positionDeleteWriteBuilder(format, file)
            .setAll(table.properties())
            .setAll(writeProperties)
            .metricsConfig(metricsConfig)
            .spec(spec)
            .partition(partition)
            .keyMetadata(file.keyMetadata())
            .overwrite()
            .build();
      }
      return Parquet.writeDeletes(file)
          .setAll(table.properties())
          .setAll(writeProperties)
          .metricsConfig(metricsConfig)
          .withSpec(spec)
          .withPartition(partition)
          .withKeyMetadata(file.keyMetadata())
          .overwrite()
          .buildPositionWriter();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot open position-delete file " + location + " of " + table.name(), e);
    }
  }

  @Override
  public DataWriter<InternalRow> newDataWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    throw new UnsupportedOperationException(
        "Cannot write data files to " + table.name() + " here: this factory writes position deletes");
  }

  @Override
  public EqualityDeleteWriter<InternalRow> newEqualityDeleteWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    throw new UnsupportedOperationException(
        "Cannot write equality deletes to " + table.name() + ": Floe writes position deletes");
  }
}
