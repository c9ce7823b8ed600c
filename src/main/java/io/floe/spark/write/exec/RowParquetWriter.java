package io.floe.spark.write.exec;

import io.floe.spark.write.exec.RowLeafWriters.BinaryWriter;
import io.floe.spark.write.exec.RowLeafWriters.BooleanWriter;
import io.floe.spark.write.exec.RowLeafWriters.DoubleWriter;
import io.floe.spark.write.exec.RowLeafWriters.FixedWriter;
import io.floe.spark.write.exec.RowLeafWriters.FloatWriter;
import io.floe.spark.write.exec.RowLeafWriters.IntWriter;
import io.floe.spark.write.exec.RowLeafWriters.LargeDecimalWriter;
import io.floe.spark.write.exec.RowLeafWriters.LongWriter;
import io.floe.spark.write.exec.RowLeafWriters.SmallDecimalWriter;
import io.floe.spark.write.exec.RowLeafWriters.StringWriter;
import io.floe.spark.write.exec.RowLeafWriters.UuidWriter;
import io.floe.spark.write.exec.RowValueWriters.ListWriter;
import io.floe.spark.write.exec.RowValueWriters.MapWriter;
import io.floe.spark.write.exec.RowValueWriters.OptionalWriter;
import io.floe.spark.write.exec.RowValueWriters.RequiredWriter;
import io.floe.spark.write.exec.RowValueWriters.StructWriter;
import io.floe.spark.write.exec.RowValueWriters.ValueWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;

/**
 * Writes Spark {@link InternalRow}s of a table schema to Parquet, straight from Spark's internal
 * values: string bytes without a Java string, dates and timestamps as the days and microseconds
 * Spark holds, decimals of up to 18 digits as their unscaled long, arrays, maps and structs as
 * Spark's {@link ArrayData}, {@link MapData} and nested rows, variants as their metadata and value
 * bytes ({@link RowVariantWriter}) or, where the file's schema shreds them, through Iceberg's
 * shredded variant writers ({@link RowShreddedVariantWriter}).
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
        case VARIANT:
          if (parquet.asGroupType().containsField("typed_value")) {
            return RowShreddedVariantWriter.create(message, path, parquet.asGroupType());
          }
          return RowVariantWriter.create(
              parquet.asGroupType(),
              message.getColumnDescription(append(path, "metadata")),
              message.getColumnDescription(append(path, "value")),
              column);
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
}
