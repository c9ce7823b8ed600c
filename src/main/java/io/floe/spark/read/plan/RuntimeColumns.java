package io.floe.spark.read.plan;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Which data columns a runtime filter may prune a scan's files by: top-level primitive columns the
 * scan reads, whose metrics the scan may trust, and for which some planned file records both a
 * lower and an upper bound (a column under metrics mode {@code none} or {@code counts} has none).
 *
 * <p>Nanosecond timestamps and times, which Spark has no type for, never qualify. Timestamp columns
 * qualify only when every planned file was added by a write of Floe's
 * or of the official Spark runtime's, the rule {@link MetadataAggregates} follows for the same
 * reason: bounds Iceberg computed for an imported file that stores {@code TIMESTAMP(MILLIS)} are
 * the milliseconds read as microseconds, and nothing in the manifest tells them apart.
 */
final class RuntimeColumns {
  private RuntimeColumns() {}

  /**
   * Field ids of the read columns whose bounds the planner keeps for a runtime filter.
   *
   * @param planningSchema the schema of the snapshot planned
   * @param readSchema the projected columns
   * @param ignoredMetrics field ids of the columns whose metrics the scan must not trust
   */
  static List<Integer> candidates(
      Schema planningSchema, Schema readSchema, Set<Integer> ignoredMetrics) {
    List<Integer> ids = new ArrayList<>();
    for (Types.NestedField field : readSchema.columns()) {
      if (field.type().isPrimitiveType()
          && field.type().typeId() != Type.TypeID.TIMESTAMP_NANO
          && field.type().typeId() != Type.TypeID.TIME
          && !MetadataColumns.isMetadataColumn(field.fieldId())
          && !ignoredMetrics.contains(field.fieldId())
          && planningSchema.findField(field.fieldId()) != null
          && planningSchema.findField(field.fieldId()).type().equals(field.type())) {
        ids.add(field.fieldId());
      }
    }
    return ids;
  }

  /** The candidates that some planned file has bounds for and whose bounds can be trusted. */
  static Set<Integer> withBounds(
      Table table, List<Integer> candidates, Schema planningSchema, List<FileScanTask> tasks) {
    Set<Integer> result = new LinkedHashSet<>();
    Boolean temporalTrusted = null;
    for (int fieldId : candidates) {
      if (!anyBounds(fieldId, tasks)) {
        continue;
      }
      if (planningSchema.findField(fieldId).type().typeId() == Type.TypeID.TIMESTAMP) {
        if (temporalTrusted == null) {
          temporalTrusted = MetadataAggregates.allAddedByWriters(table, dataFileTasks(tasks));
        }
        if (!temporalTrusted) {
          continue;
        }
      }
      result.add(fieldId);
    }
    return result;
  }

  private static boolean anyBounds(int fieldId, List<FileScanTask> tasks) {
    for (FileScanTask task : tasks) {
      if (!task.isDataTask()
          && has(task.file().lowerBounds(), fieldId)
          && has(task.file().upperBounds(), fieldId)) {
        return true;
      }
    }
    return false;
  }

  private static boolean has(Map<Integer, ByteBuffer> bounds, int fieldId) {
    return bounds != null && bounds.get(fieldId) != null;
  }

  private static List<FileScanTask> dataFileTasks(List<FileScanTask> tasks) {
    List<FileScanTask> files = new ArrayList<>();
    for (FileScanTask task : tasks) {
      if (!task.isDataTask() && task.file().recordCount() != 0) {
        files.add(task);
      }
    }
    return files;
  }
}
