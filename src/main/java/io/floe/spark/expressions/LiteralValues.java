package io.floe.spark.expressions;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Converts a Spark literal, held in Spark's internal representation, into the Java value an Iceberg
 * literal of a column's type holds.
 *
 * <p>Only exact conversions are made: the literal's Spark type must be the one Spark reads the
 * column as (a timestamp literal for a timestamp without time zone column does not convert), and a
 * decimal must fit the column's precision and scale without rounding.
 */
final class LiteralValues {

  /** What a literal turned into. */
  enum Kind {
    /** SQL NULL. */
    NULL,
    /** A floating point NaN, which Iceberg literals cannot hold. */
    NAN,
    /** An integral value below the smallest value of the column's type. */
    BELOW_MIN,
    /** An integral value above the largest value of the column's type. */
    ABOVE_MAX,
    /** A value of the column's type, in {@link Value#value()}. */
    VALUE
  }

  /**
   * A converted literal.
   *
   * @param kind what the literal is
   * @param value the Iceberg value when the kind is {@link Kind#VALUE}, else null
   */
  record Value(Kind kind, Object value) {
    static final Value NULL = new Value(Kind.NULL, null);
    static final Value NAN = new Value(Kind.NAN, null);
    static final Value BELOW_MIN = new Value(Kind.BELOW_MIN, null);
    static final Value ABOVE_MAX = new Value(Kind.ABOVE_MAX, null);

    static Value of(Object value) {
      return new Value(Kind.VALUE, value);
    }

    /** Whether this is a floating point zero, which Spark considers equal to its negation. */
    boolean isZero() {
      return (value instanceof Float f && f == 0.0f) || (value instanceof Double d && d == 0.0d);
    }
  }

  private LiteralValues() {}

  /** Returns the literal as a value of the given column type, or empty if it has none exactly. */
  static Optional<Value> convert(Literal<?> literal, Type type) {
    Object value = literal.value();
    if (value == null) {
      return Optional.of(Value.NULL);
    }
    DataType sparkType = literal.dataType();
    switch (type.typeId()) {
      case BOOLEAN:
        return value instanceof Boolean && DataTypes.BooleanType.equals(sparkType)
            ? Optional.of(Value.of(value))
            : Optional.empty();
      case INTEGER:
        return integral(value, sparkType, Integer.MIN_VALUE, Integer.MAX_VALUE)
            .map(v -> v.kind() == Kind.VALUE ? Value.of(((Long) v.value()).intValue()) : v);
      case LONG:
        return integral(value, sparkType, Long.MIN_VALUE, Long.MAX_VALUE);
      case FLOAT:
        if (value instanceof Float f && DataTypes.FloatType.equals(sparkType)) {
          return Optional.of(f.isNaN() ? Value.NAN : Value.of(f));
        }
        return Optional.empty();
      case DOUBLE:
        if (value instanceof Double d && DataTypes.DoubleType.equals(sparkType)) {
          return Optional.of(d.isNaN() ? Value.NAN : Value.of(d));
        }
        return Optional.empty();
      case DECIMAL:
        return sparkType instanceof DecimalType
            ? decimal(value, (Types.DecimalType) type)
            : Optional.empty();
      case DATE:
        return value instanceof Integer && DataTypes.DateType.equals(sparkType)
            ? Optional.of(Value.of(value))
            : Optional.empty();
      case TIMESTAMP:
        DataType expected =
            ((Types.TimestampType) type).shouldAdjustToUTC()
                ? DataTypes.TimestampType
                : DataTypes.TimestampNTZType;
        return value instanceof Long && expected.equals(sparkType)
            ? Optional.of(Value.of(value))
            : Optional.empty();
      case STRING:
        return string(value, sparkType).map(Value::of);
      case UUID:
        return string(value, sparkType).flatMap(LiteralValues::canonicalUuid).map(Value::of);
      case BINARY:
        return bytes(value, sparkType).map(Value::of);
      case FIXED:
        int length = ((Types.FixedType) type).length();
        return bytes(value, sparkType).filter(b -> b.remaining() == length).map(Value::of);
      default:
        return Optional.empty();
    }
  }

  private static Optional<Value> integral(Object value, DataType sparkType, long min, long max) {
    boolean integralType =
        DataTypes.ByteType.equals(sparkType)
            || DataTypes.ShortType.equals(sparkType)
            || DataTypes.IntegerType.equals(sparkType)
            || DataTypes.LongType.equals(sparkType);
    boolean integralValue =
        value instanceof Byte
            || value instanceof Short
            || value instanceof Integer
            || value instanceof Long;
    if (!integralType || !integralValue) {
      return Optional.empty();
    }
    long number = ((Number) value).longValue();
    if (number < min) {
      return Optional.of(Value.BELOW_MIN);
    } else if (number > max) {
      return Optional.of(Value.ABOVE_MAX);
    }
    return Optional.of(Value.of(number));
  }

  private static Optional<Value> decimal(Object value, Types.DecimalType type) {
    BigDecimal decimal;
    if (value instanceof Decimal sparkDecimal) {
      decimal = sparkDecimal.toJavaBigDecimal();
    } else if (value instanceof BigDecimal javaDecimal) {
      decimal = javaDecimal;
    } else {
      return Optional.empty();
    }
    try {
      // Iceberg compares decimals of one column at that column's scale, and IN sets by equals()
      BigDecimal rescaled = decimal.setScale(type.scale(), RoundingMode.UNNECESSARY);
      return rescaled.precision() <= type.precision()
          ? Optional.of(Value.of(rescaled))
          : Optional.empty();
    } catch (ArithmeticException e) {
      return Optional.empty();
    }
  }

  private static Optional<String> string(Object value, DataType sparkType) {
    if (!(sparkType instanceof StringType stringType) || !stringType.isUTF8BinaryCollation()) {
      return Optional.empty();
    }
    if (value instanceof UTF8String utf8) {
      return Optional.of(utf8.toString());
    } else if (value instanceof String string) {
      return Optional.of(string);
    }
    return Optional.empty();
  }

  /**
   * Spark reads a uuid column as its lower-case canonical string and compares strings, so only a
   * literal in that exact form can equal a value.
   */
  private static Optional<UUID> canonicalUuid(String text) {
    try {
      UUID uuid = UUID.fromString(text);
      return uuid.toString().equals(text) ? Optional.of(uuid) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static Optional<ByteBuffer> bytes(Object value, DataType sparkType) {
    if (value instanceof byte[] bytes && DataTypes.BinaryType.equals(sparkType)) {
      return Optional.of(ByteBuffer.wrap(bytes.clone()));
    }
    return Optional.empty();
  }
}
