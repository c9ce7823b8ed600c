package io.floe.spark.differential;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Row;

/**
 * Builds random filter predicates as SQL text over the columns of {@link EdgeRows}, from a seed:
 * the same seed and rows give the same predicates.
 *
 * <p>Predicates nest AND, OR, NOT and IS [NOT] TRUE/FALSE around leaves: comparisons with every
 * operator against literals of the column's type and of other types Spark coerces (so that Spark
 * adds casts on either side), IN lists with NULL and NaN, null tests, LIKE with escaped and
 * unescaped wildcards, {@code startswith}, {@code endswith} and {@code contains}, explicit casts of
 * columns, functions of columns, comparisons of two columns and boolean constants. Literal values
 * are drawn from the rows themselves and from the edge values, often moved by the smallest step
 * (one ulp, one microsecond, one day, one unit of a finer decimal scale), so that they fall on and
 * right next to the values stored and to the bounds of files and partitions.
 */
final class PredicateGenerator {
  /** The SQL types that generated operands have. */
  enum Type {
    BOOL, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, DATE, TS, NTZ, STRING, BINARY
  }

  /** A typed SQL expression. */
  record Operand(String sql, Type type) {}

  private static final String[] OPERATORS = {"=", "<=>", "<", "<=", ">", ">=", "<>", "!=", "=="};
  private static final List<String> EXTRA_STRINGS =
      List.of("0", "1", "-1", "7", "2147483647", "1970-01-01", "1969-12-31", "2024-03-10",
          "1970-01-01 00:00:00", "true", "NaN", "star\\", "star", "日本語", "AB", "%", "_", "\\");
  private static final ZoneOffset[] OFFSETS = {
    ZoneOffset.UTC, ZoneOffset.ofHours(-8), ZoneOffset.ofHoursMinutes(5, 30),
    ZoneOffset.ofHours(14), ZoneOffset.ofHours(-11), ZoneOffset.ofHoursMinutes(12, 45)
  };

  private final Random random;
  private final List<Row> rows;

  PredicateGenerator(long seed, List<Row> rows) {
    this.random = new Random(seed);
    this.rows = List.copyOf(rows);
  }

  /** The next predicate. */
  String next() {
    return predicate(0);
  }

  private String predicate(int depth) {
    int r = random.nextInt(100);
    if (depth < 3 && r < 45) {
      if (r < 15) {
        return "(" + predicate(depth + 1) + " AND " + predicate(depth + 1) + ")";
      } else if (r < 28) {
        return "(" + predicate(depth + 1) + " OR " + predicate(depth + 1) + ")";
      } else if (r < 40) {
        return "NOT (" + predicate(depth + 1) + ")";
      }
      return wrapped(predicate(depth + 1));
    }
    return leaf();
  }

  private String wrapped(String predicate) {
    return switch (random.nextInt(7)) {
      case 0 -> "(" + predicate + ") IS TRUE";
      case 1 -> "(" + predicate + ") IS NOT TRUE";
      case 2 -> "(" + predicate + ") IS FALSE";
      case 3 -> "(" + predicate + ") IS NOT FALSE";
      case 4 -> "coalesce(" + predicate + ", FALSE)";
      case 5 -> "(" + predicate + ") = TRUE";
      default -> "(" + predicate + ") <=> NULL";
    };
  }

  private String leaf() {
    int r = random.nextInt(100);
    if (r < 28) {
      return comparison(column(), true);
    } else if (r < 36) {
      return comparison(column(), false);
    } else if (r < 45) {
      return in(random.nextInt(4) == 0 ? castOperand() : column());
    } else if (r < 51) {
      return nullTest(random.nextInt(4) == 0 ? castOperand() : column());
    } else if (r < 63) {
      return like();
    } else if (r < 75) {
      return comparison(castOperand(), random.nextInt(3) > 0);
    } else if (r < 82) {
      return comparison(function(), true);
    } else if (r < 86) {
      return twoColumns();
    } else if (r < 91) {
      return booleanColumn();
    } else if (r < 95) {
      Operand column = column();
      return column.sql() + (random.nextBoolean() ? " BETWEEN " : " NOT BETWEEN ")
          + literal(column.type()) + " AND " + literal(column.type());
    } else if (r < 97) {
      String floating = random.nextBoolean() ? "f" : "d";
      return random.nextBoolean() ? "isnan(" + floating + ")" : "NOT isnan(" + floating + ")";
    }
    return oneOf("TRUE", "FALSE", "CAST(NULL AS BOOLEAN)", "1 = 1");
  }

  private Operand column() {
    return switch (random.nextInt(13)) {
      case 0 -> new Operand("id", Type.INT);
      case 1 -> new Operand("b", Type.BOOL);
      case 2 -> new Operand("i", Type.INT);
      case 3 -> new Operand("l", Type.BIGINT);
      case 4 -> new Operand("f", Type.FLOAT);
      case 5 -> new Operand("d", Type.DOUBLE);
      case 6 -> new Operand("dec9", Type.DECIMAL);
      case 7 -> new Operand("dec38", Type.DECIMAL);
      case 8 -> new Operand("dt", Type.DATE);
      case 9 -> new Operand("ts", Type.TS);
      case 10 -> new Operand("ntz", Type.NTZ);
      case 11 -> new Operand("s", Type.STRING);
      default -> new Operand("bin", Type.BINARY);
    };
  }

  private Operand castOperand() {
    return switch (random.nextInt(32)) {
      case 0, 1 -> new Operand("CAST(i AS BIGINT)", Type.BIGINT);
      case 2 -> new Operand("CAST(i AS DOUBLE)", Type.DOUBLE);
      case 3 -> new Operand("CAST(i AS FLOAT)", Type.FLOAT);
      case 4 -> new Operand("CAST(i AS STRING)", Type.STRING);
      case 5 -> new Operand("CAST(i AS DECIMAL(12, 2))", Type.DECIMAL);
      case 6 -> new Operand("CAST(l AS INT)", Type.INT);
      case 7 -> new Operand("CAST(l AS DOUBLE)", Type.DOUBLE);
      case 8, 9 -> new Operand("CAST(f AS DOUBLE)", Type.DOUBLE);
      case 10 -> new Operand("CAST(f AS INT)", Type.INT);
      case 11 -> new Operand("CAST(f AS DECIMAL(10, 2))", Type.DECIMAL);
      case 12, 13 -> new Operand("CAST(d AS INT)", Type.INT);
      case 14 -> new Operand("CAST(d AS FLOAT)", Type.FLOAT);
      case 15 -> new Operand("CAST(d AS BIGINT)", Type.BIGINT);
      case 16 -> new Operand("CAST(dec9 AS DOUBLE)", Type.DOUBLE);
      case 17 -> new Operand("CAST(dec9 AS INT)", Type.INT);
      case 18 -> new Operand("CAST(dec9 AS DECIMAL(5, 1))", Type.DECIMAL);
      case 19 -> new Operand("CAST(dec38 AS DECIMAL(12, 2))", Type.DECIMAL);
      case 20 -> new Operand("CAST(dec38 AS DOUBLE)", Type.DOUBLE);
      case 21 -> new Operand("CAST(dt AS TIMESTAMP)", Type.TS);
      case 22 -> new Operand("CAST(dt AS TIMESTAMP_NTZ)", Type.NTZ);
      case 23, 24 -> new Operand("CAST(ts AS DATE)", Type.DATE);
      case 25 -> new Operand("CAST(ts AS TIMESTAMP_NTZ)", Type.NTZ);
      case 26 -> new Operand("CAST(ntz AS DATE)", Type.DATE);
      case 27 -> new Operand("CAST(ntz AS TIMESTAMP)", Type.TS);
      case 28 -> new Operand("CAST(s AS INT)", Type.INT);
      case 29 -> new Operand("CAST(s AS BINARY)", Type.BINARY);
      case 30 -> new Operand("CAST(bin AS STRING)", Type.STRING);
      default -> new Operand("CAST(b AS INT)", Type.INT);
    };
  }

  private Operand function() {
    return switch (random.nextInt(24)) {
      case 0 -> new Operand("upper(s)", Type.STRING);
      case 1 -> new Operand("lower(s)", Type.STRING);
      case 2 -> new Operand("substring(s, 1, 2)", Type.STRING);
      case 3 -> new Operand("concat(s, 'x')", Type.STRING);
      case 4 -> new Operand("length(s)", Type.INT);
      case 5 -> new Operand("octet_length(bin)", Type.INT);
      case 6 -> new Operand("abs(i)", Type.INT);
      case 7 -> new Operand("i + 1", Type.INT);
      case 8 -> new Operand("i % 3", Type.INT);
      case 9 -> new Operand("-i", Type.INT);
      case 10 -> new Operand("l + 1", Type.BIGINT);
      case 11 -> new Operand("abs(d)", Type.DOUBLE);
      case 12 -> new Operand("f * 2", Type.FLOAT);
      case 13 -> new Operand("-d", Type.DOUBLE);
      case 14 -> new Operand("year(dt)", Type.INT);
      case 15 -> new Operand("hour(ts)", Type.INT);
      case 16 -> new Operand("dayofmonth(ntz)", Type.INT);
      case 17 -> new Operand("date_trunc('HOUR', ts)", Type.TS);
      case 18 -> new Operand("date_add(dt, 1)", Type.DATE);
      case 19 -> new Operand("coalesce(i, 0)", Type.INT);
      case 20 -> new Operand("nvl(s, 'x')", Type.STRING);
      case 21 -> new Operand("nanvl(d, 0.0D)", Type.DOUBLE);
      case 22 -> new Operand("hex(bin)", Type.STRING);
      default -> new Operand("unix_micros(ts)", Type.BIGINT);
    };
  }

  /** A comparison of an operand with a literal of its own type, or of a type Spark coerces. */
  private String comparison(Operand operand, boolean sameType) {
    String literal = literal(sameType ? operand.type() : coercible(operand.type()));
    String op = OPERATORS[random.nextInt(OPERATORS.length)];
    return random.nextInt(4) == 0
        ? literal + " " + op + " " + operand.sql()
        : operand.sql() + " " + op + " " + literal;
  }

  private String in(Operand operand) {
    int count = 1 + random.nextInt(5);
    List<String> values = new ArrayList<>();
    for (int k = 0; k < count; k += 1) {
      int r = random.nextInt(10);
      if (r == 0) {
        values.add("NULL");
      } else if (r == 1) {
        values.add(literal(coercible(operand.type())));
      } else {
        values.add(literal(operand.type()));
      }
    }
    if ((operand.type() == Type.FLOAT || operand.type() == Type.DOUBLE) && random.nextInt(3) == 0) {
      values.add(random.nextInt(values.size() + 1), "CAST('NaN' AS " + operand.type() + ")");
    }
    return operand.sql() + (random.nextInt(4) == 0 ? " NOT IN (" : " IN (")
        + String.join(", ", values) + ")";
  }

  private String nullTest(Operand operand) {
    return switch (random.nextInt(4)) {
      case 0 -> operand.sql() + " IS NULL";
      case 1 -> operand.sql() + " IS NOT NULL";
      case 2 -> "isnull(" + operand.sql() + ")";
      default -> "isnotnull(" + operand.sql() + ")";
    };
  }

  private String like() {
    String column = random.nextInt(6) == 0 ? oneOf("upper(s)", "CAST(bin AS STRING)") : "s";
    String text = likeText();
    String not = random.nextInt(5) == 0 ? " NOT" : "";
    return switch (random.nextInt(12)) {
      case 0, 1, 2 -> column + not + " LIKE " + SqlLiterals.string(SqlLiterals.likePrefix(text));
      case 3 -> column + not + " LIKE "
          + SqlLiterals.string(text.replace("\\", "\\\\") + "%");
      case 4 -> column + not + " LIKE " + SqlLiterals.string("%" + SqlLiterals.likeEscape(text, '\\'));
      case 5 -> column + not + " LIKE "
          + SqlLiterals.string("%" + SqlLiterals.likeEscape(text, '\\') + "%");
      case 6 -> column + not + " LIKE " + SqlLiterals.string(SqlLiterals.likeEscape(text, '\\'));
      case 7 -> column + not + " LIKE "
          + SqlLiterals.string(SqlLiterals.likeEscape(text, '!') + "%") + " ESCAPE '!'";
      case 8, 9 -> "startswith(" + column + ", " + SqlLiterals.string(text) + ")";
      case 10 -> "endswith(" + column + ", " + SqlLiterals.string(text) + ")";
      default -> "contains(" + column + ", " + SqlLiterals.string(text) + ")";
    };
  }

  /** Text for LIKE and prefix tests: a stored string, a prefix of one, or an edge string. */
  private String likeText() {
    String text = random.nextBoolean() ? stringValue() : EdgeRows.STRINGS.get(
        random.nextInt(EdgeRows.STRINGS.size()));
    int[] codePoints = text.codePoints().toArray();
    int length = codePoints.length == 0 ? 0 : random.nextInt(codePoints.length + 1);
    return random.nextInt(3) == 0 ? text : new String(codePoints, 0, length);
  }

  private String twoColumns() {
    String[][] pairs = {
      {"i", "l"}, {"i", "id"}, {"f", "d"}, {"CAST(f AS DOUBLE)", "d"}, {"dec9", "dec38"},
      {"i", "dec9"}, {"dt", "ts"}, {"ts", "ntz"}, {"dt", "CAST(ts AS DATE)"}, {"s", "CAST(bin AS STRING)"},
      {"d", "dec38"}, {"l", "d"}
    };
    String[] pair = pairs[random.nextInt(pairs.length)];
    return pair[0] + " " + OPERATORS[random.nextInt(OPERATORS.length)] + " " + pair[1];
  }

  private String booleanColumn() {
    return oneOf("b", "NOT b", "b = TRUE", "b = FALSE", "b <=> NULL", "b <=> FALSE", "b <> FALSE",
        "b IS TRUE", "b IS NOT FALSE", "b IN (TRUE, NULL)", "b IN (FALSE)", "b AND b");
  }

  /** A type that Spark compares with the given one by adding a cast to one side. */
  private Type coercible(Type type) {
    return switch (type) {
      case INT, BIGINT -> oneOf(Type.INT, Type.BIGINT, Type.DECIMAL, Type.DOUBLE, Type.FLOAT);
      case FLOAT, DOUBLE -> oneOf(Type.FLOAT, Type.DOUBLE, Type.DECIMAL, Type.INT);
      case DECIMAL -> oneOf(Type.DECIMAL, Type.INT, Type.BIGINT, Type.DOUBLE);
      case DATE, TS, NTZ -> oneOf(Type.DATE, Type.TS, Type.NTZ);
      default -> type;
    };
  }

  /** A literal of the type, or rarely a NULL of it. */
  String literal(Type type) {
    if (random.nextInt(30) == 0) {
      return random.nextBoolean() ? "NULL" : "CAST(NULL AS " + sqlType(type) + ")";
    }
    return switch (type) {
      case BOOL -> SqlLiterals.bool(random.nextBoolean());
      case INT -> intLiteral();
      case BIGINT -> SqlLiterals.bigint(longValue());
      case FLOAT -> SqlLiterals.floatValue(floatValue());
      case DOUBLE -> SqlLiterals.doubleValue(doubleValue());
      case DECIMAL -> decimalLiteral();
      case DATE -> SqlLiterals.date(dateValue());
      case TS -> timestampLiteral();
      case NTZ -> SqlLiterals.timestampNtz(ntzValue());
      case STRING -> SqlLiterals.string(random.nextInt(8) == 0
          ? EXTRA_STRINGS.get(random.nextInt(EXTRA_STRINGS.size())) : stringValue());
      case BINARY -> SqlLiterals.binary(binaryValue());
    };
  }

  private static String sqlType(Type type) {
    return switch (type) {
      case BOOL -> "BOOLEAN";
      case DECIMAL -> "DECIMAL(9, 2)";
      case TS -> "TIMESTAMP";
      case NTZ -> "TIMESTAMP_NTZ";
      default -> type.name();
    };
  }

  private String intLiteral() {
    int value = (int) clampToInt(longValue());
    return switch (random.nextInt(8)) {
      case 0 -> value >= Short.MIN_VALUE && value <= Short.MAX_VALUE
          ? "CAST(" + value + " AS SMALLINT)" : SqlLiterals.integer(value);
      case 1 -> "CAST(" + SqlLiterals.integer(value) + " AS INT)";
      default -> SqlLiterals.integer(value);
    };
  }

  private static long clampToInt(long value) {
    return Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, value));
  }

  private long longValue() {
    long value = switch (random.nextInt(5)) {
      case 0 -> EdgeRows.INTS.get(random.nextInt(EdgeRows.INTS.size()));
      case 1 -> EdgeRows.LONGS.get(random.nextInt(EdgeRows.LONGS.size()));
      case 2 -> fromRows(3, Long.class, () -> (long) random.nextInt(21) - 10);
      default -> fromRows(2, Integer.class, () -> random.nextInt(21) - 10).longValue();
    };
    return switch (random.nextInt(6)) {
      case 0 -> value == Long.MIN_VALUE ? value : value - 1;
      case 1 -> value == Long.MAX_VALUE ? value : value + 1;
      default -> value;
    };
  }

  private float floatValue() {
    float value = switch (random.nextInt(4)) {
      case 0 -> EdgeRows.FLOATS.get(random.nextInt(EdgeRows.FLOATS.size()));
      case 1 -> (float) doubleValue();
      default -> fromRows(4, Float.class, () -> (random.nextInt(33) - 16) / 4.0f);
    };
    return switch (random.nextInt(8)) {
      case 0 -> Math.nextUp(value);
      case 1 -> Math.nextDown(value);
      case 2 -> -value;
      default -> value;
    };
  }

  private double doubleValue() {
    double value = switch (random.nextInt(5)) {
      case 0 -> EdgeRows.DOUBLES.get(random.nextInt(EdgeRows.DOUBLES.size()));
      case 1 -> fromRows(4, Float.class, () -> 0.1f).doubleValue();
      case 2 -> fromRows(2, Integer.class, () -> 1).doubleValue();
      default -> fromRows(5, Double.class, () -> (random.nextInt(21) - 10) / 10.0d);
    };
    return switch (random.nextInt(8)) {
      case 0 -> Math.nextUp(value);
      case 1 -> Math.nextDown(value);
      case 2 -> -value;
      default -> value;
    };
  }

  private String decimalLiteral() {
    BigDecimal value = switch (random.nextInt(6)) {
      case 0 -> EdgeRows.DECIMALS_9.get(random.nextInt(EdgeRows.DECIMALS_9.size()));
      case 1 -> EdgeRows.DECIMALS_38.get(random.nextInt(EdgeRows.DECIMALS_38.size()));
      case 2 -> fromRows(7, BigDecimal.class, () -> BigDecimal.ONE);
      case 3 -> BigDecimal.valueOf(fromRows(2, Integer.class, () -> 0));
      default -> fromRows(6, BigDecimal.class, () -> BigDecimal.ZERO);
    };
    value = switch (random.nextInt(6)) {
      case 0 -> value.stripTrailingZeros();
      case 1 -> value.setScale(value.scale() + 1 + random.nextInt(3));
      case 2 -> value.add(BigDecimal.ONE.movePointLeft(value.scale() + 1));
      case 3 -> value.subtract(BigDecimal.ONE.movePointLeft(value.scale() + 1));
      default -> value;
    };
    if (value.scale() < 0) {
      value = value.setScale(0);
    }
    if (value.precision() > 38) {
      value = value.setScale(Math.max(0, value.scale() - (value.precision() - 38)),
          java.math.RoundingMode.DOWN);
    }
    int precision = Math.max(value.precision(), value.scale() + 1);
    if (precision > 38) {
      return SqlLiterals.decimal(value);
    }
    return random.nextInt(3) == 0
        ? SqlLiterals.decimal(value, Math.min(38, precision + random.nextInt(3)), value.scale())
        : (random.nextBoolean() ? SqlLiterals.decimal(value) : value.toPlainString());
  }

  private LocalDate dateValue() {
    LocalDate value = switch (random.nextInt(3)) {
      case 0 -> EdgeRows.DATES.get(random.nextInt(EdgeRows.DATES.size()));
      case 1 -> instantValue().atOffset(ZoneOffset.UTC).toLocalDate();
      default -> fromRows(8, LocalDate.class, () -> LocalDate.of(1970, 1, 1));
    };
    long shift = random.nextInt(5) == 0 ? random.nextInt(3) - 1 : 0;
    LocalDate shifted = value.plusDays(shift);
    return shifted.getYear() < 1 || shifted.getYear() > 9999 ? value : shifted;
  }

  private Instant instantValue() {
    Instant value = switch (random.nextInt(4)) {
      case 0 -> EdgeRows.INSTANTS.get(random.nextInt(EdgeRows.INSTANTS.size()));
      case 1 -> fromRows(10, LocalDateTime.class, () -> LocalDateTime.of(1970, 1, 1, 0, 0))
          .toInstant(ZoneOffset.UTC);
      default -> fromRows(9, Instant.class, () -> Instant.EPOCH);
    };
    long[] steps = {0, 0, 0, 1, -1, 1_000_000, -1_000_000, 3_600_000_000L, -86_400_000_000L};
    Instant shifted = value.plus(steps[random.nextInt(steps.length)], ChronoUnit.MICROS);
    int year = shifted.atOffset(ZoneOffset.UTC).getYear();
    return year < 1 || year > 9999 ? value : shifted;
  }

  private String timestampLiteral() {
    Instant value = instantValue();
    return switch (random.nextInt(3)) {
      case 0 -> {
        ZoneOffset offset = OFFSETS[random.nextInt(OFFSETS.length)];
        LocalDateTime local = value.atOffset(offset).toLocalDateTime();
        yield local.getYear() < 1 || local.getYear() > 9999
            ? SqlLiterals.timestamp(value)
            : SqlLiterals.timestampWithOffset(local, offset);
      }
      case 1 -> SqlLiterals.timestampInSessionZone(ntzValue());
      default -> SqlLiterals.timestamp(value);
    };
  }

  private LocalDateTime ntzValue() {
    return instantValue().atOffset(ZoneOffset.UTC).toLocalDateTime();
  }

  private String stringValue() {
    String value = fromRows(11, String.class, () -> "abc");
    int[] codePoints = value.codePoints().toArray();
    return random.nextInt(4) == 0 && codePoints.length > 0
        ? new String(codePoints, 0, random.nextInt(codePoints.length))
        : value;
  }

  private byte[] binaryValue() {
    byte[] value = random.nextBoolean()
        ? EdgeRows.BINARIES.get(random.nextInt(EdgeRows.BINARIES.size()))
        : fromRows(12, byte[].class, () -> new byte[] {1});
    return random.nextInt(4) == 0 && value.length > 0
        ? Arrays.copyOf(value, random.nextInt(value.length))
        : value;
  }

  /** A non-null value of a column from a random row, or the fallback. */
  private <T> T fromRows(int column, Class<T> type, java.util.function.Supplier<T> fallback) {
    for (int attempt = 0; attempt < 4; attempt += 1) {
      Object value = rows.get(random.nextInt(rows.size())).get(column);
      if (value != null) {
        return type.cast(value);
      }
    }
    return fallback.get();
  }

  @SafeVarargs
  private <T> T oneOf(T... choices) {
    return choices[random.nextInt(choices.length)];
  }
}
