package io.floe.spark.types;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Converts column default values between Spark and Iceberg. Spark hands a DEFAULT of a DDL
 * statement over as a value in its internal representation, already coerced to the column's Spark
 * type; Iceberg keeps a default as a {@link Literal} of the column's Iceberg type ({@code
 * initial-default} for rows written before the column existed, {@code write-default} for writes
 * that leave the column out). The way back gives Spark the value and a SQL literal for it, which
 * is what Spark's INSERT puts where a column is omitted.
 */
public final class DefaultLiterals {
  private DefaultLiterals() {}

  /**
   * The Iceberg literal for a Spark value.
   *
   * @param column the column's name, for messages
   * @param value the value in Spark's internal representation (UTF8String, Decimal, days as int,
   *     microseconds as long, byte[], boxed numbers and booleans); not null
   * @param type the column's Iceberg type
   * @throws IllegalArgumentException naming the column when the value cannot be a value of the type
   */
  public static Literal<?> toIceberg(String column, Object value, Type type) {
    Objects.requireNonNull(value, "value is null");
    if (!type.isPrimitiveType()) {
      throw new IllegalArgumentException(
          "Cannot use a DEFAULT for column " + column + ": Iceberg keeps defaults only for primitive "
              + "columns, not for " + type);
    }
    Literal<?> literal;
    if (value instanceof UTF8String string) {
      literal = Literal.of(string.toString());
    } else if (value instanceof Decimal decimal) {
      literal = Literal.of(decimal.toJavaBigDecimal());
    } else if (value instanceof byte[] bytes) {
      literal = Literal.of(ByteBuffer.wrap(bytes.clone()));
    } else if (value instanceof Byte || value instanceof Short) {
      literal = Literal.of(((Number) value).intValue());
    } else if (value instanceof Integer integer) {
      literal = Literal.of(integer);
    } else if (value instanceof Long number) {
      literal = Literal.of(number);
    } else if (value instanceof Float number) {
      literal = Literal.of(number);
    } else if (value instanceof Double number) {
      literal = Literal.of(number);
    } else if (value instanceof Boolean bool) {
      literal = Literal.of(bool);
    } else {
      throw wrongType(column, value, type);
    }
    Literal<?> converted = literal.to(type);
    if (converted == null) {
      throw wrongType(column, value, type);
    }
    return converted;
  }

  /**
   * The Spark literal of an Iceberg default of a column.
   *
   * @param field the column
   * @param value the default in Iceberg's internal representation, as {@link
   *     Types.NestedField#writeDefault()} returns it; not null
   */
  public static LiteralValue<?> toSpark(Types.NestedField field, Object value) {
    Objects.requireNonNull(value, "value is null");
    Types.StructType struct = Types.StructType.of(field);
    InternalRow row = new IcebergToSpark(struct).convert(new ValueRow(value));
    DataType type = SparkSchemas.toSpark(field.type());
    return new LiteralValue<>(((GenericInternalRow) row).genericGet(0), type);
  }

  /** The SQL text of a Spark literal, as Spark's parser reads it back. */
  public static String sql(LiteralValue<?> literal) {
    return new org.apache.spark.sql.catalyst.expressions.Literal(literal.value(), literal.dataType())
        .sql();
  }

  private static IllegalArgumentException wrongType(String column, Object value, Type type) {
    return new IllegalArgumentException(
        "Cannot use DEFAULT " + value + " for column " + column + ": it is not a value of type "
            + type);
  }

  /** A one-field row holding a value, for {@link IcebergToSpark}. */
  private record ValueRow(Object value) implements org.apache.iceberg.StructLike {
    @Override
    public int size() {
      return 1;
    }

    @Override
    public <T> T get(int pos, Class<T> javaClass) {
      return javaClass.cast(value);
    }

    @Override
    public <T> void set(int pos, T newValue) {
      throw new UnsupportedOperationException("A default value is read-only");
    }
  }
}
