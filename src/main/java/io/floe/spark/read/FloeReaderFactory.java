package io.floe.spark.read;

import io.floe.spark.read.exec.ColumnarSupport;
import io.floe.spark.read.exec.FloeColumnarReader;
import io.floe.spark.read.exec.FloeRowReader;
import io.floe.spark.read.exec.PositionDeletesReader;
import io.floe.spark.read.exec.ReadSettings;
import io.floe.spark.util.PlanValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PositionDeletesScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * What every executor needs to read any partition of a scan: the FileIO, the schemas the driver
 * planned against, and the reader settings. It only picks a reader and hands it the scan's {@link
 * ReadSettings} and the partition's tasks: columnar when vectorization is enabled and {@link
 * ColumnarSupport} accepts the read schema, else rows, and always rows for the delete-file tasks
 * of a {@code position_deletes} scan. It never plans and never calls a catalog. The choice depends
 * on the schema and the kind of scan only, so every partition of a scan agrees, as Spark requires.
 */
public final class FloeReaderFactory implements PartitionReaderFactory {
  private final ReadSettings settings;
  private final boolean vectorizationEnabled;

  /**
   * @param tableName the table's name, for messages
   * @param io the table's FileIO, which opens data and delete files
   * @param tableSchema the schema the tasks were planned with (delete files resolve against it)
   * @param readSchema the projected schema to produce, metadata columns included
   * @param caseSensitive whether residual filters bind case-sensitively
   * @param vectorizationEnabled whether Parquet may be read into columnar batches
   * @param batchSize the most rows in one columnar batch
   * @param prefetchFiles files a reader opens ahead of the one it reads; 0 disables prefetching
   * @param nameMapping the table's name mapping ({@code schema.name-mapping.default}) for files
   *     written without field ids, or null
   */
  public FloeReaderFactory(
      String tableName,
      FileIO io,
      Schema tableSchema,
      Schema readSchema,
      boolean caseSensitive,
      boolean vectorizationEnabled,
      int batchSize,
      int prefetchFiles,
      NameMapping nameMapping) {
    this.settings =
        new ReadSettings(
            tableName, io, tableSchema, readSchema, caseSensitive, batchSize, prefetchFiles,
            nameMapping);
    this.vectorizationEnabled = vectorizationEnabled;
  }

  public String tableName() {
    return settings.tableName();
  }

  public FileIO io() {
    return settings.io();
  }

  public Schema tableSchema() {
    return settings.tableSchema();
  }

  public Schema readSchema() {
    return settings.readSchema();
  }

  public boolean caseSensitive() {
    return settings.caseSensitive();
  }

  public boolean vectorizationEnabled() {
    return vectorizationEnabled;
  }

  public int batchSize() {
    return settings.batchSize();
  }

  public int prefetchFiles() {
    return settings.prefetchFiles();
  }

  public NameMapping nameMapping() {
    return settings.nameMapping();
  }

  /**
   * Whether the partition is read as columnar batches: the one place a read decides it. Yes when
   * vectorization is enabled (the resolved option {@code vectorization-enabled}), {@link
   * ColumnarSupport} accepts the read schema and the partition holds file tasks, not the
   * delete-file tasks of a {@code position_deletes} scan.
   */
  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return vectorizationEnabled
        && ColumnarSupport.supportsScan(settings.readSchema())
        && !deleteFileTasks(floePartition(partition));
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    FloeInputPartition floePartition = floePartition(partition);
    if (deleteFileTasks(floePartition)) {
      List<PositionDeletesScanTask> tasks = new ArrayList<>(floePartition.tasks().size());
      floePartition.tasks().forEach(task -> tasks.add((PositionDeletesScanTask) task));
      return new PositionDeletesReader(settings, tasks);
    }
    return new FloeRowReader(settings, fileTasks(floePartition));
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    FloeInputPartition floePartition = floePartition(partition);
    if (!supportColumnarReads(floePartition)) {
      throw new UnsupportedOperationException(
          "Cannot read " + tableName() + " as columnar batches: the scan is read as rows");
    }
    return new FloeColumnarReader(settings, fileTasks(floePartition));
  }

  /** Whether the partition holds the delete-file tasks of a {@code position_deletes} scan. */
  static boolean deleteFileTasks(FloeInputPartition partition) {
    return !partition.tasks().isEmpty()
        && partition.tasks().get(0) instanceof PositionDeletesScanTask;
  }

  private static List<FileScanTask> fileTasks(FloeInputPartition partition) {
    List<FileScanTask> tasks = new ArrayList<>(partition.tasks().size());
    for (ScanTask task : partition.tasks()) {
      tasks.add(task.asFileScanTask());
    }
    return tasks;
  }

  private FloeInputPartition floePartition(InputPartition partition) {
    if (!(partition instanceof FloeInputPartition)) {
      throw new IllegalArgumentException(
          "Cannot read " + tableName() + ": not a Floe input partition: " + partition);
    }
    return (FloeInputPartition) partition;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeReaderFactory)) {
      return false;
    }
    FloeReaderFactory that = (FloeReaderFactory) other;
    return vectorizationEnabled == that.vectorizationEnabled
        && caseSensitive() == that.caseSensitive()
        && batchSize() == that.batchSize()
        && prefetchFiles() == that.prefetchFiles()
        && tableName().equals(that.tableName())
        && PlanValues.sameIo(io(), that.io())
        && tableSchema().sameSchema(that.tableSchema())
        && readSchema().sameSchema(that.readSchema())
        && Objects.equals(mappedFields(), that.mappedFields());
  }

  private Object mappedFields() {
    return nameMapping() == null ? null : nameMapping().asMappedFields();
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        tableName(), PlanValues.ioHash(io()), PlanValues.schemaHash(tableSchema()),
        PlanValues.schemaHash(readSchema()), caseSensitive(), vectorizationEnabled, batchSize(),
        prefetchFiles());
  }

  @Override
  public String toString() {
    return "FloeReaderFactory{table="
        + tableName()
        + ", io="
        + PlanValues.describeIo(io())
        + ", readSchema="
        + readSchema().asStruct()
        + ", caseSensitive="
        + caseSensitive()
        + ", vectorizationEnabled="
        + vectorizationEnabled
        + ", batchSize="
        + batchSize()
        + ", prefetchFiles="
        + prefetchFiles()
        + ", nameMapping="
        + (nameMapping() != null)
        + "}";
  }
}
