package io.floe.spark.write;

import io.floe.spark.types.SparkToIceberg;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.ClusteredDataWriter;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * One task's writer: converts Spark rows, computes each row's partition with Iceberg's transforms
 * from the table's own source columns, and writes Parquet data files that roll at the target size.
 * With {@code fanout-enabled} one file per partition stays open and rows may come in any order;
 * otherwise one file at a time, relying on the ordering the write asks Spark for ({@link
 * ClusteredOrFanoutWriter}). The data files are valid only after {@link #commit()}; {@link
 * #abort()} deletes them.
 *
 * <p>File names carry a random id of their own, never the commit id: a rerun with the same commit
 * id in a new driver gets the same partition and task ids, and a rerun that is skipped deletes the
 * files it wrote, so its names must not collide with the committed files of the first run.
 */
final class FloeDataWriter implements DataWriter<InternalRow> {
  private final PartitionSpec spec;
  private final FileIO io;
  private final SparkToIceberg converter;
  private final PartitioningWriter<Record, DataWriteResult> writer;
  private final PartitionKey partitionKey;
  private final InternalRecordWrapper wrapper;
  private final TruncateOverflowCheck truncateCheck;
  private long rowsWritten;
  private boolean closed;

  FloeDataWriter(FloeDataWriterFactory factory, int partitionId, long taskId) {
    this.spec = factory.spec();
    this.io = factory.table().io();
    this.converter = new SparkToIceberg(factory.schema().asStruct());
    OutputFileFactory files =
        OutputFileFactory.builderFor(factory.table(), partitionId, taskId)
            .format(FileFormat.PARQUET)
            .defaultSpec(spec)
            .operationId(UUID.randomUUID().toString())
            .build();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(factory.table())
            .dataFileFormat(FileFormat.PARQUET)
            .dataSchema(factory.schema())
            .build();
    long targetSize = factory.targetFileSizeBytes();
    if (factory.fanoutEnabled()) {
      this.writer = new FanoutDataWriter<>(writers, files, io, targetSize);
    } else if (spec.isPartitioned()) {
      this.writer =
          new ClusteredOrFanoutWriter(
              factory.table().name(),
              spec,
              new ClusteredDataWriter<>(writers, files, io, targetSize),
              () -> new FanoutDataWriter<>(writers, files, io, targetSize));
    } else {
      this.writer = new ClusteredDataWriter<>(writers, files, io, targetSize);
    }
    this.partitionKey = spec.isPartitioned() ? new PartitionKey(spec, factory.schema()) : null;
    this.wrapper =
        spec.isPartitioned() ? new InternalRecordWrapper(factory.schema().asStruct()) : null;
    this.truncateCheck =
        TruncateOverflowCheck.forSpec(factory.table().name(), spec, factory.schema());
  }

  @Override
  public void write(InternalRow row) throws IOException {
    Record record = converter.convert(row);
    rowsWritten += 1;
    if (partitionKey == null) {
      writer.write(record, spec, null);
    } else {
      StructLike wrapped = wrapper.wrap(record);
      partitionKey.partition(wrapped);
      if (truncateCheck != null) {
        truncateCheck.check(wrapped, partitionKey);
      }
      writer.write(record, spec, partitionKey);
    }
  }

  @Override
  public WriterCommitMessage commit() throws IOException {
    closeWriter();
    return new FloeCommitMessage(writer.result().dataFiles());
  }

  @Override
  public void abort() throws IOException {
    try {
      closeWriter();
    } finally {
      List<DataFile> written = closed ? writtenFiles() : List.of();
      for (DataFile file : written) {
        io.deleteFile(file.location());
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

  private List<DataFile> writtenFiles() {
    try {
      return writer.result().dataFiles();
    } catch (IllegalStateException e) {
      return List.of();
    }
  }

  private void closeWriter() throws IOException {
    if (!closed) {
      closed = true;
      writer.close();
    }
  }
}
