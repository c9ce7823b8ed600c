package io.floe.spark.read;

import io.floe.spark.read.exec.ReadSettings;
import io.floe.spark.read.exec.TaskConstantsRowReader;
import io.floe.spark.read.plan.ChangeTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * What every executor needs to read a partition of a changelog scan: the settings of the file
 * columns' reads, and which change columns follow them. It reads rows (never columnar batches),
 * each file's rows followed by the change columns its task carries. It never plans and never calls
 * a catalog.
 */
public final class ChangelogReaderFactory implements PartitionReaderFactory {
  private final ReadSettings settings;
  private final List<String> changeColumns;

  /**
   * @param settings the read of the file columns; its read schema has no change column
   * @param changeColumns the change columns after the file columns, in order: names out of {@code
   *     _change_type}, {@code _change_ordinal}, {@code _commit_snapshot_id}
   */
  public ChangelogReaderFactory(ReadSettings settings, List<String> changeColumns) {
    this.settings = Objects.requireNonNull(settings, "settings is null");
    this.changeColumns = List.copyOf(Objects.requireNonNull(changeColumns, "changeColumns is null"));
    for (String column : this.changeColumns) {
      if (!ChangelogScanBuilder.CHANGE_COLUMNS.contains(column)) {
        throw new IllegalArgumentException(
            "Cannot read the changelog " + settings.tableName() + ": not a change column: " + column);
      }
    }
  }

  public ReadSettings settings() {
    return settings;
  }

  public List<String> changeColumns() {
    return changeColumns;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    if (!(partition instanceof ChangelogInputPartition)) {
      throw new IllegalArgumentException(
          "Cannot read " + settings.tableName() + ": not a changelog input partition: " + partition);
    }
    List<ChangeTask> tasks = ((ChangelogInputPartition) partition).tasks();
    List<FileScanTask> files = new ArrayList<>(tasks.size());
    List<InternalRow> constants = new ArrayList<>(tasks.size());
    List<List<DeleteFile>> deletedAfter = new ArrayList<>(tasks.size());
    for (ChangeTask task : tasks) {
      files.add(task.file());
      constants.add(constants(task));
      deletedAfter.add(task.deletedAfter());
    }
    return new TaskConstantsRowReader(settings, files, constants, deletedAfter);
  }

  private InternalRow constants(ChangeTask task) {
    Object[] values = new Object[changeColumns.size()];
    for (int i = 0; i < values.length; i++) {
      String column = changeColumns.get(i);
      if (column.equals(MetadataColumns.CHANGE_TYPE.name())) {
        values[i] = UTF8String.fromString(task.changeType());
      } else if (column.equals(MetadataColumns.CHANGE_ORDINAL.name())) {
        values[i] = task.changeOrdinal();
      } else {
        values[i] = task.commitSnapshotId();
      }
    }
    return new GenericInternalRow(values);
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ChangelogReaderFactory)) {
      return false;
    }
    ChangelogReaderFactory that = (ChangelogReaderFactory) other;
    return settings.equals(that.settings) && changeColumns.equals(that.changeColumns);
  }

  @Override
  public int hashCode() {
    return Objects.hash(settings, changeColumns);
  }

  @Override
  public String toString() {
    return "ChangelogReaderFactory{settings=" + settings + ", changeColumns=" + changeColumns + "}";
  }
}
