package io.floe.spark.write.exec;

import io.floe.spark.types.SparkToIceberg;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.DoubleFieldMetrics;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FloatFieldMetrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Writes Spark {@link InternalRow}s of a table schema to Parquet, straight from Spark's internal
 * values: string bytes without a Java string, dates and timestamps as the days and microseconds
 * Spark holds, decimals of up to 18 digits as their unscaled long, arrays, maps and structs as
 * Spark's {@link ArrayData}, {@link MapData} and nested rows.
 *
 * <p>Built once per data file by Iceberg's Parquet writer ({@code createWriterFunc}) over the
 * Parquet schema Iceberg made from the table schema, so the file carries Iceberg's field ids and
 * exactly the column layout Iceberg's own writers produce. Float and double columns count their
 * NaN values and keep their bounds as Iceberg's writers do, so the file's metrics are the same.
 *
 * <p>Ordinal {@code i} of a row must hold field {@code i} of the schema in the Spark type {@link
 * io.floe.spark.types.SparkSchemas#toSpark(Type)} gives for it. A value that cannot be written
 * (NULL in a required column, list element or map value, a decimal that does not fit, a fixed value
 * of the wrong length, a malformed UUID string) fails with an {@link IllegalArgumentException}
 * naming the column; the row may then be partly written, so the file must be discarded.
 */
final class RowParquetWriter implements ParquetValueWriter<InternalRow> {
  private final StructWriter root;

  private RowParquetWriter(StructWriter root) {
    this.root = root;
  }

  /** The writer for rows of {@code schema} into a file of Parquet schema {@code type}. */
  static RowParquetWriter create(Schema schema, MessageType type) {
    Objects.requireNonNull(schema, "schema is null");
    Objects.requireNonNull(type, "type is null");
    return new RowParquetWriter(new Builder(type).struct(schema.asStruct(), type, new String[0], ""));
  }

  @Override
  public void write(int repetitionLevel, InternalRow row) {
    root.writeFields(repetitionLevel, row);
  }

  @Override
  public List<TripleWriter<?>> columns() {
    return List.copyOf(root.columns());
  }

  @Override
  public void setColumnStore(ColumnWriteStore columnStore) {
    root.setColumnStore(columnStore);
  }

  @Override
  public Stream<FieldMetrics<?>> metrics() {
    return root.metrics();
  }

  /** Pairs each Iceberg type with its Parquet type, keeping the Parquet path for levels. */
  private static final class Builder {
    private final MessageType message;

    Builder(MessageType message) {
      this.message = message;
    }

    StructWriter struct(Types.StructType struct, GroupType group, String[] path, String column) {
      List<Types.NestedField> fields = struct.fields();
      ValueWriter[] writers = new ValueWriter[fields.size()];
      for (int i = 0; i < writers.length; i += 1) {
        Types.NestedField field = fields.get(i);
        org.apache.parquet.schema.Type parquetField = group.getType(i);
        String[] fieldPath = append(path, parquetField.getName());
        String fieldColumn = column.isEmpty() ? field.name() : column + "." + field.name();
        ValueWriter writer = value(field.type(), parquetField, fieldPath, fieldColumn);
        writers[i] = nullable(field.isOptional(), fieldPath, fieldColumn, writer);
      }
      return new StructWriter(writers);
    }

    private ValueWriter nullable(boolean optional, String[] path, String column, ValueWriter writer) {
      return optional
          ? new OptionalWriter(message.getMaxDefinitionLevel(path), writer)
          : new RequiredWriter(column, writer);
    }

    private ValueWriter value(
        Type type, org.apache.parquet.schema.Type parquet, String[] path, String column) {
      switch (type.typeId()) {
        case STRUCT:
          return struct(type.asStructType(), parquet.asGroupType(), path, column);
        case LIST:
          {
            GroupType repeated = parquet.asGroupType().getType(0).asGroupType();
            String[] repeatedPath = append(path, repeated.getName());
            String[] elementPath = append(repeatedPath, repeated.getType(0).getName());
            String elementColumn = column + ".element";
            Types.ListType list = type.asListType();
            ValueWriter element =
                value(list.elementType(), repeated.getType(0), elementPath, elementColumn);
            return new ListWriter(
                message.getMaxDefinitionLevel(repeatedPath),
                message.getMaxRepetitionLevel(repeatedPath),
                nullable(list.isElementOptional(), elementPath, elementColumn, element));
          }
        case MAP:
          {
            GroupType repeated = parquet.asGroupType().getType(0).asGroupType();
            String[] repeatedPath = append(path, repeated.getName());
            String[] keyPath = append(repeatedPath, repeated.getType(0).getName());
            String[] valuePath = append(repeatedPath, repeated.getType(1).getName());
            Types.MapType map = type.asMapType();
            ValueWriter key = value(map.keyType(), repeated.getType(0), keyPath, column + ".key");
            ValueWriter value =
                value(map.valueType(), repeated.getType(1), valuePath, column + ".value");
            return new MapWriter(
                message.getMaxDefinitionLevel(repeatedPath),
                message.getMaxRepetitionLevel(repeatedPath),
                nullable(false, keyPath, column + ".key", key),
                nullable(map.isValueOptional(), valuePath, column + ".value", value));
          }
        default:
          return primitive(type, message.getColumnDescription(path), column);
      }
    }

    private static ValueWriter primitive(Type type, ColumnDescriptor desc, String column) {
      switch (type.typeId()) {
        case BOOLEAN:
          return new BooleanWriter(desc);
        case INTEGER:
        case DATE:
          return new IntWriter(desc);
        case LONG:
        case TIMESTAMP:
          return new LongWriter(desc);
        case FLOAT:
          return new FloatWriter(desc);
        case DOUBLE:
          return new DoubleWriter(desc);
        case STRING:
          return new StringWriter(desc);
        case BINARY:
          return new BinaryWriter(desc);
        case FIXED:
          return new FixedWriter(desc, ((Types.FixedType) type).length(), column);
        case UUID:
          return new UuidWriter(desc, column);
        case DECIMAL:
          Types.DecimalType decimal = (Types.DecimalType) type;
          PrimitiveTypeName physical = desc.getPrimitiveType().getPrimitiveTypeName();
          if (physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64) {
            return new SmallDecimalWriter(desc, decimal, column, physical == PrimitiveTypeName.INT32);
          }
          return new LargeDecimalWriter(desc, decimal, column);
        default:
          throw new IllegalArgumentException(
              String.format("Cannot write column '%s' of type %s: unsupported type", column, type));
      }
    }

    private static String[] append(String[] path, String name) {
      String[] result = Arrays.copyOf(path, path.length + 1);
      result[path.length] = name;
      return result;
    }
  }

  /** Writes the value at an ordinal of a row or array, or NULLs for it into every column below. */
  private abstract static class ValueWriter {
    /** Writes the non-null value at {@code ordinal} of {@code data}. */
    abstract void write(int repetitionLevel, SpecializedGetters data, int ordinal);

    /** Writes a NULL at definition level {@code definitionLevel} into every leaf column. */
    void writeNull(int repetitionLevel, int definitionLevel) {
      for (Leaf column : columns()) {
        column.writeNull(repetitionLevel, definitionLevel);
      }
    }

    abstract List<Leaf> columns();

    void setColumnStore(ColumnWriteStore store) {
      for (Leaf column : columns()) {
        column.bind(store);
      }
    }

    Stream<FieldMetrics<?>> metrics() {
      return Stream.empty();
    }
  }

  /** A value that may be NULL: a NULL is written one definition level below the value's. */
  private static final class OptionalWriter extends ValueWriter {
    private final int definitionLevel;
    private final ValueWriter writer;
    private long nulls;

    OptionalWriter(int definitionLevel, ValueWriter writer) {
      this.definitionLevel = definitionLevel;
      this.writer = writer;
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      if (data.isNullAt(ordinal)) {
        nulls += 1;
        writer.writeNull(repetitionLevel, definitionLevel - 1);
      } else {
        writer.write(repetitionLevel, data, ordinal);
      }
    }

    @Override
    void writeNull(int repetitionLevel, int parentDefinitionLevel) {
      writer.writeNull(repetitionLevel, parentDefinitionLevel);
    }

    @Override
    List<Leaf> columns() {
      return writer.columns();
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      // as Iceberg's writers: a primitive's own NULLs count toward its values; a struct's do not
      if (writer instanceof Leaf) {
        return writer
            .metrics()
            .map(
                m ->
                    new FieldMetrics<>(
                        m.id(),
                        m.valueCount() + nulls,
                        nulls,
                        m.nanValueCount(),
                        m.lowerBound(),
                        m.upperBound(),
                        m.originalType()));
      }
      return writer.metrics();
    }
  }

  /** A value that must not be NULL. */
  private static final class RequiredWriter extends ValueWriter {
    private final String column;
    private final ValueWriter writer;

    RequiredWriter(String column, ValueWriter writer) {
      this.column = column;
      this.writer = writer;
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      if (data.isNullAt(ordinal)) {
        throw new IllegalArgumentException(
            String.format("Cannot write NULL into required column '%s'", column));
      }
      writer.write(repetitionLevel, data, ordinal);
    }

    @Override
    void writeNull(int repetitionLevel, int definitionLevel) {
      writer.writeNull(repetitionLevel, definitionLevel);
    }

    @Override
    List<Leaf> columns() {
      return writer.columns();
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return writer.metrics();
    }
  }

  private static final class StructWriter extends ValueWriter {
    private final ValueWriter[] fields;
    private final List<Leaf> columns;

    StructWriter(ValueWriter[] fields) {
      this.fields = fields;
      List<Leaf> all = new ArrayList<>();
      for (ValueWriter field : fields) {
        all.addAll(field.columns());
      }
      this.columns = List.copyOf(all);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      writeFields(repetitionLevel, data.getStruct(ordinal, fields.length));
    }

    void writeFields(int repetitionLevel, InternalRow row) {
      for (int i = 0; i < fields.length; i += 1) {
        fields[i].write(repetitionLevel, row, i);
      }
    }

    @Override
    List<Leaf> columns() {
      return columns;
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return Arrays.stream(fields).flatMap(ValueWriter::metrics);
    }
  }

  private static final class ListWriter extends ValueWriter {
    private final int repeatedDefinitionLevel;
    private final int repeatedRepetitionLevel;
    private final ValueWriter element;

    ListWriter(int repeatedDefinitionLevel, int repeatedRepetitionLevel, ValueWriter element) {
      this.repeatedDefinitionLevel = repeatedDefinitionLevel;
      this.repeatedRepetitionLevel = repeatedRepetitionLevel;
      this.element = element;
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      ArrayData array = data.getArray(ordinal);
      int size = array.numElements();
      if (size == 0) {
        writeNull(repetitionLevel, repeatedDefinitionLevel - 1);
        return;
      }
      element.write(repetitionLevel, array, 0);
      for (int i = 1; i < size; i += 1) {
        element.write(repeatedRepetitionLevel, array, i);
      }
    }

    @Override
    List<Leaf> columns() {
      return element.columns();
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return element.metrics();
    }
  }

  private static final class MapWriter extends ValueWriter {
    private final int repeatedDefinitionLevel;
    private final int repeatedRepetitionLevel;
    private final ValueWriter key;
    private final ValueWriter value;
    private final List<Leaf> columns;

    MapWriter(
        int repeatedDefinitionLevel,
        int repeatedRepetitionLevel,
        ValueWriter key,
        ValueWriter value) {
      this.repeatedDefinitionLevel = repeatedDefinitionLevel;
      this.repeatedRepetitionLevel = repeatedRepetitionLevel;
      this.key = key;
      this.value = value;
      List<Leaf> all = new ArrayList<>(key.columns());
      all.addAll(value.columns());
      this.columns = List.copyOf(all);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      MapData map = data.getMap(ordinal);
      int size = map.numElements();
      if (size == 0) {
        writeNull(repetitionLevel, repeatedDefinitionLevel - 1);
        return;
      }
      ArrayData keys = map.keyArray();
      ArrayData values = map.valueArray();
      for (int i = 0; i < size; i += 1) {
        int level = i == 0 ? repetitionLevel : repeatedRepetitionLevel;
        key.write(level, keys, i);
        value.write(level, values, i);
      }
    }

    @Override
    List<Leaf> columns() {
      return columns;
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return Stream.concat(key.metrics(), value.metrics());
    }
  }

  /**
   * One Parquet column. Also a {@link TripleWriter}, the shape Iceberg's Parquet writers expose
   * their columns in.
   */
  private abstract static class Leaf extends ValueWriter implements TripleWriter<Object> {
    private final ColumnDescriptor desc;
    private final List<Leaf> self = List.of(this);
    protected final int maxDefinitionLevel;
    protected ColumnWriter column;

    Leaf(ColumnDescriptor desc) {
      this.desc = desc;
      this.maxDefinitionLevel = desc.getMaxDefinitionLevel();
    }

    void bind(ColumnWriteStore store) {
      this.column = store.getColumnWriter(desc);
    }

    protected int fieldId() {
      return desc.getPrimitiveType().getId().intValue();
    }

    @Override
    public void writeNull(int repetitionLevel, int definitionLevel) {
      column.writeNull(repetitionLevel, definitionLevel);
    }

    @Override
    public void write(int repetitionLevel, Object value) {
      throw new UnsupportedOperationException("Cannot write a boxed value: rows are written by ordinal");
    }

    @Override
    List<Leaf> columns() {
      return self;
    }
  }

  private static final class BooleanWriter extends Leaf {
    BooleanWriter(ColumnDescriptor desc) {
      super(desc);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      column.write(data.getBoolean(ordinal), repetitionLevel, maxDefinitionLevel);
    }
  }

  private static final class IntWriter extends Leaf {
    IntWriter(ColumnDescriptor desc) {
      super(desc);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      column.write(data.getInt(ordinal), repetitionLevel, maxDefinitionLevel);
    }
  }

  private static final class LongWriter extends Leaf {
    LongWriter(ColumnDescriptor desc) {
      super(desc);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      column.write(data.getLong(ordinal), repetitionLevel, maxDefinitionLevel);
    }
  }

  private static final class FloatWriter extends Leaf {
    private final FloatFieldMetrics.Builder metrics;

    FloatWriter(ColumnDescriptor desc) {
      super(desc);
      this.metrics = new FloatFieldMetrics.Builder(fieldId());
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      float value = data.getFloat(ordinal);
      column.write(value, repetitionLevel, maxDefinitionLevel);
      metrics.addValue(value);
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return Stream.of(metrics.build());
    }
  }

  private static final class DoubleWriter extends Leaf {
    private final DoubleFieldMetrics.Builder metrics;

    DoubleWriter(ColumnDescriptor desc) {
      super(desc);
      this.metrics = new DoubleFieldMetrics.Builder(fieldId());
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      double value = data.getDouble(ordinal);
      column.write(value, repetitionLevel, maxDefinitionLevel);
      metrics.addValue(value);
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return Stream.of(metrics.build());
    }
  }

  private static final class StringWriter extends Leaf {
    StringWriter(ColumnDescriptor desc) {
      super(desc);
    }

    private byte[] scratch = new byte[64];

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      UTF8String value = data.getUTF8String(ordinal);
      int length = value.numBytes();
      Binary binary;
      if (value.getBaseObject() instanceof byte[] bytes) {
        // the row's own bytes; Parquet copies what it keeps (dictionary entries, bounds)
        binary =
            Binary.fromReusedByteArray(
                bytes, (int) (value.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET), length);
      } else {
        // Spark's on-heap pages are long[]: copy into one reused array instead of a new one each
        if (scratch.length < length) {
          scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        value.writeToMemory(scratch, Platform.BYTE_ARRAY_OFFSET);
        binary = Binary.fromReusedByteArray(scratch, 0, length);
      }
      column.write(binary, repetitionLevel, maxDefinitionLevel);
    }
  }

  private static final class BinaryWriter extends Leaf {
    BinaryWriter(ColumnDescriptor desc) {
      super(desc);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      column.write(
          Binary.fromReusedByteArray(data.getBinary(ordinal)), repetitionLevel, maxDefinitionLevel);
    }
  }

  private static final class FixedWriter extends Leaf {
    private final int length;
    private final String columnName;

    FixedWriter(ColumnDescriptor desc, int length, String columnName) {
      super(desc);
      this.length = length;
      this.columnName = columnName;
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      byte[] bytes = data.getBinary(ordinal);
      if (bytes.length != length) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot write %d bytes into column '%s' of type fixed[%d]: wrong length",
                bytes.length, columnName, length));
      }
      column.write(Binary.fromReusedByteArray(bytes), repetitionLevel, maxDefinitionLevel);
    }
  }

  /** Spark holds a uuid column as its string form; the file holds its 16 bytes. */
  private static final class UuidWriter extends Leaf {
    private final String columnName;
    private final byte[] buffer = new byte[16];

    UuidWriter(ColumnDescriptor desc, String columnName) {
      super(desc);
      this.columnName = columnName;
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      String text = data.getUTF8String(ordinal).toString();
      UUID uuid;
      try {
        uuid = UUID.fromString(text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot write '%s' into column '%s' of type uuid: not a valid UUID",
                text, columnName),
            e);
      }
      putLong(buffer, 0, uuid.getMostSignificantBits());
      putLong(buffer, 8, uuid.getLeastSignificantBits());
      column.write(Binary.fromReusedByteArray(buffer), repetitionLevel, maxDefinitionLevel);
    }

    private static void putLong(byte[] bytes, int offset, long value) {
      for (int i = 7; i >= 0; i -= 1) {
        bytes[offset + i] = (byte) value;
        value >>>= 8;
      }
    }
  }

  /** Checks a decimal against its column the way the generic write path does. */
  private abstract static class DecimalLeaf extends Leaf {
    protected final int precision;
    protected final int scale;
    private final String columnName;

    DecimalLeaf(ColumnDescriptor desc, Types.DecimalType type, String columnName) {
      super(desc);
      this.precision = type.precision();
      this.scale = type.scale();
      this.columnName = columnName;
    }

    /** The value with the column's scale, if no digit is lost and it fits the precision. */
    protected BigDecimal checked(Decimal decimal) {
      return SparkToIceberg.fittedDecimal(
          decimal.toJavaBigDecimal(), precision, scale, columnName);
    }
  }

  /** Decimals of up to 18 digits, stored as their unscaled int or long. */
  private static final class SmallDecimalWriter extends DecimalLeaf {
    private final boolean asInt;
    private final long limit;

    SmallDecimalWriter(
        ColumnDescriptor desc, Types.DecimalType type, String columnName, boolean asInt) {
      super(desc, type, columnName);
      this.asInt = asInt;
      this.limit = BigInteger.TEN.pow(precision).longValueExact();
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      Decimal decimal = data.getDecimal(ordinal, precision, scale);
      long unscaled;
      if (decimal.scale() == scale) {
        try {
          unscaled = decimal.toUnscaledLong();
        } catch (ArithmeticException e) {
          unscaled = limit;
        }
        if (unscaled >= limit || unscaled <= -limit) {
          // too many digits: checked() fails naming the column
          unscaled = checked(decimal).unscaledValue().longValue();
        }
      } else {
        unscaled = checked(decimal).unscaledValue().longValue();
      }
      if (asInt) {
        column.write((int) unscaled, repetitionLevel, maxDefinitionLevel);
      } else {
        column.write(unscaled, repetitionLevel, maxDefinitionLevel);
      }
    }
  }

  /** Decimals of more than 18 digits, stored as fixed-length two's complement bytes. */
  private static final class LargeDecimalWriter extends DecimalLeaf {
    private final byte[] buffer;

    LargeDecimalWriter(ColumnDescriptor desc, Types.DecimalType type, String columnName) {
      super(desc, type, columnName);
      this.buffer = new byte[TypeUtil.decimalRequiredBytes(precision)];
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      byte[] unscaled =
          checked(data.getDecimal(ordinal, precision, scale)).unscaledValue().toByteArray();
      byte fill = (byte) (unscaled[0] < 0 ? -1 : 0);
      int offset = buffer.length - unscaled.length;
      Arrays.fill(buffer, 0, offset, fill);
      System.arraycopy(unscaled, 0, buffer, offset, unscaled.length);
      column.write(Binary.fromReusedByteArray(buffer), repetitionLevel, maxDefinitionLevel);
    }
  }
}
