package io.floe.spark.expressions;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.spark.sql.connector.expressions.Cast;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.GeneralScalarExpression;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.And;
import org.apache.spark.sql.connector.expressions.filter.Not;
import org.apache.spark.sql.connector.expressions.filter.Or;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

/** Builds Spark V2 predicates and literals the way Spark hands them to a data source. */
final class V2 {

  private V2() {}

  /** A column reference; a dotted name is a path into structs. */
  static NamedReference col(String name) {
    List<String> parts = Arrays.asList(name.split("\\."));
    return new FieldReference(CollectionConverters.asScala(parts).toSeq());
  }

  static Predicate pred(String name, Expression... children) {
    return new Predicate(name, children);
  }

  static Predicate and(Predicate left, Predicate right) {
    return new And(left, right);
  }

  static Predicate or(Predicate left, Predicate right) {
    return new Or(left, right);
  }

  static Predicate not(Predicate child) {
    return new Not(child);
  }

  static Expression cast(Expression child, DataType from, DataType to) {
    return new Cast(child, from, to);
  }

  static Expression upper(Expression child) {
    return new GeneralScalarExpression("UPPER", new Expression[] {child});
  }

  /**
   * Renders an expression for failure messages; unlike Spark's own {@code toString}, it also
   * handles a NULL binary literal.
   */
  static String describe(Expression expr) {
    if (expr instanceof org.apache.spark.sql.connector.expressions.Literal<?> literal) {
      Object value = literal.value();
      String text =
          value instanceof byte[] bytes
              ? "0x" + HexFormat.of().formatHex(bytes)
              : String.valueOf(value);
      return text + ":" + literal.dataType().simpleString();
    } else if (expr instanceof NamedReference ref) {
      return String.join(".", ref.fieldNames());
    } else if (expr instanceof Cast cast) {
      return "CAST(" + describe(cast.expression()) + " AS " + cast.dataType().simpleString() + ")";
    } else if (expr instanceof GeneralScalarExpression scalar) {
      StringBuilder text = new StringBuilder(scalar.name()).append('(');
      Expression[] children = scalar.children();
      for (int i = 0; i < children.length; i += 1) {
        text.append(i == 0 ? "" : ", ").append(describe(children[i]));
      }
      return text.append(')').toString();
    }
    return String.valueOf(expr);
  }

  static LiteralValue<Object> lit(Object value, DataType type) {
    return new LiteralValue<>(value, type);
  }

  static LiteralValue<Object> nullOf(DataType type) {
    return lit(null, type);
  }

  static LiteralValue<Object> intLit(int value) {
    return lit(value, DataTypes.IntegerType);
  }

  static LiteralValue<Object> longLit(long value) {
    return lit(value, DataTypes.LongType);
  }

  static LiteralValue<Object> floatLit(float value) {
    return lit(value, DataTypes.FloatType);
  }

  static LiteralValue<Object> doubleLit(double value) {
    return lit(value, DataTypes.DoubleType);
  }

  static LiteralValue<Object> str(String value) {
    return lit(UTF8String.fromString(value), DataTypes.StringType);
  }

  static LiteralValue<Object> dec(String value, int precision, int scale) {
    return lit(Decimal.apply(new BigDecimal(value)), DataTypes.createDecimalType(precision, scale));
  }

  static LiteralValue<Object> date(LocalDate value) {
    return lit((int) value.toEpochDay(), DataTypes.DateType);
  }

  static LiteralValue<Object> timestamp(long micros) {
    return lit(micros, DataTypes.TimestampType);
  }

  static LiteralValue<Object> timestampNtz(long micros) {
    return lit(micros, DataTypes.TimestampNTZType);
  }

  static LiteralValue<Object> bool(boolean value) {
    return lit(value, DataTypes.BooleanType);
  }

  static LiteralValue<Object> bin(int... unsignedBytes) {
    byte[] bytes = new byte[unsignedBytes.length];
    for (int i = 0; i < bytes.length; i += 1) {
      bytes[i] = (byte) unsignedBytes[i];
    }
    return lit(bytes, DataTypes.BinaryType);
  }
}
