package io.floe.spark.expressions;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.UUID;
import org.apache.iceberg.data.Record;
import org.apache.spark.sql.connector.expressions.Cast;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.GeneralScalarExpression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A small reference implementation of how Spark evaluates a V2 predicate on one row: SQL
 * three-valued logic (null is UNKNOWN), NaN equal to itself and above every other value, -0.0 equal
 * to 0.0, strings and binaries in unsigned byte order. Rows are Iceberg generic records.
 */
final class SparkSemantics {

  private static final OffsetDateTime EPOCH =
      OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  private SparkSemantics() {}

  /** Whether Spark keeps the row: the predicate is TRUE (not FALSE, not NULL). */
  static boolean selects(Expression predicate, Record row) {
    return Boolean.TRUE.equals(eval(predicate, row));
  }

  /** Evaluates to a normalized value: Long, Float, Double, BigDecimal, String, byte[], ... */
  static Object eval(Expression expr, Record row) {
    if (expr instanceof Literal<?> literal) {
      return normalize(literal.value());
    }
    if (expr instanceof NamedReference ref) {
      Object value = row;
      for (String part : ref.fieldNames()) {
        if (value == null) {
          return null;
        }
        value = ((Record) value).getField(part);
      }
      return normalize(value);
    }
    if (expr instanceof Cast cast) {
      return castValue(eval(cast.expression(), row), cast);
    }
    if (expr instanceof GeneralScalarExpression scalar) {
      return scalar(scalar, row);
    }
    throw new IllegalArgumentException("Cannot evaluate: " + expr);
  }

  private static Object scalar(GeneralScalarExpression expr, Record row) {
    Expression[] args = expr.children();
    switch (expr.name()) {
      case "ALWAYS_TRUE":
        return true;
      case "ALWAYS_FALSE":
        return false;
      case "AND":
        return and(eval(args[0], row), eval(args[1], row));
      case "OR":
        return or(eval(args[0], row), eval(args[1], row));
      case "NOT":
        Object child = eval(args[0], row);
        return child == null ? null : !(Boolean) child;
      case "BOOLEAN_EXPRESSION":
        return eval(args[0], row);
      case "IS_NULL":
        return eval(args[0], row) == null;
      case "IS_NOT_NULL":
        return eval(args[0], row) != null;
      case "<=>":
        Object left = eval(args[0], row);
        Object right = eval(args[1], row);
        if (left == null || right == null) {
          return left == null && right == null;
        }
        return compare(left, right) == 0;
      case "=":
      case "<>":
      case "<":
      case "<=":
      case ">":
      case ">=":
        return comparison(expr.name(), eval(args[0], row), eval(args[1], row));
      case "IN":
        return in(args, row);
      case "STARTS_WITH":
      case "ENDS_WITH":
      case "CONTAINS":
        return stringPredicate(expr.name(), eval(args[0], row), eval(args[1], row));
      case "UPPER":
        Object text = eval(args[0], row);
        return text == null ? null : ((String) text).toUpperCase(Locale.ROOT);
      default:
        throw new IllegalArgumentException("Cannot evaluate: " + expr);
    }
  }

  private static Object and(Object left, Object right) {
    if (Boolean.FALSE.equals(left) || Boolean.FALSE.equals(right)) {
      return false;
    }
    return left == null || right == null ? null : true;
  }

  private static Object or(Object left, Object right) {
    if (Boolean.TRUE.equals(left) || Boolean.TRUE.equals(right)) {
      return true;
    }
    return left == null || right == null ? null : false;
  }

  private static Object comparison(String op, Object left, Object right) {
    if (left == null || right == null) {
      return null;
    }
    int cmp = compare(left, right);
    return switch (op) {
      case "=" -> cmp == 0;
      case "<>" -> cmp != 0;
      case "<" -> cmp < 0;
      case "<=" -> cmp <= 0;
      case ">" -> cmp > 0;
      case ">=" -> cmp >= 0;
      default -> throw new IllegalArgumentException(op);
    };
  }

  private static Object in(Expression[] args, Record row) {
    if (args.length == 1) {
      return false;
    }
    Object value = eval(args[0], row);
    if (value == null) {
      return null;
    }
    boolean sawNull = false;
    for (int i = 1; i < args.length; i += 1) {
      Object element = eval(args[i], row);
      if (element == null) {
        sawNull = true;
      } else if (compare(value, element) == 0) {
        return true;
      }
    }
    return sawNull ? null : false;
  }

  private static Object stringPredicate(String op, Object value, Object pattern) {
    if (value == null || pattern == null) {
      return null;
    }
    UTF8String text = UTF8String.fromString((String) value);
    UTF8String part = UTF8String.fromString((String) pattern);
    return switch (op) {
      case "STARTS_WITH" -> text.startsWith(part);
      case "ENDS_WITH" -> text.endsWith(part);
      default -> text.contains(part);
    };
  }

  /** Spark's ordering of two values of the same type. */
  static int compare(Object left, Object right) {
    if (left instanceof Double a && right instanceof Double b) {
      return a.doubleValue() == b.doubleValue() ? 0 : Double.compare(a, b);
    } else if (left instanceof Float a && right instanceof Float b) {
      return a.floatValue() == b.floatValue() ? 0 : Float.compare(a, b);
    } else if (left instanceof Long a && right instanceof Long b) {
      return Long.compare(a, b);
    } else if (left instanceof BigDecimal a && right instanceof BigDecimal b) {
      return a.compareTo(b);
    } else if (left instanceof String a && right instanceof String b) {
      return UTF8String.fromString(a).compareTo(UTF8String.fromString(b));
    } else if (left instanceof Boolean a && right instanceof Boolean b) {
      return Boolean.compare(a, b);
    } else if (left instanceof byte[] a && right instanceof byte[] b) {
      for (int i = 0; i < Math.min(a.length, b.length); i += 1) {
        int cmp = Integer.compare(a[i] & 0xFF, b[i] & 0xFF);
        if (cmp != 0) {
          return cmp;
        }
      }
      return Integer.compare(a.length, b.length);
    }
    throw new IllegalArgumentException("Cannot compare " + left + " with " + right);
  }

  private static Object castValue(Object value, Cast cast) {
    if (value == null) {
      return null;
    }
    if (DataTypes.LongType.equals(cast.dataType()) && value instanceof Long) {
      return value;
    } else if (DataTypes.DoubleType.equals(cast.dataType()) && value instanceof Float f) {
      return f.doubleValue();
    }
    throw new IllegalArgumentException("Cannot evaluate: " + cast);
  }

  /** Brings a record value or a Spark literal to the form {@link #compare} works on. */
  private static Object normalize(Object value) {
    if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    } else if (value instanceof UTF8String || value instanceof CharSequence) {
      return value.toString();
    } else if (value instanceof Decimal decimal) {
      return decimal.toJavaBigDecimal();
    } else if (value instanceof LocalDate date) {
      return date.toEpochDay();
    } else if (value instanceof OffsetDateTime timestamp) {
      return ChronoUnit.MICROS.between(EPOCH, timestamp);
    } else if (value instanceof LocalDateTime timestamp) {
      return ChronoUnit.MICROS.between(EPOCH, timestamp.atOffset(ZoneOffset.UTC));
    } else if (value instanceof ByteBuffer buffer) {
      byte[] bytes = new byte[buffer.remaining()];
      buffer.duplicate().get(bytes);
      return bytes;
    } else if (value instanceof UUID uuid) {
      return uuid.toString();
    }
    return value;
  }
}
