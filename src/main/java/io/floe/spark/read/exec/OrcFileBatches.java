package io.floe.spark.read.exec;

import io.floe.spark.orc.OrcVector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.orc.ORC;
import org.apache.iceberg.orc.OrcBatchReader;
import org.apache.iceberg.types.Types;
import org.apache.orc.storage.ql.exec.vector.VectorizedRowBatch;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads one ORC file task (a file, or a split of it) as Spark {@link ColumnarBatch}es whose data
 * columns are {@link OrcVector} adapters over the vectors ORC's reader fills, so values are not
 * copied.
 *
 * <p>The file is opened through Iceberg's ORC read builder, as the row path opens it: columns are
 * matched by Iceberg field id (the file's ids, else the table's name mapping, else Iceberg's
 * fallback mapping by name), promoted types are widened by ORC's schema evolution, a column the
 * file does not have reads NULL, the split selects the stripes that start in it, and the task's
 * residual becomes an ORC search argument that skips row groups by their statistics (the residual
 * itself is left to Spark). Identity-partition columns and the metadata columns {@code _file},
 * {@code _spec_id} and {@code _partition} are constant vectors; {@code _pos} is the position ORC's
 * reader reports for each batch plus the row's index in it; the row-lineage columns of v3 tables
 * are the file's stored values with NULLs inherited ({@link LineageVector}). Rows removed by
 * position deletes, deletion vectors and equality deletes are dropped from each batch.
 *
 * <p>{@link #open} reads the file's footer and the delete files, so that it can run ahead on a
 * prefetch thread. The batches returned are valid until the next call to {@link #next()} or
 * {@link #close()}.
 */
final class OrcFileBatches implements TaskBatches {
  private final CloseableIterable<VectorizedRowBatch> iterable;
  private final CloseableIterator<VectorizedRowBatch> batches;
  private final Offsets offsets;
  private final Schema projection;
  private final int[] fileColumn;
  private final ColumnVector[] constants;
  private final int[] lineage;
  private final int outputColumns;
  private final OnHeapColumnVector positions;
  private final Long firstRowId;
  private final Long sequenceNumber;
  private final PositionDeleteIndex positionDeletes;
  private final Predicate<BatchRow> liveByEquality;
  private final BatchRow row;
  private final long bytes;
  private VectorizedRowBatch adapted;
  private OrcVector[] data;
  private ColumnVector[] full;
  private int[] live;

  private OrcFileBatches(
      CloseableIterable<VectorizedRowBatch> iterable,
      Offsets offsets,
      Schema projection,
      OrcTaskLayout layout,
      FileScanTask task,
      PositionDeleteIndex positionDeletes,
      Predicate<BatchRow> liveByEquality,
      BatchRow row,
      int batchSize) {
    this.iterable = iterable;
    this.batches = iterable.iterator();
    this.offsets = offsets;
    this.projection = projection;
    this.fileColumn = layout.fileColumn;
    this.constants = layout.constants;
    this.lineage = layout.lineage;
    this.outputColumns = layout.outputColumns;
    this.positions =
        layout.needsPositions ? new OnHeapColumnVector(batchSize, DataTypes.LongType) : null;
    this.firstRowId = task.file().firstRowId();
    // a file without a first row id inherits neither lineage value (see LineageVector)
    this.sequenceNumber = firstRowId == null ? null : task.file().dataSequenceNumber();
    this.positionDeletes = positionDeletes;
    this.liveByEquality = liveByEquality;
    this.row = row;
    this.bytes = task.length();
  }

  /**
   * Opens a task: the ORC reader (footer, stripes of the split, search argument) and the delete
   * files.
   *
   * @throws UncheckedIOException if a file cannot be read
   * @throws IllegalStateException naming the file, when opening it fails otherwise
   */
  static OrcFileBatches open(ReadSettings settings, FileScanTask task) {
    OrcTaskLayout layout = null;
    CloseableIterable<VectorizedRowBatch> iterable = null;
    try {
      Schema readSchema = settings.readSchema();
      BatchDeleteFilter deletes =
          task.deletes().isEmpty() ? null : new BatchDeleteFilter(settings, task, readSchema);
      Schema required = deletes == null ? readSchema : deletes.requiredSchema();
      PositionDeleteIndex positionDeletes =
          deletes != null && deletes.hasPosDeletes() ? deletes.deletedRowPositions() : null;
      Predicate<BatchRow> liveByEquality =
          deletes != null && deletes.hasEqDeletes() ? deletes.eqDeletedRowFilter() : null;

      layout = new OrcTaskLayout(task, readSchema, required, settings.batchSize());
      Schema projection = new Schema(layout.fileFields);
      Offsets offsets = new Offsets();
      ORC.ReadBuilder builder =
          ORC.read(settings.io().newInputFile(task.file()))
              .project(projection)
              .split(task.start(), task.length())
              .caseSensitive(settings.caseSensitive())
              .recordsPerBatch(settings.batchSize())
              .createBatchedReaderFunc(fileSchema -> offsets);
      Expression filter =
          searchable(task.residual(), settings.tableSchema(), projection, settings.caseSensitive());
      if (filter != null) {
        builder = builder.filter(filter);
      }
      if (settings.nameMapping() != null) {
        builder = builder.withNameMapping(settings.nameMapping());
      }
      iterable = builder.build();
      return new OrcFileBatches(
          iterable,
          offsets,
          projection,
          layout,
          task,
          positionDeletes,
          liveByEquality,
          new BatchRow(required),
          settings.batchSize());
    } catch (UncheckedIOException e) {
      cleanUp(iterable, layout, e);
      throw e;
    } catch (RuntimeException e) {
      cleanUp(iterable, layout, e);
      throw settings.openFailure(task.file().location(), e);
    }
  }

  private static void cleanUp(
      CloseableIterable<?> iterable, OrcTaskLayout layout, RuntimeException failure) {
    if (layout != null) {
      closeAll(layout.constants);
    }
    if (iterable != null) {
      try {
        iterable.close();
      } catch (IOException | RuntimeException e) {
        failure.addSuppressed(e);
      }
    }
  }

  /**
   * The residual as ORC may prune by it: Iceberg binds the search argument to the projected file
   * columns, so a residual that names another column (a constant) prunes nothing.
   */
  private static Expression searchable(
      Expression residual, Schema tableSchema, Schema projection, boolean caseSensitive) {
    if (residual == null || residual.equals(Expressions.alwaysTrue())) {
      return null;
    }
    Set<Integer> named =
        Binder.boundReferences(tableSchema.asStruct(), List.of(residual), caseSensitive);
    for (int id : named) {
      if (projection.findField(id) == null) {
        return null;
      }
    }
    return residual;
  }

  /** Bytes of the split. */
  @Override
  public long bytes() {
    return bytes;
  }

  /** ORC stripes are not counted as row groups. */
  @Override
  public int rowGroups() {
    return 0;
  }

  /**
   * Reads the next batch and drops deleted rows.
   *
   * @return the batch, or null when the split is exhausted
   */
  @Override
  public ColumnarBatch next() throws IOException {
    while (batches.hasNext()) {
      VectorizedRowBatch batch = batches.next();
      int size = batch.size;
      if (size == 0) {
        continue;
      }
      if (batch.selectedInUse) {
        // Iceberg gives ORC no row filter, so every batch is whole; a selection would shift _pos
        throw new IllegalStateException("Cannot read an ORC batch with a row selection");
      }
      adapt(batch);
      for (OrcVector vector : data) {
        vector.setNumRows(size);
      }
      if (positions != null) {
        long first = offsets.offset;
        for (int i = 0; i < size; i++) {
          positions.putLong(i, first + i);
        }
      }
      if (positionDeletes == null && liveByEquality == null) {
        return output(full, size);
      }
      if (live == null || live.length < size) {
        live = new int[size];
      }
      int kept = 0;
      for (int i = 0; i < size; i++) {
        if (positionDeletes != null && positionDeletes.isDeleted(offsets.offset + i)) {
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
      if (kept == size) {
        return output(full, size);
      }
      if (kept > 0) {
        ColumnVector[] mapped = new ColumnVector[outputColumns];
        for (int i = 0; i < outputColumns; i++) {
          mapped[i] = constants[i] == null ? new MappedColumnVector(full[i], live, kept) : full[i];
        }
        return new ColumnarBatch(mapped, kept);
      }
    }
    return null;
  }

  /** Points the adapters at the vectors of this batch (ORC's reader reuses one batch per file). */
  private void adapt(VectorizedRowBatch batch) {
    if (batch == adapted) {
      return;
    }
    List<Types.NestedField> fields = projection.columns();
    if (batch.cols.length < fields.size()) {
      throw new IllegalStateException(
          "Cannot read ORC batch: " + batch.cols.length + " columns for " + fields.size());
    }
    data = new OrcVector[fields.size()];
    for (int k = 0; k < data.length; k++) {
      data[k] = OrcVector.of(fields.get(k).type(), batch.cols[k]);
    }
    full = new ColumnVector[fileColumn.length];
    for (int i = 0; i < full.length; i++) {
      if (constants[i] != null) {
        full[i] = constants[i];
      } else if (fileColumn[i] >= 0) {
        full[i] = data[fileColumn[i]];
      } else {
        full[i] = positions;
      }
      if (lineage[i] == MetadataColumns.ROW_ID.fieldId()) {
        full[i] = LineageVector.rowIds(full[i], positions, firstRowId);
      } else if (lineage[i] != 0) {
        full[i] = LineageVector.sequenceNumbers(full[i], sequenceNumber);
      }
    }
    row.setVectors(full);
    adapted = batch;
  }

  private ColumnarBatch output(ColumnVector[] vectors, int numRows) {
    ColumnVector[] out = new ColumnVector[outputColumns];
    System.arraycopy(vectors, 0, out, 0, outputColumns);
    return new ColumnarBatch(out, numRows);
  }

  @Override
  public void close() throws IOException {
    try {
      try {
        batches.close();
      } finally {
        iterable.close();
      }
    } finally {
      closeAll(constants);
      if (positions != null) {
        positions.close();
      }
    }
  }

  private static void closeAll(ColumnVector[] vectors) {
    for (ColumnVector vector : vectors) {
      if (vector != null) {
        vector.close();
      }
    }
  }

  /**
   * Keeps the file position of the batch ORC's reader hands out next: Iceberg's batch iterator
   * reports it before each batch, counting the rows of row groups the search argument skipped.
   */
  private static final class Offsets implements OrcBatchReader<VectorizedRowBatch> {
    private long offset;

    @Override
    public VectorizedRowBatch read(VectorizedRowBatch batch) {
      return batch;
    }

    @Override
    public void setBatchContext(long batchOffsetInFile) {
      this.offset = batchOffsetInFile;
    }
  }
}
