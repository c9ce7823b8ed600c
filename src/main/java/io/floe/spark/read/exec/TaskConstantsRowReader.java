package io.floe.spark.read.exec;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * Reads the file tasks of one input partition, in order, as Spark rows, and appends to every row
 * the constant columns its task carries: the row of the file (projected by field id, deletes
 * applied, as {@link FloeRowReader} reads it) followed by the task's constants. A changelog read
 * uses it to add each file's change type, change ordinal and commit snapshot to the file's rows.
 */
public final class TaskConstantsRowReader implements PartitionReader<InternalRow> {
  private final FloeRowReader rows;
  private final List<InternalRow> constants;
  private final JoinedRow joined = new JoinedRow();
  private InternalRow row;

  /**
   * @param settings what the scan's readers share; its read schema is the file columns only
   * @param tasks the tasks of one input partition, in order, each a distinct instance
   * @param constants for each task, in the same order, the columns appended to its rows
   * @param onlyDeletedBy for each task, in the same order, the position deletes, deletion vectors or
   *     equality deletes whose deleted rows alone are read (of those the task's own deletes leave), or an empty list
   *     to read every row the task's deletes leave
   */
  public TaskConstantsRowReader(
      ReadSettings settings,
      List<FileScanTask> tasks,
      List<InternalRow> constants,
      List<List<DeleteFile>> onlyDeletedBy) {
    Objects.requireNonNull(settings, "settings is null");
    Objects.requireNonNull(tasks, "tasks is null");
    Objects.requireNonNull(constants, "constants is null");
    if (tasks.size() != constants.size()) {
      throw new IllegalArgumentException(
          "Cannot read " + settings.tableName() + ": " + tasks.size() + " tasks but "
              + constants.size() + " rows of constants");
    }
    this.constants = new ArrayList<>(constants);
    this.rows = new FloeRowReader(settings, tasks, onlyDeletedBy);
  }

  @Override
  public boolean next() throws IOException {
    if (!rows.next()) {
      return false;
    }
    // the file rows are read as a plain scan reads them; the task index finds their constants
    row = joined.apply(rows.get(), constants.get(rows.taskIndex()));
    return true;
  }

  @Override
  public InternalRow get() {
    return row;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return rows.currentMetricsValues();
  }

  @Override
  public void close() throws IOException {
    rows.close();
  }
}
