package io.floe.spark.read.exec;

import io.floe.spark.parquet.BatchDecoder;
import io.floe.spark.parquet.FlatParquetReader;
import io.floe.spark.parquet.ReadBuffers;
import io.floe.spark.parquet.SparkBatchDecoder;
import io.floe.spark.types.IcebergToSpark;
import io.floe.spark.types.SparkSchemas;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetInputFormat;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport;
import org.apache.spark.sql.execution.datasources.parquet.ParquetUtils;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads one Parquet file task (a file, or a split of it) as Spark {@link ColumnarBatch}es, decoded
 * by Floe's {@link FlatParquetReader} when every requested column is flat and stored in a way it
 * decodes, else by Spark's own vectorized Parquet reader.
 *
 * <p>Columns are matched by Iceberg field id: the footer handed to Spark carries the file's ids, or
 * ids from the table's name mapping, or Iceberg's positional fallback ids for files written without
 * any. A column the file does not have reads as its initial default (a column added with a
 * DEFAULT), else NULL; a column whose type was widened (int to long,
 * float to double, decimal precision) is widened while decoding. Identity-partition columns and the
 * metadata columns {@code _file}, {@code _spec_id} and {@code _partition} are constant vectors;
 * {@code _pos} is Parquet's row index; the row-lineage columns {@code _row_id} and {@code
 * _last_updated_sequence_number} of v3 tables are the file's stored values with NULLs inherited
 * ({@link LineageVector}). Row groups are those whose midpoint falls in the split, as for
 * Iceberg's own readers, minus those the task's residual filter rules out by column statistics (the
 * residual itself is left to Spark). Rows removed by position deletes, deletion vectors and equality
 * deletes are dropped from each batch.
 *
 * <p>{@link #open} does all the I/O that precedes decoding (stream, footer, delete files), so that it
 * can run ahead on a prefetch thread. The batches returned are valid until the next call to {@link
 * #next()} or {@link #close()}.
 */
final class ParquetFileBatches implements TaskBatches {
  private final BatchDecoder reader;
  private final ColumnVector[] constants;
  private final int[] sparkColumn;
  private final int outputColumns;
  private final int posColumn;
  private final int[] lineage;
  private final int rowIndexColumn;
  private final Long firstRowId;
  private final Long sequenceNumber;
  private final PositionDeleteIndex positionDeletes;
  private final Predicate<BatchRow> liveByEquality;
  private final BatchRow row;
  private final int rowGroups;
  private final long bytes;
  private ColumnarBatch decoded;
  private ColumnVector[] full;
  private int[] live;

  private ParquetFileBatches(
      BatchDecoder reader,
      ColumnVector[] constants,
      int[] sparkColumn,
      int outputColumns,
      int posColumn,
      int[] lineage,
      int rowIndexColumn,
      FileScanTask task,
      PositionDeleteIndex positionDeletes,
      Predicate<BatchRow> liveByEquality,
      BatchRow row,
      int rowGroups,
      long bytes) {
    this.reader = reader;
    this.constants = constants;
    this.sparkColumn = sparkColumn;
    this.outputColumns = outputColumns;
    this.posColumn = posColumn;
    this.lineage = lineage;
    this.rowIndexColumn = rowIndexColumn;
    this.firstRowId = task.file().firstRowId();
    // a file without a first row id inherits neither lineage value (see LineageVector)
    this.sequenceNumber = firstRowId == null ? null : task.file().dataSequenceNumber();
    this.positionDeletes = positionDeletes;
    this.liveByEquality = liveByEquality;
    this.row = row;
    this.rowGroups = rowGroups;
    this.bytes = bytes;
  }

  /** Row groups of this split that are read (after statistics pruning). */
  @Override
  public int rowGroups() {
    return rowGroups;
  }

  /** Bytes of the split. */
  @Override
  public long bytes() {
    return bytes;
  }

  /**
   * Opens a task: its stream, footer, row-group selection and delete files.
   *
   * @throws UncheckedIOException if the file or a delete file cannot be read
   * @throws IllegalStateException naming the file, when opening it fails otherwise
   */
  static ParquetFileBatches open(
      ReadSettings settings,
      FileScanTask task,
      Configuration baseConf,
      NameMapping mapping,
      ReadBuffers buffers) {
    try {
      return doOpen(settings, task, baseConf, mapping, buffers);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read " + task.file().location() + " of " + settings.tableName() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(
          new IOException("Cannot read " + task.file().location() + ": interrupted", e));
    } catch (RuntimeException e) {
      throw settings.openFailure(task.file().location(), e);
    }
  }

  private static ParquetFileBatches doOpen(
      ReadSettings settings,
      FileScanTask task,
      Configuration baseConf,
      NameMapping mapping,
      ReadBuffers buffers)
      throws IOException, InterruptedException {
    Schema readSchema = settings.readSchema();
    BatchDeleteFilter deletes =
        task.deletes().isEmpty()
            ? null
            : new BatchDeleteFilter(settings, task, readSchema);
    Schema required = deletes == null ? readSchema : deletes.requiredSchema();
    List<Types.NestedField> columns = required.columns();

    PositionDeleteIndex positionDeletes =
        deletes != null && deletes.hasPosDeletes() ? deletes.deletedRowPositions() : null;
    Predicate<BatchRow> liveByEquality =
        deletes != null && deletes.hasEqDeletes() ? deletes.eqDeletedRowFilter() : null;

    InputFile input = settings.io().newInputFile(task.file());
    org.apache.parquet.io.InputFile parquetFile = ParquetInputs.of(input);
    long length = input.getLength();
    SeekableInputStream stream = parquetFile.newStream();
    ColumnVector[] constantVectors = new ColumnVector[columns.size()];
    try {
      ParquetMetadata footer =
          ParquetFooters.read(settings, task, parquetFile, stream, mapping, baseConf);
      Map<Integer, Object> constantValues = constants(task, readSchema, required, footer);
      InternalRow constantRow = constantRow(required, constantValues);

      // the Spark read schema: file columns by field id, then the row index when positions are
      // needed (for _pos, position deletes and inherited row ids)
      List<StructField> sparkFields = new ArrayList<>();
      int[] sparkColumn = new int[columns.size()];
      int[] lineage = new int[columns.size()];
      int posColumn = -1;
      boolean needsRowIndex = false;
      for (int i = 0; i < columns.size(); i++) {
        Types.NestedField field = columns.get(i);
        sparkColumn[i] = -1;
        if (field.fieldId() == MetadataColumns.ROW_POSITION.fieldId()) {
          posColumn = i;
          needsRowIndex = true;
        } else if (isLineage(field.fieldId())) {
          // the values the file stores (rows a rewrite carried over); NULL ones are inherited
          lineage[i] = field.fieldId();
          needsRowIndex |= field.fieldId() == MetadataColumns.ROW_ID.fieldId();
          sparkColumn[i] = sparkFields.size();
          sparkFields.add(byFieldId(field));
        } else if (constantValues.containsKey(field.fieldId())) {
          constantVectors[i] =
              ConstantVectors.create(
                  settings.batchSize(), SparkSchemas.toSpark(field.type()), constantRow, i);
        } else {
          sparkColumn[i] = sparkFields.size();
          sparkFields.add(byFieldId(field));
        }
      }
      int rowIndexColumn = -1;
      if (needsRowIndex) {
        rowIndexColumn = sparkFields.size();
        if (posColumn >= 0) {
          sparkColumn[posColumn] = rowIndexColumn;
        }
        sparkFields.add(
            new StructField(
                ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME(),
                DataTypes.LongType,
                true,
                Metadata.empty()));
      }
      StructType sparkSchema = new StructType(sparkFields.toArray(new StructField[0]));

      List<BlockMetaData> blocks = footer.getBlocks();
      Configuration conf = new Configuration(baseConf);
      conf.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA(), sparkSchema.json());
      conf.setBoolean(SQLConf.CASE_SENSITIVE().key(), settings.caseSensitive());
      conf.set(ParquetInputFormat.READ_SUPPORT_CLASS, ParquetReadSupport.class.getName());
      conf.setBoolean(SQLConf.PARQUET_FIELD_ID_READ_ENABLED().key(), true);
      conf.setBoolean(SQLConf.IGNORE_MISSING_PARQUET_FIELD_ID().key(), true);
      conf.setBoolean(SQLConf.PARQUET_BINARY_AS_STRING().key(), false);
      conf.setBoolean(SQLConf.PARQUET_INT96_AS_TIMESTAMP().key(), true);
      conf.setBoolean(SQLConf.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED().key(), true);
      conf.setBoolean(SQLConf.LEGACY_PARQUET_NANOS_AS_LONG().key(), false);
      conf.setBoolean(SQLConf.NESTED_SCHEMA_PRUNING_ENABLED().key(), true);
      Path path = new Path(task.file().location());
      BatchDecoder reader =
          FlatParquetReader.openIfFlat(
              parquetFile, stream, footer, sparkSchema, settings.batchSize(), conf, path, buffers);
      if (reader == null) {
        reader = SparkBatchDecoder.open(path, length, conf, stream, footer, settings.batchSize());
      }
      BatchRow row = new BatchRow(required);
      return new ParquetFileBatches(
          reader,
          constantVectors,
          sparkColumn,
          readSchema.columns().size(),
          posColumn,
          lineage,
          rowIndexColumn,
          task,
          positionDeletes,
          liveByEquality,
          row,
          blocks.size(),
          task.length());
    } catch (IOException | RuntimeException | InterruptedException e) {
      stream.close();
      closeAll(constantVectors);
      throw e;
    }
  }

  private static boolean isLineage(int fieldId) {
    return fieldId == MetadataColumns.ROW_ID.fieldId()
        || fieldId == MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId();
  }

  /** A column of the Spark read schema that the decoder matches to the file's column by field id. */
  private static StructField byFieldId(Types.NestedField field) {
    Metadata id =
        new MetadataBuilder().putLong(ParquetUtils.FIELD_ID_METADATA_KEY(), field.fieldId()).build();
    return new StructField(field.name(), SparkSchemas.toSpark(field.type()), true, id);
  }

  /**
   * Values of identity-partition and metadata columns of the read schema, by field id, and the
   * initial defaults of columns the file does not have (added with a DEFAULT after it was written),
   * delete-filter columns included.
   */
  private static Map<Integer, Object> constants(
      FileScanTask task, Schema readSchema, Schema required, ParquetMetadata footer) {
    Map<Integer, Object> constants = ConstantVectors.readSchemaConstants(task, readSchema);
    Set<Integer> inFile = new HashSet<>();
    for (org.apache.parquet.schema.Type column : footer.getFileMetaData().getSchema().getFields()) {
      if (column.getId() != null) {
        inFile.add(column.getId().intValue());
      }
    }
    for (Types.NestedField field : required.columns()) {
      if (field.initialDefault() != null
          && !inFile.contains(field.fieldId())
          && !constants.containsKey(field.fieldId())) {
        constants.put(field.fieldId(), field.initialDefault());
      }
    }
    return constants;
  }

  private static InternalRow constantRow(Schema required, Map<Integer, Object> constants) {
    GenericRecord record = GenericRecord.create(required.asStruct());
    List<Types.NestedField> columns = required.columns();
    for (int i = 0; i < columns.size(); i++) {
      record.set(i, constants.get(columns.get(i).fieldId()));
    }
    return new IcebergToSpark(required.asStruct()).convert(record);
  }

  /**
   * Decodes the next batch and drops deleted rows.
   *
   * @return the batch, or null when the split is exhausted
   */
  @Override
  public ColumnarBatch next() throws IOException {
    if (decoded == null) {
      decoded = reader.resultBatch();
      full = new ColumnVector[sparkColumn.length];
      for (int i = 0; i < full.length; i++) {
        full[i] = sparkColumn[i] >= 0 ? decoded.column(sparkColumn[i]) : constants[i];
        if (lineage[i] == MetadataColumns.ROW_ID.fieldId()) {
          full[i] = LineageVector.rowIds(full[i], decoded.column(rowIndexColumn), firstRowId);
        } else if (lineage[i] != 0) {
          full[i] = LineageVector.sequenceNumbers(full[i], sequenceNumber);
        }
      }
      row.setVectors(full);
    }
    while (reader.nextBatch()) {
      int numRows = decoded.numRows();
      if (positionDeletes == null && liveByEquality == null) {
        return output(full, numRows);
      }
      if (live == null || live.length < numRows) {
        live = new int[Math.max(numRows, 1)];
      }
      int kept = 0;
      ColumnVector positions = posColumn >= 0 ? full[posColumn] : null;
      for (int i = 0; i < numRows; i++) {
        if (positionDeletes != null && positionDeletes.isDeleted(positions.getLong(i))) {
          continue;
        }
        if (liveByEquality != null) {
          row.setRowId(i);
          if (!liveByEquality.test(row)) {
            continue;
          }
        }
        live[kept++] = i;
      }
      if (kept == numRows) {
        return output(full, numRows);
      }
      if (kept > 0) {
        ColumnVector[] mapped = new ColumnVector[outputColumns];
        for (int i = 0; i < outputColumns; i++) {
          mapped[i] =
              sparkColumn[i] >= 0 ? new MappedColumnVector(full[i], live, kept) : full[i];
        }
        return new ColumnarBatch(mapped, kept);
      }
    }
    return null;
  }

  private ColumnarBatch output(ColumnVector[] vectors, int numRows) {
    ColumnVector[] out = new ColumnVector[outputColumns];
    System.arraycopy(vectors, 0, out, 0, outputColumns);
    return new ColumnarBatch(out, numRows);
  }

  @Override
  public void close() throws IOException {
    try {
      reader.close();
    } finally {
      closeAll(constants);
    }
  }

  private static void closeAll(ColumnVector[] vectors) {
    for (ColumnVector vector : vectors) {
      if (vector != null) {
        vector.close();
      }
    }
  }
}
