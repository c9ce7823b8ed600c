package io.floe.spark.write.exec;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Partitioning;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.FanoutPositionOnlyDeleteWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructProjection;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One merge-on-read task's writer: each deleted row ({@code _file}, {@code _pos}, with the data
 * file's {@code _spec_id} and {@code _partition}) goes to a delete writer, each inserted row (and
 * the new version of each updated row, which Spark hands over as a delete and an insert) to a
 * {@link FloeDataWriter}, exactly as an append writes it.
 *
 * <p>Deletes are written as deletion vectors on format v3 ({@link DeletionVectorWriter}: one per
 * data file, merged with its previous deletes) and as position-delete files on format v2 (in the
 * write's delete format, Parquet by default), one per data file or per partition ({@code
 * delete-granularity}), merged with the data file's
 * previous file-scoped deletes in the first case. Both writers keep the positions of a data file in
 * memory and write them sorted on close, so the result is right whatever order rows arrive in; the
 * write still asks Spark to order them by {@code _file} and {@code _pos}, which keeps the data
 * file's deletes in one task.
 *
 * <p>Files are valid only after {@link #commit()}; {@link #abort()} deletes every file the task
 * opened.
 */
public final class FloeDeltaWriter implements DeltaWriter<InternalRow> {
  private static final Logger LOG = LoggerFactory.getLogger(FloeDeltaWriter.class);

  private final String tableName;
  private final FileIO io;
  private final Map<Integer, PartitionSpec> specs;
  private final FloeDataWriter dataWriter;
  private final PartitioningWriter<PositionDelete<InternalRow>, DeleteWriteResult> deleteWriter;
  private final List<String> openedDeleteFiles = new ArrayList<>();
  private final PositionDelete<InternalRow> positionDelete = PositionDelete.create();
  private final PartitionSourceRow partitionRow;
  private final int partitionWidth;
  private final Map<Integer, StructProjection> partitionProjections = new HashMap<>();
  private final int fileOrdinal;
  private final Map<Long, String> fileKeys;
  private final int positionOrdinal;
  private final int specIdOrdinal;
  private final int partitionOrdinal;
  private boolean closed;

  /**
   * @param settings what the task writes with
   * @param partitionId Spark's partition id of the task, part of the file names
   * @param taskId Spark's task id, part of the file names
   */
  public FloeDeltaWriter(DeltaWriterSettings settings, int partitionId, long taskId) {
    Objects.requireNonNull(settings, "settings is null");
    Table table = settings.table();
    this.tableName = table.name();
    this.io = table.io();
    this.specs = table.specs();
    this.dataWriter =
        new FloeDataWriter(
            settings.data(),
            partitionId,
            taskId,
            files -> new DeltaTaskResult(files, List.of(), List.of(), List.of()));
    PreviousDeletes previous = new PreviousDeletes(settings.previousDeletes(), io);
    PositionDeleteFileWriters positionFiles =
        settings.deletionVectors()
            ? null
            : new PositionDeleteFileWriters(
                table, settings.data().writeProperties(), openedDeleteFiles);
    OutputFileFactory deleteFiles =
        OutputFileFactory.builderFor(table, partitionId, taskId)
            .format(positionFiles == null ? FileFormat.PUFFIN : positionFiles.format())
            .operationId(UUID.randomUUID().toString())
            .suffix("deletes")
            .build();
    if (positionFiles == null) {
      this.deleteWriter = new DeletionVectorWriter(deleteFiles, previous, openedDeleteFiles);
    } else {
      this.deleteWriter =
          new FanoutPositionOnlyDeleteWriter<>(
              positionFiles,
              deleteFiles,
              io,
              settings.targetDeleteFileSizeBytes(),
              settings.granularity(),
              previous::load);
    }
    Types.StructType partitionType = Partitioning.partitionType(table);
    this.partitionRow = PartitionSourceRow.forStruct(partitionType);
    this.partitionWidth = partitionType.fields().size();
    for (PartitionSpec spec : specs.values()) {
      partitionProjections.put(
          spec.specId(), StructProjection.create(partitionType, spec.partitionType()));
    }
    this.fileOrdinal = settings.fileOrdinal();
    this.fileKeys = settings.fileKeys();
    this.positionOrdinal = settings.positionOrdinal();
    this.specIdOrdinal = settings.specIdOrdinal();
    this.partitionOrdinal = settings.partitionOrdinal();
  }

  @Override
  public void delete(InternalRow metadata, InternalRow id) throws IOException {
    int specId = metadata.getInt(specIdOrdinal);
    PartitionSpec spec = specs.get(specId);
    StructProjection partition = partitionProjections.get(specId);
    if (spec == null || partition == null) {
      throw new IllegalStateException(
          "Cannot delete a row of " + tableName + ": the table has no partition spec " + specId);
    }
    partition.wrap(partitionRow.wrap(metadata.getStruct(partitionOrdinal, partitionWidth)));
    String file;
    if (fileKeys == null) {
      file = id.getUTF8String(fileOrdinal).toString();
    } else {
      file = fileKeys.get(id.getLong(fileOrdinal));
      if (file == null) {
        throw new IllegalStateException(
            "Cannot delete a row of " + tableName + ": its row id names file key "
                + id.getLong(fileOrdinal) + ", which no data file the operation scanned has");
      }
    }
    long position = id.getLong(positionOrdinal);
    deleteWriter.write(positionDelete.set(file, position), spec, partition);
  }

  /** Never called: the operation has Spark hand over an update as a delete and an insert. */
  @Override
  public void update(InternalRow metadata, InternalRow id, InternalRow row) {
    throw new UnsupportedOperationException(
        "Cannot update a row of " + tableName + " in place: updates arrive as a delete and an insert");
  }

  /** A new row: on a format v3 table it gets a new row id ({@link FloeDataWriter#write}). */
  @Override
  public void insert(InternalRow row) throws IOException {
    dataWriter.write(row);
  }

  /**
   * The new version of an updated row: on a format v3 table it keeps its {@code _row_id}, which
   * the metadata row carries, and Spark has set its {@code _last_updated_sequence_number} to NULL,
   * so that it reads the commit's sequence number.
   */
  @Override
  public void reinsert(InternalRow metadata, InternalRow row) throws IOException {
    dataWriter.write(metadata, row);
  }

  @Override
  public WriterCommitMessage commit() throws IOException {
    closeDeletes();
    List<DataFile> dataFiles = ((DeltaTaskResult) dataWriter.commit()).dataFiles();
    DeleteWriteResult deletes = deleteWriter.result();
    List<String> referenced = new ArrayList<>();
    deletes.referencedDataFiles().forEach(location -> referenced.add(location.toString()));
    List<DeleteFile> rewritten = new ArrayList<>(deletes.rewrittenDeleteFiles());
    return new DeltaTaskResult(
        dataFiles, deletes.deleteFiles(), rewritten, referenced);
  }

  @Override
  public void abort() throws IOException {
    try {
      closeDeletes();
    } catch (IOException | RuntimeException e) {
      // a failed task can leave a delete file that does not close; it is deleted below all the same
      LOG.warn("Could not close the delete files of an aborted task writing to {}", tableName, e);
    } finally {
      for (String location : openedDeleteFiles) {
        try {
          io.deleteFile(location);
        } catch (RuntimeException e) {
          LOG.warn("Could not delete delete file {} of an aborted write task", location, e);
        }
      }
      dataWriter.abort();
    }
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return dataWriter.currentMetricsValues();
  }

  @Override
  public void close() throws IOException {
    try {
      closeDeletes();
    } finally {
      dataWriter.close();
    }
  }

  private void closeDeletes() throws IOException {
    if (!closed) {
      closed = true;
      deleteWriter.close();
    }
  }
}
