package io.floe.spark.types;

import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.variants.Variant;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.unsafe.types.VariantVal;

/**
 * Converts Iceberg rows of one struct type to Spark {@link InternalRow}s.
 *
 * <p>Built once per read schema, on the driver or an executor, and then called once per row. The
 * constructor builds one converter per field, so the per-row path does not look at types. Each
 * call returns a fresh {@link GenericInternalRow} that shares no mutable state with the input, so
 * readers may reuse their records.
 *
 * <p>Values may come in either of Iceberg's in-memory representations: the generic one
 * ({@code LocalDate}, {@code LocalDateTime}, {@code OffsetDateTime}, {@code String}, {@code UUID},
 * {@code byte[]}, {@code ByteBuffer}, {@code BigDecimal}, {@code List}, {@code Map}, {@code
 * Record}) or the internal one (days as {@code Integer}, microseconds as {@code Long}, any {@code
 * CharSequence}, {@code StructLike}). They come out in Spark's internal representation: days as
 * {@code Integer}, microseconds as {@code Long}, {@link UTF8String} (UUIDs in their string form),
 * {@link Decimal} with the column's precision and scale, {@code byte[]}, {@link VariantVal} (from
 * Iceberg's {@link Variant}, shredded files included), {@link GenericArrayData},
 * {@link ArrayBasedMapData} and nested {@link InternalRow}s. A value of any other class fails the
 * call with an {@link IllegalArgumentException} naming the column.
 */
public final class IcebergToSpark implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Types.StructType struct;
  private final StructConverter root;

  /**
   * @param struct the Iceberg type of the rows to convert; position {@code i} of a row holds field
   *     {@code i}
   * @throws IllegalArgumentException if a column has a type Spark cannot represent, as for {@link
   *     SparkSchemas#toSpark(Type)}
   */
  public IcebergToSpark(Types.StructType struct) {
    this.struct = Objects.requireNonNull(struct, "struct is null");
    this.root = new StructConverter(struct, "");
  }

  /** The Iceberg type of the rows this converts. */
  public Types.StructType struct() {
    return struct;
  }

  /** Converts one row; a null field stays null. */
  public InternalRow convert(StructLike row) {
    Objects.requireNonNull(row, "row is null");
    return root.convertStruct(row);
  }

  private static Converter converterFor(Type type, String path) {
    switch (type.typeId()) {
      case BOOLEAN:
      case INTEGER:
      case LONG:
      case FLOAT:
      case DOUBLE:
        return new SameValue(type, path);
      case DATE:
        return new DateConverter(type, path);
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC()
            ? new TimestamptzConverter(type, path, false)
            : new TimestampConverter(type, path, false);
      case TIMESTAMP_NANO:
        // Spark has no nanosecond type: microseconds, truncated toward negative infinity
        return ((Types.TimestampNanoType) type).shouldAdjustToUTC()
            ? new TimestamptzConverter(type, path, true)
            : new TimestampConverter(type, path, true);
      case UNKNOWN:
        return new NullConverter(type, path);
      case VARIANT:
        return new VariantConverter(type, path);
      case STRING:
        return new StringConverter(type, path);
      case UUID:
        return new UuidConverter(type, path);
      case FIXED:
      case BINARY:
        return new BytesConverter(type, path);
      case DECIMAL:
        return new DecimalConverter(type, path);
      case STRUCT:
        return new StructConverter(type.asStructType(), path);
      case LIST:
        return new ListConverter(type.asListType(), path);
      case MAP:
        return new MapConverter(type.asMapType(), path);
      default:
        throw new IllegalArgumentException(
            String.format(
                "Cannot convert %s to a Spark type: unsupported type",
                ColumnPaths.describe(path, type.toString())));
    }
  }

  /** Converts one non-null value of a column. */
  private abstract static class Converter implements Serializable {
    private static final long serialVersionUID = 1L;

    final Type type;
    final String path;

    Converter(Type type, String path) {
      this.type = type;
      this.path = path;
    }

    abstract Object convert(Object value);

    final IllegalArgumentException unexpected(Object value) {
      return new IllegalArgumentException(
          String.format(
              "Cannot convert %s to Spark: unexpected value of class %s",
              ColumnPaths.describe(path, type.toString()), value.getClass().getName()));
    }
  }

  /** Booleans and numbers: Iceberg and Spark hold the same boxed values. */
  private static final class SameValue extends Converter {
    private static final long serialVersionUID = 1L;

    SameValue(Type type, String path) {
      super(type, path);
    }

    @Override
    Object convert(Object value) {
      return value;
    }
  }

  private static final class DateConverter extends Converter {
    private static final long serialVersionUID = 1L;

    DateConverter(Type type, String path) {
      super(type, path);
    }

    @Override
    Object convert(Object value) {
      if (value instanceof Integer) {
        return value;
      } else if (value instanceof LocalDate date) {
        return Math.toIntExact(date.toEpochDay());
      }
      throw unexpected(value);
    }
  }

  private static final class TimestampConverter extends Converter {
    private static final long serialVersionUID = 1L;

    private final boolean nanos;

    TimestampConverter(Type type, String path, boolean nanos) {
      super(type, path);
      this.nanos = nanos;
    }

    @Override
    Object convert(Object value) {
      if (value instanceof Long number) {
        return nanos ? DateTimes.microsOfNanos(number) : number;
      } else if (value instanceof LocalDateTime timestamp) {
        return DateTimes.micros(timestamp);
      }
      throw unexpected(value);
    }
  }

  private static final class TimestamptzConverter extends Converter {
    private static final long serialVersionUID = 1L;

    private final boolean nanos;

    TimestamptzConverter(Type type, String path, boolean nanos) {
      super(type, path);
      this.nanos = nanos;
    }

    @Override
    Object convert(Object value) {
      if (value instanceof Long number) {
        return nanos ? DateTimes.microsOfNanos(number) : number;
      } else if (value instanceof OffsetDateTime timestamp) {
        return DateTimes.micros(timestamp);
      } else if (value instanceof LocalDateTime timestamp) {
        // Iceberg's Avro reader gives a LocalDateTime for a timestamp-micros without Iceberg's
        // adjust-to-utc property, as Spark's Avro writer writes TIMESTAMP: the reader counted
        // the stored micros from the epoch in UTC, and those micros are the instant Spark wrote
        return DateTimes.micros(timestamp);
      }
      throw unexpected(value);
    }
  }

  /** The {@code unknown} type: every value is NULL, so a value that is not is a reader's bug. */
  private static final class NullConverter extends Converter {
    private static final long serialVersionUID = 1L;

    NullConverter(Type type, String path) {
      super(type, path);
    }

    @Override
    Object convert(Object value) {
      throw unexpected(value);
    }
  }

  /**
   * Variants: Iceberg's readers hand a {@link Variant} (reassembled from the shredded columns when
   * the file shreds it); Spark takes the same binary encoding, metadata and value as two arrays.
   * A variant holding the variant null is a value here, distinct from a NULL column.
   */
  private static final class VariantConverter extends Converter {
    private static final long serialVersionUID = 1L;

    VariantConverter(Type type, String path) {
      super(type, path);
    }

    @Override
    Object convert(Object value) {
      if (value instanceof VariantVal variant) {
        return variant;
      } else if (value instanceof Variant variant) {
        ByteBuffer metadata =
            ByteBuffer.allocate(variant.metadata().sizeInBytes()).order(ByteOrder.LITTLE_ENDIAN);
        variant.metadata().writeTo(metadata, 0);
        ByteBuffer bytes =
            ByteBuffer.allocate(variant.value().sizeInBytes()).order(ByteOrder.LITTLE_ENDIAN);
        variant.value().writeTo(bytes, 0);
        return new VariantVal(bytes.array(), metadata.array());
      }
      throw unexpected(value);
    }
  }

  private static final class StringConverter extends Converter {
    private static final long serialVersionUID = 1L;

    StringConverter(Type type, String path) {
      super(type, path);
    }

    @Override
    Object convert(Object value) {
      if (value instanceof String string) {
        return UTF8String.fromString(string);
      } else if (value instanceof CharSequence chars) {
        // toString copies, which matters for Avro's Utf8: readers reuse its buffer.
        return UTF8String.fromString(chars.toString());
      }
      throw unexpected(value);
    }
  }

  private static final class UuidConverter extends Converter {
    private static final long serialVersionUID = 1L;

    UuidConverter(Type type, String path) {
      super(type, path);
    }

    @Override
    Object convert(Object value) {
      if (value instanceof UUID uuid) {
        return UTF8String.fromString(uuid.toString());
      } else if (value instanceof CharSequence chars) {
        return UTF8String.fromString(chars.toString());
      }
      throw unexpected(value);
    }
  }

  /** Binary and fixed; always copies, because readers may reuse their buffers. */
  private static final class BytesConverter extends Converter {
    private static final long serialVersionUID = 1L;

    BytesConverter(Type type, String path) {
      super(type, path);
    }

    @Override
    Object convert(Object value) {
      if (value instanceof ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
      } else if (value instanceof byte[] bytes) {
        return bytes.clone();
      }
      throw unexpected(value);
    }
  }

  private static final class DecimalConverter extends Converter {
    private static final long serialVersionUID = 1L;

    private final int precision;
    private final int scale;

    DecimalConverter(Type type, String path) {
      super(type, path);
      this.precision = ((Types.DecimalType) type).precision();
      this.scale = ((Types.DecimalType) type).scale();
    }

    @Override
    Object convert(Object value) {
      if (value instanceof BigDecimal decimal) {
        return Decimal.apply(decimal, precision, scale);
      }
      throw unexpected(value);
    }
  }

  private static final class StructConverter extends Converter {
    private static final long serialVersionUID = 1L;

    private final Converter[] fields;

    StructConverter(Types.StructType struct, String path) {
      super(struct, path);
      List<Types.NestedField> structFields = struct.fields();
      this.fields = new Converter[structFields.size()];
      for (int i = 0; i < fields.length; i += 1) {
        Types.NestedField field = structFields.get(i);
        fields[i] = converterFor(field.type(), ColumnPaths.child(path, field.name()));
      }
    }

    @Override
    Object convert(Object value) {
      if (value instanceof StructLike row) {
        return convertStruct(row);
      }
      throw unexpected(value);
    }

    InternalRow convertStruct(StructLike row) {
      Object[] values = new Object[fields.length];
      for (int i = 0; i < fields.length; i += 1) {
        Object value = row.get(i, Object.class);
        values[i] = value == null ? null : fields[i].convert(value);
      }
      return new GenericInternalRow(values);
    }
  }

  private static final class ListConverter extends Converter {
    private static final long serialVersionUID = 1L;

    private final Converter element;

    ListConverter(Types.ListType list, String path) {
      super(list, path);
      this.element = converterFor(list.elementType(), ColumnPaths.element(path));
    }

    @Override
    Object convert(Object value) {
      if (value instanceof List<?> list) {
        Object[] elements = new Object[list.size()];
        int i = 0;
        for (Object item : list) {
          elements[i] = item == null ? null : element.convert(item);
          i += 1;
        }
        return new GenericArrayData(elements);
      }
      throw unexpected(value);
    }
  }

  private static final class MapConverter extends Converter {
    private static final long serialVersionUID = 1L;

    private final Converter key;
    private final Converter value;

    MapConverter(Types.MapType map, String path) {
      super(map, path);
      this.key = converterFor(map.keyType(), ColumnPaths.key(path));
      this.value = converterFor(map.valueType(), ColumnPaths.value(path));
    }

    @Override
    Object convert(Object object) {
      if (object instanceof Map<?, ?> map) {
        Object[] keys = new Object[map.size()];
        Object[] values = new Object[map.size()];
        int i = 0;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          if (entry.getKey() == null) {
            throw new IllegalArgumentException(
                String.format("Cannot convert column '%s' to Spark: map has a null key", path));
          }
          keys[i] = key.convert(entry.getKey());
          values[i] = entry.getValue() == null ? null : value.convert(entry.getValue());
          i += 1;
        }
        return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
      }
      throw unexpected(object);
    }
  }
}
