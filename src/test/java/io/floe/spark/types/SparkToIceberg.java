package io.floe.spark.types;

import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;

/**
 * Converts Spark {@link InternalRow}s to Iceberg {@link Record}s of one struct type: the tests'
 * oracle, so that what Floe writes straight from Spark rows can be compared with what Iceberg's
 * own generic writers and partition keys make of the same values. Floe's write path does not use
 * it.
 *
 * <p>Built once per write schema and then called once per row. The constructor builds one reader
 * per field, so the per-row path does not look at types. Ordinal {@code i} of a row must hold field
 * {@code i} of the struct, in the Spark type {@link SparkSchemas#toSpark(Type)} gives for it.
 *
 * <p>Records hold Iceberg's generic representation, as expected by Iceberg's generic file writers:
 * {@code LocalDate}, {@code LocalDateTime} (timestamp), {@code OffsetDateTime} in UTC
 * (timestamptz), {@code String}, {@code UUID}, {@code ByteBuffer} (binary), {@code byte[]} (fixed),
 * {@code BigDecimal} with the column's scale, {@code List}, {@code Map} and nested records. Each
 * call returns a new record that does not depend on the input row staying unchanged, except that
 * byte arrays may be shared with it.
 *
 * <p>A call fails with an {@link IllegalArgumentException} naming the column when a required
 * column, list element or map value is NULL, when a decimal does not fit the column, when a fixed
 * value has the wrong length or when a UUID string is malformed. No record is returned then.
 */
public final class SparkToIceberg implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Types.StructType struct;
  private final StructReader root;

  /**
   * @param struct the Iceberg type of the records to produce
   * @throws IllegalArgumentException if a column has a type Spark cannot represent, as for {@link
   *     SparkSchemas#toSpark(Type)}
   */
  public SparkToIceberg(Types.StructType struct) {
    this.struct = Objects.requireNonNull(struct, "struct is null");
    this.root = new StructReader(struct, "");
  }

  /** The Iceberg type of the records this produces. */
  public Types.StructType struct() {
    return struct;
  }

  /** Converts one row to a new record. */
  public Record convert(InternalRow row) {
    Objects.requireNonNull(row, "row is null");
    if (row.numFields() != root.fields.length) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot convert row to %s: expected %d fields but the row has %d",
              struct, root.fields.length, row.numFields()));
    }
    return root.convertStruct(row);
  }

  private static ValueReader readerFor(Type type, String path) {
    switch (type.typeId()) {
      case BOOLEAN:
        return SimpleReader.BOOLEAN;
      case INTEGER:
        return SimpleReader.INT;
      case LONG:
        return SimpleReader.LONG;
      case FLOAT:
        return SimpleReader.FLOAT;
      case DOUBLE:
        return SimpleReader.DOUBLE;
      case DATE:
        return SimpleReader.DATE;
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC()
            ? SimpleReader.TIMESTAMPTZ
            : SimpleReader.TIMESTAMP;
      case STRING:
        return SimpleReader.STRING;
      case UUID:
        return new UuidReader(path);
      case FIXED:
        return new FixedReader((Types.FixedType) type, path);
      case BINARY:
        return SimpleReader.BINARY;
      case DECIMAL:
        return new DecimalReader((Types.DecimalType) type, path);
      case STRUCT:
        return new StructReader(type.asStructType(), path);
      case LIST:
        return new ListReader(type.asListType(), path);
      case MAP:
        return new MapReader(type.asMapType(), path);
      default:
        throw new IllegalArgumentException(
            String.format(
                "Cannot convert %s to a Spark type: unsupported type",
                ColumnPaths.describe(path, type.toString())));
    }
  }

  private static IllegalArgumentException nullInRequired(String path) {
    return new IllegalArgumentException(
        String.format("Cannot write NULL into required column '%s'", path));
  }

  /**
   * Reads the non-null value at an ordinal of a row or array and converts it to Iceberg's generic
   * representation.
   */
  private interface ValueReader extends Serializable {
    Object read(SpecializedGetters data, int ordinal);
  }

  /** Readers that need nothing but the ordinal. */
  private enum SimpleReader implements ValueReader {
    BOOLEAN {
      @Override
      public Object read(SpecializedGetters data, int ordinal) {
        return data.getBoolean(ordinal);
      }
    },
    INT {
      @Override
      public Object read(SpecializedGetters data, int ordinal) {
        return data.getInt(ordinal);
      }
    },
    LONG {
      @Override
      public Object read(SpecializedGetters data, int ordinal) {
        return data.getLong(ordinal);
      }
    },
    FLOAT {
      @Override
      public Object read(SpecializedGetters data, int ordinal) {
        return data.getFloat(ordinal);
      }
    },
    DOUBLE {
      @Override
      public Object read(SpecializedGetters data, int ordinal) {
        return data.getDouble(ordinal);
      }
    },
    DATE {
      @Override
      public Object read(SpecializedGetters data, int ordinal) {
        return LocalDate.ofEpochDay(data.getInt(ordinal));
      }
    },
    TIMESTAMP {
      @Override
      public Object read(SpecializedGetters data, int ordinal) {
        return DateTimes.localDateTime(data.getLong(ordinal));
      }
    },
    TIMESTAMPTZ {
      @Override
      public Object read(SpecializedGetters data, int ordinal) {
        return DateTimes.offsetDateTime(data.getLong(ordinal));
      }
    },
    STRING {
      @Override
      public Object read(SpecializedGetters data, int ordinal) {
        return data.getUTF8String(ordinal).toString();
      }
    },
    BINARY {
      @Override
      public Object read(SpecializedGetters data, int ordinal) {
        return ByteBuffer.wrap(data.getBinary(ordinal));
      }
    }
  }

  private static final class UuidReader implements ValueReader {
    private static final long serialVersionUID = 1L;

    private final String path;

    UuidReader(String path) {
      this.path = path;
    }

    @Override
    public Object read(SpecializedGetters data, int ordinal) {
      String value = data.getUTF8String(ordinal).toString();
      try {
        return UUID.fromString(value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot write '%s' into column '%s' of type uuid: not a valid UUID", value, path),
            e);
      }
    }
  }

  private static final class FixedReader implements ValueReader {
    private static final long serialVersionUID = 1L;

    private final int length;
    private final String path;

    FixedReader(Types.FixedType type, String path) {
      this.length = type.length();
      this.path = path;
    }

    @Override
    public Object read(SpecializedGetters data, int ordinal) {
      byte[] bytes = data.getBinary(ordinal);
      if (bytes.length != length) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot write %d bytes into column '%s' of type fixed[%d]: wrong length",
                bytes.length, path, length));
      }
      return bytes;
    }
  }

  private static final class DecimalReader implements ValueReader {
    private static final long serialVersionUID = 1L;

    private final int precision;
    private final int scale;
    private final String path;

    DecimalReader(Types.DecimalType type, String path) {
      this.precision = type.precision();
      this.scale = type.scale();
      this.path = path;
    }

    @Override
    public Object read(SpecializedGetters data, int ordinal) {
      return Decimals.fitted(
          data.getDecimal(ordinal, precision, scale).toJavaBigDecimal(), precision, scale, path);
    }
  }

  private static final class StructReader implements ValueReader {
    private static final long serialVersionUID = 1L;

    private final Types.StructType struct;
    private final ValueReader[] fields;
    private final boolean[] required;
    private final String[] paths;
    private transient GenericRecord template;

    StructReader(Types.StructType struct, String path) {
      this.struct = struct;
      List<Types.NestedField> structFields = struct.fields();
      this.fields = new ValueReader[structFields.size()];
      this.required = new boolean[fields.length];
      this.paths = new String[fields.length];
      for (int i = 0; i < fields.length; i += 1) {
        Types.NestedField field = structFields.get(i);
        paths[i] = ColumnPaths.child(path, field.name());
        required[i] = field.isRequired();
        fields[i] = readerFor(field.type(), paths[i]);
      }
    }

    @Override
    public Object read(SpecializedGetters data, int ordinal) {
      return convertStruct(data.getStruct(ordinal, fields.length));
    }

    Record convertStruct(InternalRow row) {
      if (template == null) {
        template = GenericRecord.create(struct);
      }
      GenericRecord record = template.copy();
      for (int i = 0; i < fields.length; i += 1) {
        if (row.isNullAt(i)) {
          if (required[i]) {
            throw nullInRequired(paths[i]);
          }
        } else {
          record.set(i, fields[i].read(row, i));
        }
      }
      return record;
    }
  }

  private static final class ListReader implements ValueReader {
    private static final long serialVersionUID = 1L;

    private final ValueReader element;
    private final boolean elementRequired;
    private final String elementPath;

    ListReader(Types.ListType list, String path) {
      this.elementPath = ColumnPaths.element(path);
      this.elementRequired = list.isElementRequired();
      this.element = readerFor(list.elementType(), elementPath);
    }

    @Override
    public Object read(SpecializedGetters data, int ordinal) {
      ArrayData array = data.getArray(ordinal);
      int size = array.numElements();
      List<Object> list = new ArrayList<>(size);
      for (int i = 0; i < size; i += 1) {
        if (array.isNullAt(i)) {
          if (elementRequired) {
            throw nullInRequired(elementPath);
          }
          list.add(null);
        } else {
          list.add(element.read(array, i));
        }
      }
      return list;
    }
  }

  private static final class MapReader implements ValueReader {
    private static final long serialVersionUID = 1L;

    private final ValueReader key;
    private final ValueReader value;
    private final boolean valueRequired;
    private final String keyPath;
    private final String valuePath;

    MapReader(Types.MapType map, String path) {
      this.keyPath = ColumnPaths.key(path);
      this.valuePath = ColumnPaths.value(path);
      this.valueRequired = map.isValueRequired();
      this.key = readerFor(map.keyType(), keyPath);
      this.value = readerFor(map.valueType(), valuePath);
    }

    @Override
    public Object read(SpecializedGetters data, int ordinal) {
      MapData mapData = data.getMap(ordinal);
      ArrayData keys = mapData.keyArray();
      ArrayData values = mapData.valueArray();
      int size = mapData.numElements();
      Map<Object, Object> map = new LinkedHashMap<>(capacity(size));
      for (int i = 0; i < size; i += 1) {
        if (keys.isNullAt(i)) {
          throw nullInRequired(keyPath);
        }
        Object mapValue;
        if (values.isNullAt(i)) {
          if (valueRequired) {
            throw nullInRequired(valuePath);
          }
          mapValue = null;
        } else {
          mapValue = value.read(values, i);
        }
        map.put(key.read(keys, i), mapValue);
      }
      return map;
    }

    private static int capacity(int size) {
      return (int) Math.ceil(size / 0.75);
    }
  }
}
