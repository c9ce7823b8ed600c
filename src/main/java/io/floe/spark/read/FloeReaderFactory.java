package io.floe.spark.read;

import io.floe.spark.read.exec.ColumnarSupport;
import io.floe.spark.read.exec.FloeColumnarReader;
import io.floe.spark.read.exec.FloeRowReader;
import io.floe.spark.read.exec.PositionDeletesReader;
import io.floe.spark.read.exec.ReadSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PositionDeletesScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * What every executor needs to read any partition of a scan: the FileIO, the schemas the driver
 * planned against, and the reader settings. It only picks a reader and hands it the scan's {@link
 * ReadSettings} and the partition's tasks: columnar when vectorization is enabled and {@link
 * ColumnarSupport} accepts the read schema (for a scan of ORC files only, nested columns too), else
 * rows, and always rows for the delete-file tasks of a {@code position_deletes} scan. It never
 * plans and never calls a catalog. The choice depends on the schema, the kind of scan and what the
 * driver found of all its tasks only, so every partition of a scan agrees, as Spark requires.
 */
public final class FloeReaderFactory implements PartitionReaderFactory {
  private final ReadSettings settings;
  private final boolean vectorizationEnabled;
  private final boolean orcOnly;

  /**
   * @param settings what every reader of the scan needs
   * @param vectorizationEnabled whether Parquet may be read into columnar batches
   */
  public FloeReaderFactory(ReadSettings settings, boolean vectorizationEnabled) {
    this(settings, vectorizationEnabled, false);
  }

  /**
   * @param settings what every reader of the scan needs
   * @param vectorizationEnabled whether data files may be read into columnar batches
   * @param orcOnly whether the driver found every task of the scan to be an ORC data file read
   *     in ORC's vectors ({@link ColumnarSupport#supportsOrcScan}), which lets nested columns be
   *     read as columnar batches too
   */
  public FloeReaderFactory(ReadSettings settings, boolean vectorizationEnabled, boolean orcOnly) {
    this.settings = Objects.requireNonNull(settings, "settings is null");
    this.vectorizationEnabled = vectorizationEnabled;
    this.orcOnly = orcOnly;
  }

  public ReadSettings settings() {
    return settings;
  }

  public boolean vectorizationEnabled() {
    return vectorizationEnabled;
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
        && (ColumnarSupport.supportsScan(settings.readSchema()) || orcOnly)
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
          "Cannot read " + settings.tableName() + " as columnar batches: the scan is read as rows");
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
          "Cannot read " + settings.tableName() + ": not a Floe input partition: " + partition);
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
        && orcOnly == that.orcOnly
        && settings.equals(that.settings);
  }

  @Override
  public int hashCode() {
    return Objects.hash(settings, vectorizationEnabled, orcOnly);
  }

  @Override
  public String toString() {
    return "FloeReaderFactory{settings=" + settings + ", vectorizationEnabled=" + vectorizationEnabled
        + (orcOnly ? ", orcOnly=true" : "") + "}";
  }
}
