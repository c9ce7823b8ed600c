package io.floe.spark.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Writes equality delete files and data files with Iceberg core's generic writers and commits them
 * in one {@link RowDelta}, as Flink and other engines write upserts: the files Floe itself never
 * writes, for the changelog tests to read.
 */
public final class EqualityDeleteCommits {
  private EqualityDeleteCommits() {}

  /**
   * An equality delete file on {@code columns}, one key a row (values in the columns' order, NULL
   * allowed), in the partition of {@code spec} given by {@code partition} (no values for an
   * unpartitioned spec).
   */
  public static DeleteFile deletes(
      Table table, PartitionSpec spec, List<String> columns, List<List<Object>> keys, Object... partition) {
    Schema deleteSchema = table.schema().select(columns);
    int[] fieldIds = columns.stream().mapToInt(c -> table.schema().findField(c).fieldId()).toArray();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .equalityFieldIds(fieldIds)
            .equalityDeleteRowSchema(deleteSchema)
            .build();
    GenericRecord partitionKey = partitionKey(spec, partition);
    EqualityDeleteWriter<Record> writer =
        writers.newEqualityDeleteWriter(files(table).newOutputFile(spec, partitionKey), spec, partitionKey);
    try (EqualityDeleteWriter<Record> closing = writer) {
      for (List<Object> key : keys) {
        Record record = GenericRecord.create(deleteSchema);
        for (int i = 0; i < columns.size(); i++) {
          record.setField(columns.get(i), key.get(i));
        }
        closing.write(record);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  /** A data file of whole table rows (values in the table's column order) in one partition. */
  public static DataFile data(Table table, PartitionSpec spec, List<List<Object>> rows, Object... partition) {
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).build();
    GenericRecord partitionKey = partitionKey(spec, partition);
    DataWriter<Record> writer =
        writers.newDataWriter(files(table).newOutputFile(spec, partitionKey), spec, partitionKey);
    try (DataWriter<Record> closing = writer) {
      for (List<Object> row : rows) {
        Record record = GenericRecord.create(table.schema());
        for (int i = 0; i < row.size(); i++) {
          record.set(i, row.get(i));
        }
        closing.write(record);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  /**
   * A deletion vector (format 3) of the given positions of one data file, written with Iceberg
   * core's DV writer; it holds only these positions, so a caller replacing an older vector of the
   * file passes the older positions too and removes the older vector in the same commit.
   */
  public static DeleteFile deletionVector(Table table, DataFile file, List<Long> positions) {
    OutputFileFactory puffins = OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(puffins, path -> null);
    try (BaseDVFileWriter closing = writer) {
      for (long position : positions) {
        closing.delete(file.location(), position, table.specs().get(file.specId()), file.partition());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.result().deleteFiles().get(0);
  }

  /** Commits the delete files and data files as one snapshot. */
  public static void commit(Table table, List<DeleteFile> deletes, List<DataFile> files) {
    RowDelta delta = table.newRowDelta();
    deletes.forEach(delta::addDeletes);
    files.forEach(delta::addRows);
    delta.commit();
  }

  /** A row or key of values, NULLs allowed (unlike {@link List#of}). */
  public static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  private static OutputFileFactory files(Table table) {
    return OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
  }

  private static GenericRecord partitionKey(PartitionSpec spec, Object... values) {
    if (values.length != spec.fields().size()) {
      throw new IllegalArgumentException(
          "Cannot write to spec " + spec.specId() + ": " + values.length + " partition values for "
              + spec.fields().size() + " fields");
    }
    if (spec.isUnpartitioned()) {
      return null;
    }
    GenericRecord key = GenericRecord.create(spec.partitionType());
    for (int i = 0; i < values.length; i++) {
      key.set(i, values[i]);
    }
    return key;
  }
}
