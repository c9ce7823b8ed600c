package io.floe.spark.read.exec;

import io.floe.spark.types.IcebergToSpark;
import io.floe.spark.types.ReadOnlyStruct;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PositionDeletesScanTask;
import org.apache.iceberg.PositionDeletesTable;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * Reads the delete-file tasks of one {@code position_deletes} input partition, in order, as Spark
 * rows of the scan's read schema. Each task is read whole: a position delete file (Parquet, Avro or
 * ORC, through Iceberg's generic readers) gives its {@code file_path}, {@code pos} and {@code row}
 * columns ({@code row} is NULL when the file holds no rows); a deletion vector (a blob in a Puffin
 * file, read through Iceberg's {@link BaseDeleteLoader}) gives its referenced data file and each
 * deleted position, with a NULL {@code row}. The other columns come from the task: {@code
 * partition} (in the table's unified partition type), {@code spec_id}, {@code delete_file_path},
 * and for format version 3 {@code content_offset} and {@code content_size_in_bytes} (NULL for
 * delete files that are not deletion vectors).
 *
 * <p>Filters are left to Spark. It opens only the files of its tasks and never plans.
 */
public final class PositionDeletesReader implements PartitionReader<InternalRow> {
  private static final String POSITION_DELETES_ROW = "Cannot modify a position_deletes row";

  private final ReadSettings settings;
  private final Iterator<PositionDeletesScanTask> tasks;
  private final IcebergToSpark converter;
  private final ReaderMetrics metrics = new ReaderMetrics();
  private TaskRows current;
  private InternalRow row;

  /**
   * @param settings what the scan's readers share
   * @param tasks the tasks of one input partition, in order
   */
  public PositionDeletesReader(ReadSettings settings, List<PositionDeletesScanTask> tasks) {
    this.settings = settings;
    this.tasks = tasks.iterator();
    this.converter = new IcebergToSpark(settings.readSchema().asStruct());
  }

  @Override
  public boolean next() throws IOException {
    while (current == null || !current.hasNext()) {
      closeCurrent();
      if (!tasks.hasNext()) {
        return false;
      }
      PositionDeletesScanTask task = tasks.next();
      try {
        current = open(task);
      } catch (RuntimeException e) {
        throw settings.openFailure(task.file().location(), e);
      }
      metrics.fileOpened(task.length());
    }
    row = converter.convert(current.next());
    return true;
  }

  @Override
  public InternalRow get() {
    return row;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return metrics.taskValues();
  }

  @Override
  public void close() throws IOException {
    closeCurrent();
  }

  private void closeCurrent() throws IOException {
    if (current != null) {
      TaskRows closing = current;
      current = null;
      closing.close();
    }
  }

  private TaskRows open(PositionDeletesScanTask task) {
    Schema readSchema = settings.readSchema();
    List<Types.NestedField> columns = readSchema.columns();
    DeleteFile file = task.file();
    boolean dv = ContentFileUtil.isDV(file);
    // what each column of the read schema is: a column of the delete file, or a constant
    int[] fileColumn = new int[columns.size()];
    Object[] constants = new Object[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField column = columns.get(i);
      int id = column.fieldId();
      fileColumn[i] = -1;
      if (id == MetadataColumns.DELETE_FILE_PATH.fieldId()) {
        fileColumn[i] = 0;
      } else if (id == MetadataColumns.DELETE_FILE_POS.fieldId()) {
        fileColumn[i] = 1;
      } else if (id == MetadataColumns.DELETE_FILE_ROW_FIELD_ID) {
        fileColumn[i] = 2;
      } else {
        constants[i] = constant(column, task, dv);
      }
    }
    if (dv) {
      return new VectorRows(settings.io(), file, fileColumn, constants);
    }
    return new FileRows(settings, task, readSchema, fileColumn, constants);
  }

  private Object constant(Types.NestedField column, PositionDeletesScanTask task, boolean dv) {
    int id = column.fieldId();
    DeleteFile file = task.file();
    if (id == MetadataColumns.PARTITION_COLUMN_ID) {
      Types.StructType type = column.type().asStructType();
      return PartitionUtil.coercePartition(type, task.spec(), file.partition());
    } else if (id == MetadataColumns.SPEC_ID_COLUMN_ID) {
      return file.specId();
    } else if (id == MetadataColumns.FILE_PATH_COLUMN_ID) {
      return file.location();
    } else if (id == MetadataColumns.CONTENT_OFFSET_COLUMN_ID) {
      return dv ? file.contentOffset() : null;
    } else if (id == MetadataColumns.CONTENT_SIZE_IN_BYTES_COLUMN_ID) {
      return dv ? file.contentSizeInBytes() : null;
    }
    throw new IllegalArgumentException(
        "Cannot read "
            + settings.tableName()
            + ": unknown column "
            + column.name()
            + " of the "
            + PositionDeletesTable.class.getSimpleName()
            + " schema");
  }

  /** The rows of one opened task, as structs of the read schema. */
  private interface TaskRows {
    boolean hasNext();

    StructLike next();

    void close() throws IOException;
  }

  /** A position delete file read through Iceberg's generic reader of its format. */
  private static final class FileRows implements TaskRows {
    private final CloseableIterable<Record> records;
    private final CloseableIterator<Record> iterator;
    private final int[] filePositions;
    private final Object[] constants;
    private final int[] fileColumn;

    FileRows(
        ReadSettings settings,
        PositionDeletesScanTask task,
        Schema readSchema,
        int[] fileColumn,
        Object[] constants) {
      // file_path, pos and row as the read schema wants them; pos is always read, so that a
      // projection of constants only (count(*)) still sees one record per deleted position
      List<Types.NestedField> fields = new ArrayList<>();
      int[] positions = new int[] {-1, -1, -1};
      List<Types.NestedField> columns = readSchema.columns();
      for (int slot = 0; slot < 3; slot++) {
        for (int i = 0; i < columns.size(); i++) {
          if (fileColumn[i] == slot) {
            positions[slot] = fields.size();
            fields.add(columns.get(i));
          }
        }
        if (slot == 1 && positions[1] < 0) {
          positions[1] = fields.size();
          fields.add(MetadataColumns.DELETE_FILE_POS);
        }
      }
      Schema projection = new Schema(fields);
      this.records =
          FormatModelRegistry.<Record, Schema>readBuilder(
                  task.file().format(), Record.class, settings.io().newInputFile(task.file()))
              .project(projection)
              .split(task.start(), task.length())
              .caseSensitive(settings.caseSensitive())
              .build();
      this.iterator = records.iterator();
      this.filePositions = positions;
      this.fileColumn = fileColumn;
      this.constants = constants;
    }

    @Override
    public boolean hasNext() {
      return iterator.hasNext();
    }

    @Override
    public StructLike next() {
      Record record = iterator.next();
      Object[] values = constants.clone();
      for (int i = 0; i < values.length; i++) {
        if (fileColumn[i] >= 0) {
          values[i] = record.get(filePositions[fileColumn[i]]);
        }
      }
      return new ReadOnlyStruct(values, POSITION_DELETES_ROW);
    }

    @Override
    public void close() throws IOException {
      try {
        iterator.close();
      } finally {
        records.close();
      }
    }
  }

  /** A deletion vector: one row per deleted position of its referenced data file. */
  private static final class VectorRows implements TaskRows {
    private final String dataFile;
    private final long[] positions;
    private final int[] fileColumn;
    private final Object[] constants;
    private int next;

    VectorRows(FileIO io, DeleteFile dv, int[] fileColumn, Object[] constants) {
      this.dataFile = dv.referencedDataFile();
      PositionDeleteIndex index =
          new BaseDeleteLoader(io::newInputFile).loadPositionDeletes(List.of(dv), dataFile);
      long[][] collected = {new long[(int) Math.min(1 << 20, Math.max(16, index.cardinality()))]};
      int[] count = {0};
      index.forEach(
          pos -> {
            if (count[0] == collected[0].length) {
              collected[0] = Arrays.copyOf(collected[0], collected[0].length * 2);
            }
            collected[0][count[0]++] = pos;
          });
      this.positions = Arrays.copyOf(collected[0], count[0]);
      this.fileColumn = fileColumn;
      this.constants = constants;
    }

    @Override
    public boolean hasNext() {
      return next < positions.length;
    }

    @Override
    public StructLike next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      long pos = positions[next++];
      Object[] values = constants.clone();
      for (int i = 0; i < values.length; i++) {
        if (fileColumn[i] == 0) {
          values[i] = dataFile;
        } else if (fileColumn[i] == 1) {
          values[i] = pos;
        } else if (fileColumn[i] == 2) {
          values[i] = null;
        }
      }
      return new ReadOnlyStruct(values, POSITION_DELETES_ROW);
    }

    @Override
    public void close() {}
  }
}
