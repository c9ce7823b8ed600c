package io.floe.spark.write.exec;

import io.floe.spark.types.SparkSchemas;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.ClusteredDataWriter;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's writer: computes each row's partition with Iceberg's transforms from the table's own
 * source columns and writes the Spark rows into data files of the write's format ({@link
 * RowFileWriterFactory}: Parquet, ORC or Avro) that roll at the target size. With the fanout writer
 * one file per partition stays open, up to the settings' bound ({@link BoundedFanoutWriter}), and
 * rows may come in any order; otherwise one file at a time, relying on the ordering the write asks
 * Spark for ({@link ClusteredOrFanoutWriter}). The data files are valid
 * only after {@link #commit()}; {@link #abort()} deletes every file the task opened.
 *
 * <p>When the settings say rows come sorted by the table's sort order, the task's files record
 * that order's id, unless the task had to fall back to a fanout writer: then its rows did not come
 * as asked, and none of its files claims an order.
 *
 * <p>A rewrite of a format v3 table writes the row lineage columns after the table's ({@link
 * RowLineageSource}): a compaction's rows end with them and are written as they come; a row-level
 * operation's rows get the values of the metadata row Spark passes with each carried-over or
 * updated row ({@link #write(InternalRow, InternalRow)}), and NULLs for a row that comes alone.
 *
 * <p>File names carry a random id of their own, never the commit id: a rerun with the same commit
 * id in a new driver gets the same partition and task ids, and a rerun that is skipped deletes the
 * files it wrote, so its names must not collide with the committed files of the first run.
 */
public final class FloeDataWriter implements DataWriter<InternalRow> {
  private static final Logger LOG = LoggerFactory.getLogger(FloeDataWriter.class);

  private final PartitionSpec spec;
  private final FileIO io;
  private final RowFileWriterFactory files;
  private final PartitioningWriter<InternalRow, DataWriteResult> writer;
  // the writer again when it takes runs of one partition without a lookup, else null
  private final PartitionRunWriter runs;
  private final ClusteredOrFanoutWriter fallible;
  private final SortOrder sortOrder;
  private final RowPartitionKey partitionKey;
  private final TruncateOverflowCheck truncateCheck;
  private final Function<List<DataFile>, WriterCommitMessage> commitMessage;
  // rows of a rewrite that carry their lineage in a metadata row, else null
  private final LineageRows lineage;
  private long rowsWritten;
  private boolean closed;

  /**
   * @param settings what the task writes with
   * @param partitionId Spark's partition id of the task, part of the file names
   * @param taskId Spark's task id, part of the file names
   * @param commitMessage wraps the task's data files into the message sent back to the driver
   */
  public FloeDataWriter(
      DataWriterSettings settings,
      int partitionId,
      long taskId,
      Function<List<DataFile>, WriterCommitMessage> commitMessage) {
    Objects.requireNonNull(settings, "settings is null");
    this.commitMessage = Objects.requireNonNull(commitMessage, "commitMessage is null");
    Table table = settings.table();
    Schema schema = settings.schema();
    Schema fileSchema = settings.fileSchema();
    this.spec = settings.spec();
    this.io = table.io();
    this.files = new RowFileWriterFactory(table, fileSchema, settings.writeProperties());
    OutputFileFactory locations =
        OutputFileFactory.builderFor(table, partitionId, taskId)
            .format(files.format())
            .defaultSpec(spec)
            .operationId(UUID.randomUUID().toString())
            .build();
    long targetSize = settings.targetFileSizeBytes();
    StructType rowType = SparkSchemas.toSpark(fileSchema);
    BiFunction<PartitionSpec, StructLike, FileWriter<InternalRow, DataWriteResult>> newFile =
        (fileSpec, partition) ->
            new RollingDataWriter<>(files, locations, io, targetSize, fileSpec, partition);
    if (settings.fanoutEnabled() && spec.isPartitioned()) {
      this.runs = new BoundedFanoutWriter(table.name(), spec, rowType, newFile, settings.maxOpenFiles());
      this.writer = runs;
      this.fallible = null;
    } else if (settings.fanoutEnabled()) {
      this.writer = new FanoutDataWriter<>(files, locations, io, targetSize);
      this.runs = null;
      this.fallible = null;
    } else if (spec.isPartitioned()) {
      this.fallible =
          new ClusteredOrFanoutWriter(
              table.name(),
              spec,
              newFile,
              () -> new BoundedFanoutWriter(table.name(), spec, rowType, newFile, settings.maxOpenFiles()));
      this.writer = fallible;
      this.runs = fallible;
    } else {
      this.writer = new ClusteredDataWriter<>(files, locations, io, targetSize);
      this.runs = null;
      this.fallible = null;
    }
    SortOrder tableOrder = table.sortOrder();
    this.sortOrder =
        settings.recordSortOrder() && !settings.fanoutEnabled() && !tableOrder.isUnsorted()
            ? tableOrder
            : null;
    this.partitionKey = spec.isPartitioned() ? new RowPartitionKey(spec, schema) : null;
    this.truncateCheck = TruncateOverflowCheck.forSpec(table.name(), spec, schema);
    RowLineageSource source = settings.lineage();
    this.lineage = source == null || source.inRow() ? null : new LineageRows(source);
  }

  /**
   * Writes a row. When the files keep lineage from metadata rows, a row that comes without one is
   * new: it gets NULL lineage columns, so that it reads a new id and the commit's sequence number.
   */
  @Override
  public void write(InternalRow row) throws IOException {
    writeRow(lineage == null ? row : lineage.withoutLineage(row));
  }

  /**
   * Writes a row a rewrite carries over or updates, with the lineage values of its metadata row
   * when the files keep lineage (Spark has already set those the row must not keep to NULL).
   */
  @Override
  public void write(InternalRow metadata, InternalRow row) throws IOException {
    writeRow(lineage == null ? row : lineage.withLineage(metadata, row));
  }

  private void writeRow(InternalRow row) throws IOException {
    rowsWritten += 1;
    if (partitionKey == null) {
      writer.write(row, spec, null);
    } else {
      boolean changed = partitionKey.partition(row);
      if (truncateCheck != null) {
        truncateCheck.check(partitionKey.row(), partitionKey);
      }
      if (changed || runs == null) {
        writer.write(row, spec, partitionKey);
      } else {
        runs.writeSamePartition(row, spec, partitionKey);
      }
    }
  }

  @Override
  public WriterCommitMessage commit() throws IOException {
    closeWriter();
    List<DataFile> written = writer.result().dataFiles();
    boolean ordered = sortOrder != null && (fallible == null || !fallible.fellBack());
    return commitMessage.apply(ordered ? withSortOrder(written) : written);
  }

  @Override
  public void abort() throws IOException {
    try {
      closeWriter();
    } catch (IOException | RuntimeException e) {
      // a failed row can leave a file that does not close cleanly; it is deleted below all the same
      LOG.warn("Could not close the data files of an aborted write task", e);
    } finally {
      for (String location : files.openedLocations()) {
        try {
          io.deleteFile(location);
        } catch (RuntimeException e) {
          LOG.warn("Could not delete data file {} of an aborted write task", location, e);
        }
      }
    }
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return new CustomTaskMetric[] {WriteMetrics.value(WriteMetrics.ROWS_WRITTEN, rowsWritten)};
  }

  @Override
  public void close() throws IOException {
    closeWriter();
  }

  private List<DataFile> withSortOrder(List<DataFile> written) {
    List<DataFile> sorted = new ArrayList<>(written.size());
    for (DataFile file : written) {
      sorted.add(DataFiles.builder(spec).copy(file).withSortOrder(sortOrder).build());
    }
    return sorted;
  }

  private void closeWriter() throws IOException {
    if (!closed) {
      closed = true;
      writer.close();
    }
  }
}
