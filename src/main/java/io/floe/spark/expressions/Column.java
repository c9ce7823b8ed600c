package io.floe.spark.expressions;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.expressions.Cast;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.types.DataTypes;

/**
 * A table column that one side of a Spark predicate reads, resolved against the Iceberg schema.
 *
 * @param name the column's full dotted name, spelled as in the schema
 * @param type the column's Iceberg type
 * @param nullable whether a row can hold NULL here: the field or one of its parents is optional
 */
record Column(String name, Type type, boolean nullable) {

  Column {
    Objects.requireNonNull(name, "name is null");
    Objects.requireNonNull(type, "type is null");
  }

  /**
   * Resolves a predicate operand that reads a column without changing its values: a column
   * reference, or a reference widened from int to bigint (every int compares against a bigint
   * literal exactly as the bigint of the same value does, so the cast can be left out).
   *
   * @return the column, or empty when the operand is anything else or names no column
   */
  static Optional<Column> resolve(Expression operand, Schema schema, boolean caseSensitive) {
    if (operand instanceof NamedReference ref) {
      return resolve(ref, schema, caseSensitive);
    }
    if (operand instanceof Cast cast && cast.expression() instanceof NamedReference ref) {
      return resolve(ref, schema, caseSensitive).filter(column -> isIntToBigint(cast, column));
    }
    return Optional.empty();
  }

  /** Resolves a column reference whose path runs through struct fields only. */
  static Optional<Column> resolve(NamedReference ref, Schema schema, boolean caseSensitive) {
    String[] path = ref.fieldNames();
    if (path.length == 0) {
      return Optional.empty();
    }
    Types.StructType struct = schema.asStruct();
    StringBuilder name = new StringBuilder();
    boolean nullable = false;
    Types.NestedField field = null;
    for (String part : path) {
      if (struct == null) {
        return Optional.empty();
      }
      Optional<Types.NestedField> found = findField(struct, part, caseSensitive);
      if (found.isEmpty()) {
        return Optional.empty();
      }
      field = found.get();
      nullable |= field.isOptional();
      if (name.length() > 0) {
        name.append('.');
      }
      name.append(field.name());
      struct = field.type().isStructType() ? field.type().asStructType() : null;
    }
    // a name containing dots could also spell another field's path; Iceberg binds by the
    // dotted name, so it must lead back to the same field
    Types.NestedField byName = schema.findField(name.toString());
    if (byName == null || byName.fieldId() != field.fieldId()) {
      return Optional.empty();
    }
    // a variant column's file metrics say nothing reliable about its values (nor, once shredded,
    // about its NULLs): no predicate on it converts, so Spark alone evaluates it
    if (field.type().isVariantType()) {
      return Optional.empty();
    }
    return Optional.of(new Column(name.toString(), field.type(), nullable));
  }

  private static Optional<Types.NestedField> findField(
      Types.StructType struct, String name, boolean caseSensitive) {
    if (caseSensitive) {
      return Optional.ofNullable(struct.field(name));
    }
    List<Types.NestedField> matches =
        struct.fields().stream().filter(field -> field.name().equalsIgnoreCase(name)).toList();
    return matches.size() == 1 ? Optional.of(matches.get(0)) : Optional.empty();
  }

  private static boolean isIntToBigint(Cast cast, Column column) {
    return column.type().typeId() == Type.TypeID.INTEGER
        && DataTypes.LongType.equals(cast.dataType())
        && (cast.expressionDataType() == null
            || DataTypes.IntegerType.equals(cast.expressionDataType()));
  }

  boolean isFloatingPoint() {
    return type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE;
  }
}
