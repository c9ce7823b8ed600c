package io.floe.spark.write.exec;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Accessor;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;

/**
 * Refuses rows whose {@code truncate} partition value Iceberg computes wrongly.
 *
 * <p>Iceberg's truncate of an int or bigint rounds down to a multiple of the width, and within one
 * width of the type's minimum the subtraction overflows: {@code truncate(10, -2147483647)} is
 * {@code 2147483646}. A file with that partition value is pruned away by filters such as {@code i <
 * 0}, so the row would silently vanish from filtered reads. A rounded-down value is never larger
 * than the value it came from, so a larger one is the overflow, and the write fails naming the
 * column instead of writing a row that reads back wrong.
 */
final class TruncateOverflowCheck {
  private final String tableName;
  private final List<Guard> guards;

  private record Guard(int position, String column, Accessor<StructLike> source) {}

  private TruncateOverflowCheck(String tableName, List<Guard> guards) {
    this.tableName = tableName;
    this.guards = guards;
  }

  /** The check for a spec, or null when no field truncates an int or bigint column. */
  static TruncateOverflowCheck forSpec(String tableName, PartitionSpec spec, Schema schema) {
    List<Guard> guards = new ArrayList<>();
    List<PartitionField> fields = spec.fields();
    for (int position = 0; position < fields.size(); position += 1) {
      PartitionField field = fields.get(position);
      Type.TypeID source = schema.findType(field.sourceId()).typeId();
      boolean integral = source == Type.TypeID.INTEGER || source == Type.TypeID.LONG;
      if (integral && field.transform().toString().startsWith("truncate[")) {
        guards.add(
            new Guard(
                position,
                schema.findColumnName(field.sourceId()),
                schema.accessorForField(field.sourceId())));
      }
    }
    return guards.isEmpty() ? null : new TruncateOverflowCheck(tableName, guards);
  }

  /** Fails when a truncated value of the row came out larger than the value itself. */
  void check(StructLike row, StructLike key) {
    for (Guard guard : guards) {
      Object value = guard.source().get(row);
      Object truncated = key.get(guard.position(), Object.class);
      if (value != null
          && truncated != null
          && ((Number) truncated).longValue() > ((Number) value).longValue()) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot write to %s: the truncate partition value of column %s for %s overflows"
                    + " (Iceberg's truncate wraps around within one width of the type's minimum),"
                    + " and the row would be missed by filtered reads",
                tableName, guard.column(), value));
      }
    }
  }
}
