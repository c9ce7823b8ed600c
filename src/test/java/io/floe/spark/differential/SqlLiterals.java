package io.floe.spark.differential;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;

/**
 * Spells Java values as Spark SQL literals, so that a generated predicate names exactly the value
 * the test meant: floats and doubles by their shortest round-trip text, NaN and infinities through
 * casts from strings, decimals with their scale, timestamps with microseconds and an explicit zone.
 */
final class SqlLiterals {
  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

  private SqlLiterals() {}

  static String bool(boolean value) {
    return value ? "TRUE" : "FALSE";
  }

  /** An INT literal; the smallest int is not a literal in SQL (its negation overflows). */
  static String integer(int value) {
    return value == Integer.MIN_VALUE ? "CAST(-2147483648 AS INT)" : Integer.toString(value);
  }

  static String bigint(long value) {
    return value == Long.MIN_VALUE ? "CAST('-9223372036854775808' AS BIGINT)" : value + "L";
  }

  static String floatValue(float value) {
    if (Float.isNaN(value)) {
      return "CAST('NaN' AS FLOAT)";
    } else if (Float.isInfinite(value)) {
      return value > 0 ? "CAST('Infinity' AS FLOAT)" : "CAST('-Infinity' AS FLOAT)";
    }
    return "CAST('" + Float.toString(value) + "' AS FLOAT)";
  }

  static String doubleValue(double value) {
    if (Double.isNaN(value)) {
      return "CAST('NaN' AS DOUBLE)";
    } else if (Double.isInfinite(value)) {
      return value > 0 ? "CAST('Infinity' AS DOUBLE)" : "CAST('-Infinity' AS DOUBLE)";
    } else if (value == 0.0d) {
      // "-0.0D" would parse as the negation of 0.0D, which is -0.0 too, but spell it plainly
      return 1.0d / value < 0 ? "CAST('-0.0' AS DOUBLE)" : "0.0D";
    }
    return Double.toString(value) + "D";
  }

  /** A decimal literal whose type has exactly the value's precision and scale. */
  static String decimal(BigDecimal value) {
    return value.toPlainString() + "BD";
  }

  /** A decimal literal of an explicit type. */
  static String decimal(BigDecimal value, int precision, int scale) {
    return "CAST('" + value.toPlainString() + "' AS DECIMAL(" + precision + ", " + scale + "))";
  }

  static String date(LocalDate value) {
    return "DATE '" + isoDate(value) + "'";
  }

  /** A timestamp literal at an instant, written in UTC. */
  static String timestamp(Instant value) {
    LocalDateTime utc = LocalDateTime.ofEpochSecond(value.getEpochSecond(), value.getNano(), ZoneOffset.UTC);
    return "TIMESTAMP '" + local(utc) + "Z'";
  }

  /** A timestamp literal read in the session time zone. */
  static String timestampInSessionZone(LocalDateTime value) {
    return "TIMESTAMP '" + local(value) + "'";
  }

  /** A timestamp literal at a wall-clock time in a named offset. */
  static String timestampWithOffset(LocalDateTime value, ZoneOffset offset) {
    return "TIMESTAMP '" + local(value) + offset.getId().replace("Z", "+00:00") + "'";
  }

  static String timestampNtz(LocalDateTime value) {
    return "TIMESTAMP_NTZ '" + local(value) + "'";
  }

  /** A string literal; backslashes, quotes and control characters are escaped. */
  static String string(String value) {
    StringBuilder sql = new StringBuilder("'");
    for (int i = 0; i < value.length(); i += 1) {
      char c = value.charAt(i);
      if (c == '\\' || c == '\'') {
        sql.append('\\').append(c);
      } else if (c < 0x20) {
        sql.append(String.format("\\u%04x", (int) c));
      } else {
        sql.append(c);
      }
    }
    return sql.append('\'').toString();
  }

  static String binary(byte[] value) {
    return "X'" + HexFormat.of().withUpperCase().formatHex(value) + "'";
  }

  /** The pattern of a LIKE that matches strings starting with {@code prefix}, escapes included. */
  static String likePrefix(String prefix) {
    return likeEscape(prefix, '\\') + "%";
  }

  /** Escapes LIKE's wildcards and the escape character itself with {@code escape}. */
  static String likeEscape(String text, char escape) {
    StringBuilder pattern = new StringBuilder();
    for (int i = 0; i < text.length(); i += 1) {
      char c = text.charAt(i);
      if (c == '%' || c == '_' || c == escape) {
        pattern.append(escape);
      }
      pattern.append(c);
    }
    return pattern.toString();
  }

  private static String isoDate(LocalDate value) {
    return String.format(
        "%04d-%02d-%02d", value.getYear(), value.getMonthValue(), value.getDayOfMonth());
  }

  private static String local(LocalDateTime value) {
    return LOCAL.format(value);
  }
}
