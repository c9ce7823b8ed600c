package io.floe.spark.types;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** Restricts an Iceberg schema to a pruned Spark read schema; see {@link SparkSchemas#prune}. */
final class SchemaPruning {
  private final boolean caseSensitive;

  private SchemaPruning(boolean caseSensitive) {
    this.caseSensitive = caseSensitive;
  }

  static Schema prune(Schema schema, StructType requested, boolean caseSensitive) {
    SchemaPruning pruning = new SchemaPruning(caseSensitive);
    List<Types.NestedField> fields = new ArrayList<>(requested.fields().length);
    for (StructField requestedField : requested.fields()) {
      String name = requestedField.name();
      Types.NestedField field = pruning.find(schema.asStruct(), name, name);
      if (field == null && MetadataColumns.isMetadataColumn(name)) {
        continue;
      }
      fields.add(pruning.pruneField(field, requestedField, name));
    }
    return new Schema(fields);
  }

  private Types.StructType pruneStruct(Types.StructType struct, StructType requested, String path) {
    List<Types.NestedField> fields = new ArrayList<>(requested.fields().length);
    for (StructField requestedField : requested.fields()) {
      String fieldPath = ColumnPaths.child(path, requestedField.name());
      fields.add(
          pruneField(find(struct, requestedField.name(), fieldPath), requestedField, fieldPath));
    }
    return Types.StructType.of(fields);
  }

  private Types.NestedField pruneField(
      Types.NestedField field, StructField requested, String path) {
    if (field == null) {
      throw new IllegalArgumentException(
          String.format("Cannot select column '%s': not found in the table schema", path));
    }
    Type pruned = pruneType(field.type(), requested.dataType(), path);
    return pruned == field.type() ? field : Types.NestedField.from(field).ofType(pruned).build();
  }

  private Type pruneType(Type type, DataType requested, String path) {
    if (requested instanceof StructType struct) {
      checkShape(type.isStructType(), type, requested, path);
      return pruneStruct(type.asStructType(), struct, path);
    } else if (requested instanceof ArrayType array) {
      checkShape(type.isListType(), type, requested, path);
      Types.ListType list = type.asListType();
      Type element = pruneType(list.elementType(), array.elementType(), ColumnPaths.element(path));
      if (element == list.elementType()) {
        return list;
      }
      return list.isElementOptional()
          ? Types.ListType.ofOptional(list.elementId(), element)
          : Types.ListType.ofRequired(list.elementId(), element);
    } else if (requested instanceof MapType mapType) {
      checkShape(type.isMapType(), type, requested, path);
      // Spark prunes map values only; keys are always read whole.
      Types.MapType map = type.asMapType();
      Type value = pruneType(map.valueType(), mapType.valueType(), ColumnPaths.value(path));
      if (value == map.valueType()) {
        return map;
      }
      return map.isValueOptional()
          ? Types.MapType.ofOptional(map.keyId(), map.valueId(), map.keyType(), value)
          : Types.MapType.ofRequired(map.keyId(), map.valueId(), map.keyType(), value);
    }
    return type;
  }

  private static void checkShape(boolean matches, Type type, DataType requested, String path) {
    if (!matches) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot select column '%s': requested %s but the table column is %s",
              path, requested.simpleString(), type));
    }
  }

  private Types.NestedField find(Types.StructType struct, String name, String path) {
    Types.NestedField exact = struct.field(name);
    if (caseSensitive || exact != null) {
      return exact;
    }
    Types.NestedField match = null;
    for (Types.NestedField field : struct.fields()) {
      if (field.name().equalsIgnoreCase(name)) {
        if (match != null) {
          throw new IllegalArgumentException(
              String.format(
                  "Cannot select column '%s': ambiguous, matches both '%s' and '%s'",
                  path, match.name(), field.name()));
        }
        match = field;
      }
    }
    return match;
  }
}
