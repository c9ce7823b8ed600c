package io.floe.spark.write.exec;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * Spark rows appended to a data file through one of Iceberg's generic writers (ORC and Avro): each
 * row becomes a {@link Record} ({@link RowToRecord}) and goes to Iceberg's {@link DataWriter}, which
 * computes the file's metrics as Iceberg's own writes do. The metrics and split offsets are those of
 * the file Iceberg's writer built, and are valid only after {@link #close()}.
 */
final class RecordAppender implements FileAppender<InternalRow> {
  private final DataWriter<Record> writer;
  private final RowToRecord converter;
  private DataFile closedFile;

  RecordAppender(DataWriter<Record> writer, RowToRecord converter) {
    this.writer = Objects.requireNonNull(writer, "writer is null");
    this.converter = Objects.requireNonNull(converter, "converter is null");
  }

  @Override
  public void add(InternalRow row) {
    writer.write(converter.convert(row));
  }

  @Override
  public Metrics metrics() {
    DataFile file = file();
    return new Metrics(
        file.recordCount(),
        file.columnSizes(),
        file.valueCounts(),
        file.nullValueCounts(),
        file.nanValueCounts(),
        file.lowerBounds(),
        file.upperBounds());
  }

  @Override
  public long length() {
    return closedFile != null ? closedFile.fileSizeInBytes() : writer.length();
  }

  @Override
  public List<Long> splitOffsets() {
    return file().splitOffsets();
  }

  @Override
  public void close() throws IOException {
    if (closedFile == null) {
      writer.close();
      closedFile = writer.toDataFile();
    }
  }

  private DataFile file() {
    if (closedFile == null) {
      throw new IllegalStateException("Cannot read the metrics of a data file that is still open");
    }
    return closedFile;
  }
}
