package io.floe.spark.read.exec;

import io.floe.spark.types.IcebergToSpark;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.iceberg.util.StructProjection;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * One file task opened for row reads through Iceberg's generic readers (any file format, and
 * metadata-table data tasks): projects by field id, fills identity-partition and metadata columns
 * from task metadata (the row-lineage columns {@code _row_id} and {@code
 * _last_updated_sequence_number} inherit NULLs as {@link LineageVector} describes), and drops rows
 * removed by position and equality delete files. Residual filters only prune row groups, never by a column whose statistics Iceberg would misread ({@link
 * ParquetStatsGuard}); Spark evaluates every pushed filter again after the scan.
 *
 * <p>Opening reads the file's footer, so it can run ahead on a prefetch thread; rows are produced by
 * the thread that reads them.
 */
final class RowTask implements Closeable {
  private final CloseableIterable<? extends StructLike> iterable;
  private final CloseableIterator<? extends StructLike> rows;
  private final IcebergToSpark converter;
  private final long bytes;

  private RowTask(
      CloseableIterable<? extends StructLike> iterable,
      IcebergToSpark converter,
      long bytes) {
    this.iterable = iterable;
    this.rows = iterable.iterator();
    this.converter = converter;
    this.bytes = bytes;
  }

  static RowTask open(ReadSettings settings, FileScanTask task, IcebergToSpark converter) {
    return open(settings, task, List.of(), converter);
  }

  /**
   * Opens a task keeping, of the rows its delete files leave, only those that {@code onlyDeletedBy}
   * (position deletes, deletion vectors or equality deletes) delete; with none, every row they leave. A changelog
   * reads the rows a snapshot's new deletes removed this way.
   */
  static RowTask open(
      ReadSettings settings,
      FileScanTask task,
      List<DeleteFile> onlyDeletedBy,
      IcebergToSpark converter) {
    CloseableIterable<? extends StructLike> records = records(settings, task, onlyDeletedBy);
    try {
      return new RowTask(records, converter, task.isDataTask() ? 0 : task.length());
    } catch (RuntimeException e) {
      closeQuietly(records, e);
      if (task.isDataTask()) {
        throw e;
      }
      throw settings.openFailure(task.file().location(), e);
    }
  }

  private static void closeQuietly(CloseableIterable<?> iterable, RuntimeException failure) {
    try {
      iterable.close();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  long bytes() {
    return bytes;
  }

  boolean hasNext() {
    return rows.hasNext();
  }

  InternalRow next() {
    return converter.convert(rows.next());
  }

  @Override
  public void close() throws IOException {
    try {
      rows.close();
    } finally {
      iterable.close();
    }
  }

  private static CloseableIterable<? extends StructLike> records(
      ReadSettings settings, FileScanTask task, List<DeleteFile> onlyDeletedBy) {
    if (task.isDataTask()) {
      StructProjection projection =
          StructProjection.create(settings.tableSchema(), settings.readSchema());
      return CloseableIterable.transform(task.asDataTask().rows(), projection::wrap);
    }

    GenericDeleteFilter deletes =
        new GenericDeleteFilter(settings.io(), task, settings.tableSchema(), settings.readSchema());
    Schema fileProjection = deletes.requiredSchema();
    DeletedRowsFilter deletedBy =
        onlyDeletedBy.isEmpty()
            ? null
            : new DeletedRowsFilter(settings, task.file().location(), fileProjection, onlyDeletedBy);
    if (deletedBy != null) {
      fileProjection = deletedBy.projection();
    }
    Types.NestedField partitionField =
        settings.readSchema().findField(MetadataColumns.PARTITION_COLUMN_ID);
    Types.StructType partitionType =
        partitionField == null ? null : partitionField.type().asStructType();
    Map<Integer, Object> constants =
        new HashMap<>(
            PartitionUtil.constantsMap(
                task, partitionType, IdentityPartitionConverters::convertConstant));
    // row lineage: a NULL _last_updated_sequence_number is the data sequence number of the file's
    // manifest entry (the spec's rule); Iceberg's constants map carries the file sequence number,
    // which differs for files a compaction committed with an older data sequence number
    constants.put(
        MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId(), task.file().dataSequenceNumber());
    if (settings.readSchema().findField(FileKeyColumn.FIELD_ID) != null) {
      constants.put(FileKeyColumn.FIELD_ID, FileKeyColumn.of(task.file().location()));
    }
    // a constant for a field inside a struct would make the reader build that struct even in rows
    // where it is NULL; such fields are read from the file, which always holds them
    Set<Integer> nested = TypeUtil.indexParents(settings.tableSchema().asStruct()).keySet();
    constants.keySet().removeIf(nested::contains);
    InputFile input = settings.io().newInputFile(task.file());
    Expression residual = residual(settings, task, input);
    CloseableIterable<Record> read;
    if (task.file().format() == FileFormat.AVRO && AvroLocalTimestamps.needed(fileProjection)) {
      read =
          AvroLocalTimestamps.read(
              input, fileProjection, constants, task.start(), task.length(),
              settings.nameMapping());
    } else {
      Optional<OrcSparkTimestamps> sparkTimestamps =
          task.file().format() == FileFormat.ORC
              ? OrcSparkTimestamps.of(
                  input, settings.tableSchema(), fileProjection, residual,
                  settings.nameMapping(), settings.caseSensitive())
              : Optional.empty();
      ReadBuilder<Record, Schema> builder =
          FormatModelRegistry.<Record, Schema>readBuilder(task.file().format(), Record.class, input)
              .project(sparkTimestamps.map(OrcSparkTimestamps::projection).orElse(fileProjection))
              .idToConstant(constants)
              .split(task.start(), task.length())
              .caseSensitive(settings.caseSensitive())
              // ORC's statistics of Spark's timestamps do not hold the table's values: no pruning
              .filter(sparkTimestamps.isPresent() ? Expressions.alwaysTrue() : residual);
      if (settings.nameMapping() != null) {
        builder = builder.withNameMapping(settings.nameMapping());
      }
      read = builder.build();
      if (sparkTimestamps.isPresent()) {
        read = CloseableIterable.transform(read, sparkTimestamps.get()::fix);
      }
    }
    CloseableIterable<Record> live = deletes.filter(read);
    return deletedBy == null ? live : CloseableIterable.filter(live, deletedBy::isDeleted);
  }

  /**
   * The residual Iceberg's row-group filters may prune this file with. A Parquet file's footer is
   * read for it only when the residual names a timestamp or time column, whose statistics Iceberg
   * misreads when the file stores them in another unit, or a column with an initial default, which
   * Iceberg takes for all NULL in files without it ({@link ParquetStatsGuard}).
   */
  private static Expression residual(ReadSettings settings, FileScanTask task, InputFile input) {
    Expression residual = task.residual();
    if (residual == null
        || task.file().format() != FileFormat.PARQUET
        || !ParquetStatsGuard.namesGuardedColumn(
            residual, settings.tableSchema(), settings.caseSensitive())) {
      return residual;
    }
    MessageType fileSchema;
    try (ParquetFileReader reader = ParquetFileReader.open(ParquetInputs.of(input))) {
      fileSchema = reader.getFooter().getFileMetaData().getSchema();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the footer of " + task.file().location() + ": " + e, e);
    }
    return ParquetStatsGuard.prunable(
        residual,
        settings.tableSchema(),
        ParquetStatsGuard.withIds(fileSchema, settings.nameMapping()),
        settings.caseSensitive());
  }
}
