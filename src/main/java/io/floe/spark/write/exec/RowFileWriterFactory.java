package io.floe.spark.write.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.BufferedFileAppender;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * Opens one task's data files for Spark rows with the table's properties (compression, row group
 * and page sizes, bloom filters) and metrics settings ({@code write.metadata.metrics.*}), as
 * Iceberg's own writer factories do: Parquet files are written by {@link RowParquetWriter} straight
 * from Spark's values; ORC and Avro files by Iceberg's generic writers, over rows turned into
 * records ({@link RecordAppender}). The format is the write's ({@link WriteFormats#data}). With
 * {@code write.parquet.shred-variants} on (this write's property, else the table's), Parquet files
 * shred their top-level variant columns in a layout inferred from each file's first {@code
 * write.parquet.variant-inference-buffer-size} rows.
 *
 * <p>Remembers the location of every file it opened, including one still open or left broken by a
 * failed write, so that an aborted task can delete them all. Serves data files only: merge-on-read
 * deletes are written by {@link PositionDeleteFileWriters} and {@link DeletionVectorWriter}. Not
 * thread-safe; one per writer task.
 */
final class RowFileWriterFactory implements FileWriterFactory<InternalRow> {
  private final Table table;
  private final Schema schema;
  private final Map<String, String> writeProperties;
  private final MetricsConfig metricsConfig;
  private final FileFormat format;
  private final boolean shredVariants;
  private final int variantBufferSize;
  private final List<String> opened = new ArrayList<>();

  /**
   * @param table the read-only table copy whose properties and metrics settings apply
   * @param schema the schema rows are written with
   * @param writeProperties properties that replace the table's for these files only
   */
  RowFileWriterFactory(Table table, Schema schema, Map<String, String> writeProperties) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.schema = Objects.requireNonNull(schema, "schema is null");
    this.writeProperties = Objects.requireNonNull(writeProperties, "writeProperties is null");
    this.metricsConfig = MetricsConfig.forTable(table);
    this.format = WriteFormats.data(table, writeProperties);
    this.shredVariants =
        VariantShreddingInference.hasTopLevelVariant(schema)
            && PropertyUtil.propertyAsBoolean(
                effective(TableProperties.PARQUET_SHRED_VARIANTS),
                TableProperties.PARQUET_SHRED_VARIANTS,
                TableProperties.PARQUET_SHRED_VARIANTS_DEFAULT);
    this.variantBufferSize =
        PropertyUtil.propertyAsInt(
            effective(TableProperties.PARQUET_VARIANT_BUFFER_SIZE),
            TableProperties.PARQUET_VARIANT_BUFFER_SIZE,
            TableProperties.PARQUET_VARIANT_BUFFER_SIZE_DEFAULT);
    if (shredVariants && variantBufferSize <= 0) {
      throw new IllegalArgumentException(
          "Cannot write to " + table.name() + ": " + TableProperties.PARQUET_VARIANT_BUFFER_SIZE
              + " must be positive, not " + variantBufferSize);
    }
  }

  /** The one property {@code key} as this write sees it: its own value, else the table's. */
  private Map<String, String> effective(String key) {
    String value = writeProperties.containsKey(key) ? writeProperties.get(key) : table.properties().get(key);
    return value == null ? Map.of() : Map.of(key, value);
  }

  /** The format of the data files this factory opens. */
  FileFormat format() {
    return format;
  }

  /** The locations of every file this factory opened, in order. */
  List<String> openedLocations() {
    return List.copyOf(opened);
  }

  @Override
  public DataWriter<InternalRow> newDataWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    opened.add(file.encryptingOutputFile().location());
    try {
      if (format != FileFormat.PARQUET) {
        return generic(file, spec, partition);
      }
      if (shredVariants) {
        return shredded(file, spec, partition);
      }
      return Parquet.writeData(file)
          .schema(schema)
          .setAll(table.properties())
          .setAll(writeProperties)
          .metricsConfig(metricsConfig)
          .withSpec(spec)
          .withPartition(partition)
          .withKeyMetadata(file.keyMetadata())
          .createWriterFunc(type -> RowParquetWriter.create(schema, type))
          .overwrite()
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot open data file " + file.encryptingOutputFile().location() + " of " + table.name(),
          e);
    }
  }

  /**
   * A Parquet data file whose top-level variant columns are shredded in the layout {@link
   * VariantShreddingInference} infers from the file's first rows: those rows are kept (copied) until
   * there are enough of them, or the file is closed, and the file is opened only then, as the
   * official runtime does.
   */
  private DataWriter<InternalRow> shredded(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    FileAppender<InternalRow> appender =
        new BufferedFileAppender<>(
            variantBufferSize,
            rows -> {
              Map<Integer, org.apache.parquet.schema.Type> layouts =
                  VariantShreddingInference.infer(rows, schema);
              try {
                return Parquet.write(file)
                    .schema(schema)
                    .setAll(table.properties())
                    .setAll(writeProperties)
                    .metricsConfig(metricsConfig)
                    .createWriterFunc(type -> RowParquetWriter.create(schema, type))
                    .variantShreddingFunc((fieldId, name) -> layouts.get(fieldId))
                    .overwrite()
                    .build();
              } catch (IOException e) {
                throw new UncheckedIOException(
                    "Cannot open data file " + file.encryptingOutputFile().location() + " of "
                        + table.name(),
                    e);
              }
            },
            InternalRow::copy);
    return new DataWriter<>(
        appender,
        FileFormat.PARQUET,
        file.encryptingOutputFile().location(),
        spec,
        partition,
        file.keyMetadata());
  }

  private DataWriter<InternalRow> generic(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) throws IOException {
    // built first: it refuses what the format cannot hold before a file is opened
    RowToRecord converter = new RowToRecord(schema, format == FileFormat.ORC);
    DataWriter<Record> records =
        FormatModelRegistry.<Record, Schema>dataWriteBuilder(format, Record.class, file)
            .schema(schema)
            .setAll(table.properties())
            .setAll(writeProperties)
            .metricsConfig(metricsConfig)
            .spec(spec)
            .partition(partition)
            .keyMetadata(file.keyMetadata())
            .overwrite()
            .build();
    return new DataWriter<>(
        new RecordAppender(records, converter),
        format,
        file.encryptingOutputFile().location(),
        spec,
        partition,
        file.keyMetadata());
  }

  @Override
  public EqualityDeleteWriter<InternalRow> newEqualityDeleteWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    throw new UnsupportedOperationException(
        "Cannot write equality deletes to " + table.name() + ": Floe writes data files only");
  }

  @Override
  public PositionDeleteWriter<InternalRow> newPositionDeleteWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    throw new UnsupportedOperationException(
        "Cannot write position deletes to " + table.name() + ": Floe writes data files only");
  }
}
