package io.floe.spark.write.exec;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.iceberg.variants.Variant;
import org.apache.iceberg.variants.VariantMetadata;
import org.apache.iceberg.variants.VariantValue;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.VariantVal;

/**
 * Turns Spark {@link InternalRow}s of a table schema into Iceberg's generic {@link Record}s, the
 * values Iceberg's own ORC and Avro writers take: dates as {@code LocalDate}, timestamps as {@code
 * LocalDateTime} or {@code OffsetDateTime} (UTC), strings as Java strings, binary as a {@code
 * ByteBuffer}, fixed as {@code byte[]}, UUIDs parsed from Spark's string, decimals as {@code
 * BigDecimal} of the column's scale, variants as Iceberg's {@link Variant}, arrays, maps and
 * structs as lists, maps and records.
 *
 * <p>Ordinal {@code i} of a row holds field {@code i} of the schema, as for {@link
 * RowParquetWriter}. A value that cannot be written (NULL in a required column, list element or map
 * value, a decimal that does not fit, a fixed value of the wrong length, a malformed UUID) fails
 * with an {@link IllegalArgumentException} naming the column. Stateless after construction; one per
 * file writer.
 *
 * <p>For ORC files it refuses variant columns when it is built (Iceberg's ORC writer has no variant
 * support), and timestamps from 999 milliseconds to 1 microsecond before
 * 1970-01-01 00:00:00 UTC: the ORC library Iceberg writes with (1.9) stores them a second late, and
 * a wrong value is worse than a failed write.
 */
final class RowToRecord {
  private final Types.StructType struct;
  private final Converter[] fields;

  /** The first and last microsecond since the epoch that ORC 1.9 writes a second late. */
  private static final long ORC_SHIFTED_FIRST = -999_000L;
  private static final long ORC_SHIFTED_LAST = -1L;

  /**
   * The converter for rows of {@code schema}.
   *
   * @param forOrc whether the records go to an ORC file (see the class comment)
   */
  RowToRecord(Schema schema, boolean forOrc) {
    Objects.requireNonNull(schema, "schema is null");
    this.struct = schema.asStruct();
    this.fields = fieldConverters(struct, "", forOrc);
  }

  /** A new record holding the row's values. */
  Record convert(InternalRow row) {
    return struct(struct, fields, row);
  }

  private static Record struct(Types.StructType type, Converter[] converters, InternalRow row) {
    GenericRecord record = GenericRecord.create(type);
    for (int i = 0; i < converters.length; i += 1) {
      record.set(i, converters[i].convert(row, i));
    }
    return record;
  }

  /** Reads the value at one ordinal of a row or array, already checked for NULL where required. */
  @FunctionalInterface
  private interface Converter {
    Object convert(SpecializedGetters data, int ordinal);
  }

  private static Converter[] fieldConverters(
      Types.StructType struct, String prefix, boolean forOrc) {
    List<Types.NestedField> nested = struct.fields();
    Converter[] converters = new Converter[nested.size()];
    for (int i = 0; i < converters.length; i += 1) {
      Types.NestedField field = nested.get(i);
      String column = prefix.isEmpty() ? field.name() : prefix + "." + field.name();
      converters[i] = nullable(field.isOptional(), column, value(field.type(), column, forOrc));
    }
    return converters;
  }

  private static Converter nullable(boolean optional, String column, Converter value) {
    return (data, ordinal) -> {
      if (data.isNullAt(ordinal)) {
        if (!optional) {
          throw new IllegalArgumentException(
              "Cannot write NULL into required column '" + column + "'");
        }
        return null;
      }
      return value.convert(data, ordinal);
    };
  }

  private static Converter value(Type type, String column, boolean forOrc) {
    switch (type.typeId()) {
      case BOOLEAN:
        return SpecializedGetters::getBoolean;
      case INTEGER:
        return SpecializedGetters::getInt;
      case LONG:
        return SpecializedGetters::getLong;
      case FLOAT:
        return SpecializedGetters::getFloat;
      case DOUBLE:
        return SpecializedGetters::getDouble;
      case DATE:
        return (data, ordinal) -> DateTimeUtil.dateFromDays(data.getInt(ordinal));
      case TIMESTAMP:
        boolean utc = ((Types.TimestampType) type).shouldAdjustToUTC();
        return (data, ordinal) -> {
          long micros = data.getLong(ordinal);
          if (forOrc && micros >= ORC_SHIFTED_FIRST && micros <= ORC_SHIFTED_LAST) {
            throw new IllegalArgumentException(
                String.format(
                    "Cannot write %s into column '%s' of an ORC file: the ORC library Iceberg writes"
                        + " with stores timestamps in the last second before 1970-01-01 00:00:00 UTC"
                        + " a second late; write this table in Parquet or Avro",
                    DateTimeUtil.timestampFromMicros(micros), column));
          }
          return utc
              ? DateTimeUtil.timestamptzFromMicros(micros)
              : DateTimeUtil.timestampFromMicros(micros);
        };
      case STRING:
        return (data, ordinal) -> data.getUTF8String(ordinal).toString();
      case UUID:
        return (data, ordinal) -> PartitionSourceRow.uuid(data.getUTF8String(ordinal).toString(), column);
      case BINARY:
        return (data, ordinal) -> ByteBuffer.wrap(data.getBinary(ordinal));
      case FIXED:
        int length = ((Types.FixedType) type).length();
        return (data, ordinal) -> fixed(data.getBinary(ordinal), length, column);
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return (data, ordinal) -> decimal(data, ordinal, decimal, column);
      case VARIANT:
        if (forOrc) {
          throw new IllegalArgumentException(
              String.format(
                  "Cannot write column '%s' of type variant to an ORC file: Iceberg's ORC writer"
                      + " does not support variant; write this table in Parquet or Avro",
                  column));
        }
        return (data, ordinal) -> variant(data.getVariant(ordinal));
      case STRUCT:
        Types.StructType struct = type.asStructType();
        Converter[] converters = fieldConverters(struct, column, forOrc);
        int width = struct.fields().size();
        return (data, ordinal) -> struct(struct, converters, data.getStruct(ordinal, width));
      case LIST:
        Types.ListType list = type.asListType();
        Converter element =
            nullable(
                list.isElementOptional(),
                column + ".element",
                value(list.elementType(), column + ".element", forOrc));
        return (data, ordinal) -> list(data.getArray(ordinal), element);
      case MAP:
        Types.MapType map = type.asMapType();
        Converter key =
            nullable(false, column + ".key", value(map.keyType(), column + ".key", forOrc));
        Converter mapValue =
            nullable(
                map.isValueOptional(),
                column + ".value",
                value(map.valueType(), column + ".value", forOrc));
        return (data, ordinal) -> map(data.getMap(ordinal), key, mapValue);
      default:
        throw new IllegalArgumentException(
            String.format("Cannot write column '%s' of type %s: unsupported type", column, type));
    }
  }

  /** Iceberg's variant over Spark's two arrays, which hold the same binary encoding. */
  private static Variant variant(VariantVal variant) {
    VariantMetadata metadata =
        VariantMetadata.from(ByteBuffer.wrap(variant.getMetadata()).order(ByteOrder.LITTLE_ENDIAN));
    return Variant.of(
        metadata,
        VariantValue.from(
            metadata, ByteBuffer.wrap(variant.getValue()).order(ByteOrder.LITTLE_ENDIAN)));
  }

  private static List<Object> list(ArrayData array, Converter element) {
    int size = array.numElements();
    List<Object> values = new ArrayList<>(size);
    for (int i = 0; i < size; i += 1) {
      values.add(element.convert(array, i));
    }
    return values;
  }

  private static Map<Object, Object> map(MapData map, Converter key, Converter value) {
    ArrayData keys = map.keyArray();
    ArrayData values = map.valueArray();
    int size = map.numElements();
    Map<Object, Object> result = new LinkedHashMap<>(Math.max(4, size * 2));
    for (int i = 0; i < size; i += 1) {
      result.put(key.convert(keys, i), value.convert(values, i));
    }
    return result;
  }

  private static byte[] fixed(byte[] bytes, int length, String column) {
    if (bytes.length != length) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot write %d bytes into column '%s' of type fixed[%d]: the length must be %d",
              bytes.length, column, length, length));
    }
    return Arrays.copyOf(bytes, length);
  }

  private static BigDecimal decimal(
      SpecializedGetters data, int ordinal, Types.DecimalType type, String column) {
    Decimal value = data.getDecimal(ordinal, type.precision(), type.scale());
    if (value == null || !value.changePrecision(type.precision(), type.scale())) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot write %s into column '%s' of type %s: it does not fit", value, column, type));
    }
    return value.toJavaBigDecimal();
  }
}
