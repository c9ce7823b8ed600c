package io.floe.spark.types;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/** Schemas and Spark rows shared by the tests of this package, generated from a seed. */
final class TestData {
  private TestData() {}

  /** Every primitive type Floe supports, all optional. */
  static Types.StructType primitives(IdSource ids) {
    return Types.StructType.of(
        Types.NestedField.optional(ids.next(), "b", Types.BooleanType.get()),
        Types.NestedField.optional(ids.next(), "i", Types.IntegerType.get()),
        Types.NestedField.optional(ids.next(), "l", Types.LongType.get()),
        Types.NestedField.optional(ids.next(), "f", Types.FloatType.get()),
        Types.NestedField.optional(ids.next(), "d", Types.DoubleType.get()),
        Types.NestedField.optional(ids.next(), "dec", Types.DecimalType.of(9, 2)),
        Types.NestedField.optional(ids.next(), "dec18", Types.DecimalType.of(18, 6)),
        Types.NestedField.optional(ids.next(), "dec38", Types.DecimalType.of(38, 10)),
        Types.NestedField.optional(ids.next(), "date", Types.DateType.get()),
        Types.NestedField.optional(ids.next(), "ts", Types.TimestampType.withZone()),
        Types.NestedField.optional(ids.next(), "ts_ntz", Types.TimestampType.withoutZone()),
        Types.NestedField.optional(ids.next(), "s", Types.StringType.get()),
        Types.NestedField.optional(ids.next(), "u", Types.UUIDType.get()),
        Types.NestedField.optional(ids.next(), "fx", Types.FixedType.ofLength(5)),
        Types.NestedField.optional(ids.next(), "bin", Types.BinaryType.get()));
  }

  /**
   * Every supported type at the top level, inside a struct, as list elements, as map values, and
   * lists and maps nested in each other.
   */
  static Schema allTypes() {
    IdSource ids = new IdSource();
    List<Types.NestedField> fields = new ArrayList<>();
    fields.add(Types.NestedField.required(ids.next(), "id", Types.LongType.get()));
    fields.addAll(primitives(ids).fields());
    fields.add(Types.NestedField.optional(ids.next(), "st", primitives(ids), "a struct"));
    fields.add(
        Types.NestedField.optional(
            ids.next(), "list_st", Types.ListType.ofOptional(ids.next(), primitives(ids))));
    fields.add(
        Types.NestedField.optional(
            ids.next(),
            "map_st",
            Types.MapType.ofOptional(
                ids.next(), ids.next(), Types.StringType.get(), primitives(ids))));
    fields.add(
        Types.NestedField.required(
            ids.next(),
            "list_dec",
            Types.ListType.ofRequired(ids.next(), Types.DecimalType.of(5, 3))));
    fields.add(
        Types.NestedField.optional(
            ids.next(),
            "map_date_ts",
            Types.MapType.ofRequired(
                ids.next(), ids.next(), Types.DateType.get(), Types.TimestampType.withZone())));
    fields.add(
        Types.NestedField.optional(
            ids.next(),
            "list_list",
            Types.ListType.ofOptional(
                ids.next(), Types.ListType.ofOptional(ids.next(), Types.IntegerType.get()))));
    fields.add(
        Types.NestedField.optional(
            ids.next(),
            "map_map",
            Types.MapType.ofOptional(
                ids.next(),
                ids.next(),
                Types.IntegerType.get(),
                Types.MapType.ofOptional(
                    ids.next(), ids.next(), Types.StringType.get(), Types.BinaryType.get()))));
    fields.add(
        Types.NestedField.optional(
            ids.next(),
            "st_st",
            Types.StructType.of(
                Types.NestedField.required(ids.next(), "uuid", Types.UUIDType.get()),
                Types.NestedField.optional(
                    ids.next(),
                    "inner",
                    Types.StructType.of(
                        Types.NestedField.optional(
                            ids.next(),
                            "tags",
                            Types.ListType.ofOptional(ids.next(), Types.StringType.get())))))));
    return new Schema(fields);
  }

  /** A random Spark row of the given Iceberg struct; optional values are NULL one time in five. */
  static InternalRow randomRow(Types.StructType struct, Random random) {
    return (InternalRow) randomValue(struct, random);
  }

  static List<InternalRow> randomRows(Types.StructType struct, long seed, int count) {
    Random random = new Random(seed);
    List<InternalRow> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i += 1) {
      rows.add(randomRow(struct, random));
    }
    return rows;
  }

  private static Object maybeNull(Type type, boolean optional, Random random) {
    return optional && random.nextInt(5) == 0 ? null : randomValue(type, random);
  }

  private static Object randomValue(Type type, Random random) {
    switch (type.typeId()) {
      case BOOLEAN:
        return random.nextBoolean();
      case INTEGER:
        return random.nextInt();
      case LONG:
        return random.nextLong();
      case FLOAT:
        return (random.nextFloat() - 0.5f) * 1e6f;
      case DOUBLE:
        return (random.nextDouble() - 0.5) * 1e12;
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        BigInteger unscaled = new BigInteger(decimal.precision() * 3, random);
        while (unscaled.toString().length() > decimal.precision()) {
          unscaled = unscaled.shiftRight(1);
        }
        BigDecimal value = new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate());
        return Decimal.apply(
            value.movePointLeft(decimal.scale()), decimal.precision(), decimal.scale());
      case DATE:
        // about 1422 to 2517
        return random.nextInt(400_000) - 200_000;
      case TIMESTAMP:
        // about 1843 to 2096
        return (long) ((random.nextDouble() - 0.5) * 8e15);
      case STRING:
        return UTF8String.fromString(randomString(random));
      case UUID:
        return UTF8String.fromString(new UUID(random.nextLong(), random.nextLong()).toString());
      case FIXED:
        return randomBytes(random, ((Types.FixedType) type).length());
      case BINARY:
        return randomBytes(random, random.nextInt(12));
      case STRUCT:
        List<Types.NestedField> fields = type.asStructType().fields();
        Object[] values = new Object[fields.size()];
        for (int i = 0; i < values.length; i += 1) {
          values[i] = maybeNull(fields.get(i).type(), fields.get(i).isOptional(), random);
        }
        return new GenericInternalRow(values);
      case LIST:
        Types.ListType list = type.asListType();
        Object[] elements = new Object[random.nextInt(4)];
        for (int i = 0; i < elements.length; i += 1) {
          elements[i] = maybeNull(list.elementType(), list.isElementOptional(), random);
        }
        return new GenericArrayData(elements);
      case MAP:
        Types.MapType map = type.asMapType();
        Set<Object> keys = new LinkedHashSet<>();
        int size = random.nextInt(4);
        while (keys.size() < size) {
          keys.add(randomValue(map.keyType(), random));
        }
        Object[] mapValues = new Object[size];
        for (int i = 0; i < size; i += 1) {
          mapValues[i] = maybeNull(map.valueType(), map.isValueOptional(), random);
        }
        return new ArrayBasedMapData(
            new GenericArrayData(keys.toArray()), new GenericArrayData(mapValues));
      default:
        throw new IllegalArgumentException("No test values for " + type);
    }
  }

  private static String randomString(Random random) {
    int[] alphabet = "abcXYZ019 _-éßж日本🙂".codePoints().toArray();
    StringBuilder builder = new StringBuilder();
    int length = random.nextInt(10);
    for (int i = 0; i < length; i += 1) {
      builder.appendCodePoint(alphabet[random.nextInt(alphabet.length)]);
    }
    return builder.toString();
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /**
   * Spark internal values as plain Java values that compare with {@code equals}: rows and arrays
   * become lists, maps become maps, bytes become hex, decimals become BigDecimal (scale included),
   * UTF8String becomes String.
   */
  static Object toJava(Object value, DataType type) {
    if (value == null) {
      return null;
    } else if (type instanceof StructType struct) {
      InternalRow row = (InternalRow) value;
      List<Object> fields = new ArrayList<>();
      for (int i = 0; i < struct.fields().length; i += 1) {
        DataType fieldType = struct.fields()[i].dataType();
        fields.add(row.isNullAt(i) ? null : toJava(row.get(i, fieldType), fieldType));
      }
      return fields;
    } else if (type instanceof ArrayType arrayType) {
      return toJavaList((ArrayData) value, arrayType.elementType());
    } else if (type instanceof MapType mapType) {
      MapData map = (MapData) value;
      List<Object> keys = toJavaList(map.keyArray(), mapType.keyType());
      List<Object> values = toJavaList(map.valueArray(), mapType.valueType());
      Map<Object, Object> result = new LinkedHashMap<>();
      for (int i = 0; i < keys.size(); i += 1) {
        result.put(keys.get(i), values.get(i));
      }
      return result;
    } else if (type instanceof BinaryType) {
      return HexFormat.of().formatHex((byte[]) value);
    } else if (value instanceof Decimal decimal) {
      return decimal.toJavaBigDecimal();
    } else if (value instanceof UTF8String string) {
      return string.toString();
    }
    return value;
  }

  /** {@link #toJava} for each row. */
  static List<Object> toJava(List<InternalRow> rows, StructType type) {
    List<Object> result = new ArrayList<>(rows.size());
    for (InternalRow row : rows) {
      result.add(toJava(row, type));
    }
    return result;
  }

  private static List<Object> toJavaList(ArrayData array, DataType elementType) {
    List<Object> list = new ArrayList<>();
    for (int i = 0; i < array.numElements(); i += 1) {
      list.add(array.isNullAt(i) ? null : toJava(array.get(i, elementType), elementType));
    }
    return list;
  }

  /** Hands out consecutive field ids from 1. */
  static final class IdSource {
    private int last = 0;

    int next() {
      last += 1;
      return last;
    }
  }
}
