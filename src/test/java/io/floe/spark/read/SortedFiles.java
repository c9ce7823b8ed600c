package io.floe.spark.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Writes data files the way a writer that records its sort order does (the official Iceberg
 * runtime, for one): rows in the table's sort order, and the order's id in the file's metadata.
 */
public final class SortedFiles {
  private static final AtomicInteger TASK_IDS = new AtomicInteger();

  private SortedFiles() {}

  /** A record of the table's schema with these values, in column order. */
  public static Record record(Table table, Object... values) {
    GenericRecord record = GenericRecord.create(table.schema());
    for (int pos = 0; pos < values.length; pos++) {
      record.set(pos, values[pos]);
    }
    return record;
  }

  /**
   * Appends one file per partition of the given records, each holding its records in the given
   * order and recording the table's sort order, as one snapshot.
   */
  public static List<DataFile> appendPerPartition(Table table, List<Record> records) {
    PartitionSpec spec = table.spec();
    PartitionKey key = new PartitionKey(spec, table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    Map<StructLike, List<Record>> byPartition = new LinkedHashMap<>();
    for (Record record : records) {
      key.partition(wrapper.wrap(record));
      byPartition.computeIfAbsent(key.copy(), k -> new java.util.ArrayList<>()).add(record);
    }
    AppendFiles append = table.newAppend();
    List<DataFile> files = new java.util.ArrayList<>();
    byPartition.forEach((partition, rows) -> {
      DataFile file = write(table, partition, rows);
      files.add(file);
      append.appendFile(file);
    });
    append.commit();
    return files;
  }

  /** Appends one file of these records, all of one partition, as one snapshot. */
  public static DataFile appendFile(Table table, List<Record> records) {
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(records.get(0)));
    DataFile file = write(table, key.copy(), records);
    table.newAppend().appendFile(file).commit();
    return file;
  }

  private static DataFile write(Table table, StructLike partition, List<Record> records) {
    PartitionSpec spec = table.spec();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .dataSortOrder(table.sortOrder())
            .build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, TASK_IDS.incrementAndGet())
            .format(FileFormat.PARQUET)
            .build();
    DataWriter<Record> writer =
        writers.newDataWriter(
            files.newOutputFile(spec, spec.isPartitioned() ? partition : null),
            spec,
            spec.isPartitioned() ? partition : null);
    try (DataWriter<Record> closing = writer) {
      records.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }
}
