package io.floe.spark.types;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VariantType;

/**
 * Converts schemas between Iceberg and Spark.
 *
 * <p>Iceberg to Spark keeps nullability (optional fields, elements and values become nullable) and
 * turns field docs into Spark column comments. Spark to Iceberg assigns fresh, consecutive field
 * ids in the order Iceberg uses for a new table. Types that have no counterpart on the other side
 * are rejected with an {@link IllegalArgumentException} that names the column and the type; no
 * conversion ever drops or approximates a column silently.
 *
 * <p>{@link #prune} restricts a table schema to the columns Spark asked for, keeping Iceberg's field
 * ids so that data files are read by id.
 */
public final class SparkSchemas {
  private SparkSchemas() {}

  /**
   * Converts an Iceberg schema to a Spark struct.
   *
   * <p>{@code timestamp_ns} and {@code timestamptz_ns} become Spark's microsecond timestamps (their
   * values are truncated toward negative infinity on read); {@code unknown} becomes Spark's NullType;
   * {@code variant} becomes Spark's VariantType.
   *
   * @throws IllegalArgumentException if a column has a type Spark cannot represent (time, geometry,
   *     geography)
   */
  public static StructType toSpark(Schema schema) {
    Objects.requireNonNull(schema, "schema is null");
    return (StructType) toSpark(schema.asStruct(), "");
  }

  /**
   * Converts an Iceberg type to a Spark type.
   *
   * @throws IllegalArgumentException if the type, or a type nested in it, has no Spark counterpart
   */
  public static DataType toSpark(Type type) {
    Objects.requireNonNull(type, "type is null");
    return toSpark(type, "");
  }

  /**
   * Converts a Spark struct to an Iceberg schema with fresh field ids assigned from 1, top-level
   * fields first, as Iceberg does for a new table.
   *
   * @throws IllegalArgumentException if a column has a type Iceberg cannot store; the message names
   *     the column path and the Spark type
   */
  public static Schema toIceberg(StructType struct) {
    Objects.requireNonNull(struct, "struct is null");
    Type converted = new ToIceberg().convert(struct, "");
    return TypeUtil.assignIncreasingFreshIds(new Schema(converted.asStructType().fields()));
  }

  /**
   * Converts a Spark type to an Iceberg type; nested fields get fresh ids assigned from 1.
   *
   * @throws IllegalArgumentException if the type, or a type nested in it, cannot be stored by
   *     Iceberg
   */
  public static Type toIceberg(DataType type) {
    Objects.requireNonNull(type, "type is null");
    Type converted = new ToIceberg().convert(type, "");
    AtomicInteger lastId = new AtomicInteger(0);
    return TypeUtil.assignFreshIds(converted, lastId::incrementAndGet);
  }

  /**
   * Restricts an Iceberg schema to the columns Spark requested, keeping Iceberg's field ids, names,
   * docs and nullability, in the order of {@code requested}.
   *
   * <p>Nested structs are pruned field by field, including the element struct of a list and the
   * value struct of a map. Top-level names of Iceberg metadata columns ({@code _file}, {@code _pos},
   * {@code _spec_id}, {@code _partition}, {@code _deleted}, ...) that are not table columns are
   * skipped: the caller adds those columns itself.
   *
   * @param schema the table schema
   * @param requested the schema Spark asked for after column pruning
   * @param caseSensitive whether names in {@code requested} must match the case of table columns
   * @throws IllegalArgumentException if a requested column is not in the table schema, matches more
   *     than one column case-insensitively, or has a different shape (struct, array, map)
   */
  public static Schema prune(Schema schema, StructType requested, boolean caseSensitive) {
    Objects.requireNonNull(schema, "schema is null");
    Objects.requireNonNull(requested, "requested is null");
    return SchemaPruning.prune(schema, requested, caseSensitive);
  }

  private static DataType toSpark(Type type, String path) {
    switch (type.typeId()) {
      case BOOLEAN:
        return DataTypes.BooleanType;
      case INTEGER:
        return DataTypes.IntegerType;
      case LONG:
        return DataTypes.LongType;
      case FLOAT:
        return DataTypes.FloatType;
      case DOUBLE:
        return DataTypes.DoubleType;
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return DataTypes.createDecimalType(decimal.precision(), decimal.scale());
      case DATE:
        return DataTypes.DateType;
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC()
            ? DataTypes.TimestampType
            : DataTypes.TimestampNTZType;
      case TIMESTAMP_NANO:
        // Spark has no nanosecond type: read as microseconds, truncated toward negative infinity
        return ((Types.TimestampNanoType) type).shouldAdjustToUTC()
            ? DataTypes.TimestampType
            : DataTypes.TimestampNTZType;
      case UNKNOWN:
        return DataTypes.NullType;
      case VARIANT:
        return DataTypes.VariantType;
      case STRING:
      case UUID:
        return DataTypes.StringType;
      case FIXED:
      case BINARY:
        return DataTypes.BinaryType;
      case STRUCT:
        return structToSpark(type.asStructType(), path);
      case LIST:
        Types.ListType list = type.asListType();
        return DataTypes.createArrayType(
            toSpark(list.elementType(), ColumnPaths.element(path)), list.isElementOptional());
      case MAP:
        Types.MapType map = type.asMapType();
        return DataTypes.createMapType(
            toSpark(map.keyType(), ColumnPaths.key(path)),
            toSpark(map.valueType(), ColumnPaths.value(path)),
            map.isValueOptional());
      default:
        throw new IllegalArgumentException(
            String.format(
                "Cannot convert %s to a Spark type: unsupported type",
                ColumnPaths.describe(path, type.toString())));
    }
  }

  private static StructType structToSpark(Types.StructType struct, String path) {
    List<StructField> fields = new ArrayList<>(struct.fields().size());
    for (Types.NestedField field : struct.fields()) {
      DataType type = toSpark(field.type(), ColumnPaths.child(path, field.name()));
      StructField sparkField = DataTypes.createStructField(field.name(), type, field.isOptional());
      fields.add(field.doc() != null ? sparkField.withComment(field.doc()) : sparkField);
    }
    return DataTypes.createStructType(fields);
  }

  /** Builds Iceberg types with placeholder ids; callers reassign ids in Iceberg's order. */
  private static final class ToIceberg {
    private int lastId = 0;

    Type convert(DataType type, String path) {
      if (type instanceof StructType struct) {
        List<Types.NestedField> fields = new ArrayList<>(struct.fields().length);
        for (StructField field : struct.fields()) {
          String fieldPath = ColumnPaths.child(path, field.name());
          String doc = field.getComment().isDefined() ? field.getComment().get() : null;
          fields.add(
              Types.NestedField.builder()
                  .withId(++lastId)
                  .withName(field.name())
                  .isOptional(field.nullable())
                  .ofType(convert(field.dataType(), fieldPath))
                  .withDoc(doc)
                  .build());
        }
        return Types.StructType.of(fields);
      } else if (type instanceof ArrayType array) {
        int elementId = ++lastId;
        Type element = convert(array.elementType(), ColumnPaths.element(path));
        return array.containsNull()
            ? Types.ListType.ofOptional(elementId, element)
            : Types.ListType.ofRequired(elementId, element);
      } else if (type instanceof MapType map) {
        int keyId = ++lastId;
        int valueId = ++lastId;
        Type key = convert(map.keyType(), ColumnPaths.key(path));
        Type value = convert(map.valueType(), ColumnPaths.value(path));
        return map.valueContainsNull()
            ? Types.MapType.ofOptional(keyId, valueId, key, value)
            : Types.MapType.ofRequired(keyId, valueId, key, value);
      }
      return primitive(type, path);
    }

    private static Type primitive(DataType type, String path) {
      if (type instanceof BooleanType) {
        return Types.BooleanType.get();
      } else if (type instanceof ByteType
          || type instanceof ShortType
          || type instanceof IntegerType) {
        return Types.IntegerType.get();
      } else if (type instanceof LongType) {
        return Types.LongType.get();
      } else if (type instanceof FloatType) {
        return Types.FloatType.get();
      } else if (type instanceof DoubleType) {
        return Types.DoubleType.get();
      } else if (type instanceof DecimalType decimal) {
        return Types.DecimalType.of(decimal.precision(), decimal.scale());
      } else if (type instanceof DateType) {
        return Types.DateType.get();
      } else if (type instanceof TimestampType) {
        return Types.TimestampType.withZone();
      } else if (type instanceof TimestampNTZType) {
        return Types.TimestampType.withoutZone();
      } else if (type instanceof StringType string) {
        if (!string.isUTF8BinaryCollation()) {
          // Iceberg strings compare by UTF-8 bytes; storing a collated column would silently
          // change how its values compare and sort when read back.
          throw new IllegalArgumentException(
              String.format(
                  "Cannot convert %s to an Iceberg type: unsupported collation %s",
                  ColumnPaths.describe(path, type.simpleString()), string.collationName()));
        }
        return Types.StringType.get();
      } else if (type instanceof BinaryType) {
        return Types.BinaryType.get();
      } else if (type instanceof VariantType) {
        // only v3 tables store it; VariantTypes#requireSupported refuses it for older versions
        return Types.VariantType.get();
      }
      throw new IllegalArgumentException(
          String.format(
              "Cannot convert %s to an Iceberg type: unsupported type",
              ColumnPaths.describe(path, type.simpleString())));
    }
  }
}
