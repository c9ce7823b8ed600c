package io.floe.spark.write.exec;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * Shows a Spark row to Iceberg's {@link org.apache.iceberg.PartitionKey} as a {@link StructLike}
 * of the table schema, converting only the columns the partition transforms read (and the structs
 * that hold them) to Iceberg's internal values: days as {@code Integer}, microseconds as {@code
 * Long}, strings as {@code String}, binary and fixed as {@code ByteBuffer}, decimals as {@code
 * BigDecimal}, uuids as {@link UUID}. Any other column reads as NULL.
 *
 * <p>One instance is reused for every row of a task ({@link #wrap}); it holds no copy of the row.
 */
final class PartitionSourceRow implements StructLike {
  private final Getter[] getters;
  private InternalRow row;

  private PartitionSourceRow(Types.StructType struct, Set<Integer> needed, String column) {
    List<Types.NestedField> fields = struct.fields();
    this.getters = new Getter[fields.size()];
    for (int i = 0; i < getters.length; i += 1) {
      Types.NestedField field = fields.get(i);
      String path = column.isEmpty() ? field.name() : column + "." + field.name();
      getters[i] = needed.contains(field.fieldId()) ? getter(field.type(), needed, path) : null;
    }
  }

  /** The wrapper for rows of {@code schema} written with {@code spec}. */
  static PartitionSourceRow forSpec(Schema schema, PartitionSpec spec) {
    Map<Integer, Integer> parents = TypeUtil.indexParents(schema.asStruct());
    Set<Integer> needed = new HashSet<>();
    for (PartitionField field : spec.fields()) {
      Integer id = field.sourceId();
      while (id != null && schema.findField(id) != null) {
        needed.add(id);
        id = parents.get(id);
      }
    }
    return new PartitionSourceRow(schema.asStruct(), needed, "");
  }

  /**
   * The wrapper for a Spark struct that holds values of {@code struct} itself, every field
   * converted: a partition tuple as the {@code _partition} metadata column carries it.
   */
  static PartitionSourceRow forStruct(Types.StructType struct) {
    Set<Integer> needed = new HashSet<>();
    for (Types.NestedField field : struct.fields()) {
      needed.add(field.fieldId());
    }
    return new PartitionSourceRow(struct, needed, "");
  }

  /** Points this wrapper at the next row. */
  PartitionSourceRow wrap(InternalRow newRow) {
    this.row = newRow;
    return this;
  }

  @Override
  public int size() {
    return getters.length;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    Getter getter = getters[pos];
    if (getter == null || row.isNullAt(pos)) {
      return null;
    }
    return javaClass.cast(getter.get(row, pos));
  }

  @Override
  public <T> void set(int pos, T value) {
    throw new UnsupportedOperationException("Cannot set a value: the row is read-only");
  }

  private interface Getter {
    Object get(InternalRow row, int pos);
  }

  private static Getter getter(Type type, Set<Integer> needed, String column) {
    switch (type.typeId()) {
      case BOOLEAN:
        return InternalRow::getBoolean;
      case INTEGER:
      case DATE:
        return InternalRow::getInt;
      case LONG:
      case TIMESTAMP:
        return InternalRow::getLong;
      case FLOAT:
        return InternalRow::getFloat;
      case DOUBLE:
        return InternalRow::getDouble;
      case STRING:
        return (row, pos) -> row.getUTF8String(pos).toString();
      case BINARY:
      case FIXED:
        return (row, pos) -> ByteBuffer.wrap(row.getBinary(pos));
      case UUID:
        return (row, pos) -> uuid(row.getUTF8String(pos).toString(), column);
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return (row, pos) -> decimal(row, pos, decimal, column);
      case STRUCT:
        Types.StructType struct = type.asStructType();
        PartitionSourceRow nested = new PartitionSourceRow(struct, needed, column);
        return (row, pos) -> nested.wrap(row.getStruct(pos, struct.fields().size()));
      default:
        return null;
    }
  }

  private static BigDecimal decimal(
      InternalRow row, int pos, Types.DecimalType type, String column) {
    BigDecimal value = row.getDecimal(pos, type.precision(), type.scale()).toJavaBigDecimal();
    if (value.scale() == type.scale()) {
      // a value with too many digits is refused by the Parquet writer, naming the column
      return value;
    }
    try {
      return value.setScale(type.scale(), RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot write %s into column '%s' of type decimal(%d, %d): scale %d would lose digits",
              value.toPlainString(), column, type.precision(), type.scale(), value.scale()),
          e);
    }
  }

  /** The UUID a string names; a string that names none fails naming the value and the column. */
  static UUID uuid(String text, String column) {
    try {
      return UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot write '%s' into column '%s' of type uuid: not a valid UUID", text, column),
          e);
    }
  }
}
