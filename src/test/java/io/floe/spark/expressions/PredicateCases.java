package io.floe.spark.expressions;

import static io.floe.spark.expressions.V2.bin;
import static io.floe.spark.expressions.V2.bool;
import static io.floe.spark.expressions.V2.cast;
import static io.floe.spark.expressions.V2.col;
import static io.floe.spark.expressions.V2.date;
import static io.floe.spark.expressions.V2.dec;
import static io.floe.spark.expressions.V2.doubleLit;
import static io.floe.spark.expressions.V2.intLit;
import static io.floe.spark.expressions.V2.nullOf;
import static io.floe.spark.expressions.V2.pred;
import static io.floe.spark.expressions.V2.str;
import static io.floe.spark.expressions.V2.upper;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.filter.AlwaysFalse;
import org.apache.spark.sql.connector.expressions.filter.AlwaysTrue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/** Spark predicates over {@link SampleTable}, as Spark's optimizer could push them. */
final class PredicateCases {

  private static final List<String> ALL_OPS = List.of("=", "<=>", "<>", "<", "<=", ">", ">=");
  private static final List<String> EQUALITY_OPS = List.of("=", "<=>", "<>");

  /** A column operand, the literals to compare it with, and the operators that apply. */
  private record Operand(Expression column, List<Expression> literals, List<String> ops) {}

  private PredicateCases() {}

  /** Predicates on one column that convert exactly: comparisons, IN, null tests, prefixes. */
  static List<Predicate> convertibleLeaves() {
    List<Predicate> leaves = new ArrayList<>();
    for (Operand operand : operands()) {
      for (Expression literal : operand.literals()) {
        for (String op : operand.ops()) {
          leaves.add(pred(op, operand.column(), literal));
          leaves.add(pred(op, literal, operand.column()));
        }
      }
      leaves.addAll(inLists(operand));
      leaves.add(pred("IS_NULL", operand.column()));
      leaves.add(pred("IS_NOT_NULL", operand.column()));
    }
    for (String prefix :
        List.of("", "a", "ab", "abc", "%", "%x", "a%", "a_", "a\\", "a\\b", "é", "\uD83D")) {
      leaves.add(pred("STARTS_WITH", col("s"), str(prefix)));
    }
    leaves.add(pred("STARTS_WITH", col("s"), nullOf(DataTypes.StringType)));
    leaves.add(pred("IS_NULL", col("st")));
    leaves.add(pred("IS_NOT_NULL", col("st")));
    leaves.add(pred("BOOLEAN_EXPRESSION", col("b")));
    leaves.add(new AlwaysTrue());
    leaves.add(new AlwaysFalse());
    return leaves;
  }

  /** Predicates Spark may push that must stay with Spark. */
  static List<Predicate> unconvertibleLeaves() {
    return List.of(
        pred("ENDS_WITH", col("s"), str("b")),
        pred("CONTAINS", col("s"), str("a")),
        pred("=", upper(col("s")), str("X")),
        pred(">", cast(col("f"), DataTypes.FloatType, DataTypes.DoubleType), doubleLit(0.1)),
        pred("=", cast(col("f"), DataTypes.FloatType, DataTypes.DoubleType), doubleLit(1.0)),
        pred("=", col("i"), col("req")));
  }

  private static List<Predicate> inLists(Operand operand) {
    List<Expression> values = operand.literals().stream().filter(lit -> !isNull(lit)).toList();
    Expression nullValue =
        operand.literals().stream().filter(PredicateCases::isNull).findFirst().orElseThrow();
    List<Predicate> lists = new ArrayList<>();
    lists.add(in(operand.column(), nullValue));
    lists.add(in(operand.column(), values.toArray(new Expression[0])));
    for (int k = 0; k < values.size(); k += 1) {
      Expression next = values.get((k + 1) % values.size());
      lists.add(in(operand.column(), values.get(k)));
      lists.add(in(operand.column(), values.get(k), next));
      lists.add(in(operand.column(), values.get(k), nullValue, next));
    }
    return lists;
  }

  private static Predicate in(Expression column, Expression... values) {
    Expression[] children = new Expression[values.length + 1];
    children[0] = column;
    System.arraycopy(values, 0, children, 1, values.length);
    return pred("IN", children);
  }

  private static boolean isNull(Expression literal) {
    return literal instanceof org.apache.spark.sql.connector.expressions.Literal<?> l
        && l.value() == null;
  }

  private static List<Operand> operands() {
    List<Operand> operands = new ArrayList<>();
    operands.add(
        ordered(
            col("i"),
            DataTypes.IntegerType,
            V2::intLit,
            Integer.MIN_VALUE,
            -1,
            0,
            1,
            3,
            5,
            42,
            Integer.MAX_VALUE));
    operands.add(
        ordered(
            cast(col("i"), DataTypes.IntegerType, DataTypes.LongType),
            DataTypes.LongType,
            V2::longLit,
            Long.MIN_VALUE,
            -3_000_000_000L,
            Integer.MIN_VALUE - 1L,
            (long) Integer.MIN_VALUE,
            0L,
            5L,
            (long) Integer.MAX_VALUE,
            Integer.MAX_VALUE + 1L,
            Long.MAX_VALUE));
    operands.add(
        ordered(
            col("l"),
            DataTypes.LongType,
            V2::longLit,
            Long.MIN_VALUE,
            -3_000_000_000L,
            -1L,
            0L,
            2L,
            5L,
            3_000_000_000L,
            Long.MAX_VALUE));
    operands.add(
        ordered(
            col("f"),
            DataTypes.FloatType,
            V2::floatLit,
            Float.NaN,
            Float.NEGATIVE_INFINITY,
            -Float.MAX_VALUE,
            -1.0f,
            -0.0f,
            0.0f,
            Float.MIN_VALUE,
            0.1f,
            0.5f,
            1.0f,
            Float.MAX_VALUE,
            Float.POSITIVE_INFINITY));
    operands.add(
        ordered(
            col("d"),
            DataTypes.DoubleType,
            V2::doubleLit,
            Double.NaN,
            Double.NEGATIVE_INFINITY,
            -1.0,
            -0.0,
            0.0,
            Double.MIN_VALUE,
            0.1,
            0.5,
            1.0,
            Double.MAX_VALUE,
            Double.POSITIVE_INFINITY));
    operands.add(
        new Operand(
            col("dec"),
            List.of(
                dec("1.5", 2, 1),
                dec("1.50", 9, 2),
                dec("0", 1, 0),
                dec("-1.00", 3, 2),
                dec("1.55", 3, 2),
                dec("9999999.99", 9, 2),
                dec("-9999999.99", 9, 2),
                dec("2.0000000000", 38, 10),
                nullOf(DataTypes.createDecimalType(9, 2))),
            ALL_OPS));
    operands.add(
        new Operand(
            col("s"),
            List.of(
                str(""),
                str("a"),
                str("ab"),
                str("b"),
                str("%x"),
                str("a%b"),
                str("a_b"),
                str("a\\b"),
                str("X"),
                str("é"),
                str("\uD83D\uDE00"),
                str("\uFFFD"),
                str("zz"),
                nullOf(DataTypes.StringType)),
            ALL_OPS));
    operands.add(
        new Operand(
            col("dt"),
            List.of(
                date(LocalDate.of(1900, 1, 1)),
                date(LocalDate.of(1969, 12, 31)),
                date(LocalDate.of(1970, 1, 1)),
                date(LocalDate.of(2000, 1, 1)),
                date(LocalDate.of(2024, 2, 29)),
                nullOf(DataTypes.DateType)),
            ALL_OPS));
    operands.add(timestamps(col("ts"), DataTypes.TimestampType, V2::timestamp));
    operands.add(timestamps(col("ntz"), DataTypes.TimestampNTZType, V2::timestampNtz));
    operands.add(
        new Operand(
            col("b"),
            List.of(
                bool(true),
                bool(false),
                new AlwaysTrue(),
                new AlwaysFalse(),
                nullOf(DataTypes.BooleanType)),
            ALL_OPS));
    operands.add(
        new Operand(
            col("bin"),
            List.of(
                bin(),
                bin(0),
                bin(1),
                bin(1, 2),
                bin(0x80),
                bin(0xff),
                nullOf(DataTypes.BinaryType)),
            ALL_OPS));
    operands.add(
        new Operand(
            col("st.x"),
            List.of(intLit(0), intLit(1), intLit(2), nullOf(DataTypes.IntegerType)),
            ALL_OPS));
    operands.add(
        new Operand(
            col("u"),
            List.of(
                str(SampleTable.UUID_A.toString()),
                str(SampleTable.UUID_B.toString()),
                str("00000000-0000-4000-8000-000000000000"),
                nullOf(DataTypes.StringType)),
            EQUALITY_OPS));
    operands.add(
        new Operand(
            col("fx"),
            List.of(
                bin(0, 1), bin(0, 0), bin(0x80, 0), bin(0xff, 0xff), nullOf(DataTypes.BinaryType)),
            ALL_OPS));
    operands.add(
        ordered(
            col("req"),
            DataTypes.IntegerType,
            V2::intLit,
            Integer.MIN_VALUE,
            0,
            7,
            8,
            Integer.MAX_VALUE));
    return operands;
  }

  private static Operand timestamps(
      Expression column, DataType type, Function<Long, Expression> literal) {
    List<Expression> literals = new ArrayList<>();
    for (LocalDateTime value :
        List.of(SampleTable.PRE_EPOCH, SampleTable.EPOCH, SampleTable.LEAP_DAY)) {
      literals.add(literal.apply(micros(value)));
    }
    literals.add(literal.apply(-1L));
    literals.add(literal.apply(1L));
    literals.add(nullOf(type));
    return new Operand(column, literals, ALL_OPS);
  }

  static long micros(LocalDateTime value) {
    return ChronoUnit.MICROS.between(SampleTable.EPOCH, value);
  }

  @SafeVarargs
  private static <T> Operand ordered(
      Expression column, DataType type, Function<T, Expression> literal, T... values) {
    List<Expression> literals = new ArrayList<>();
    for (T value : values) {
      literals.add(literal.apply(value));
    }
    literals.add(nullOf(type));
    return new Operand(column, literals, ALL_OPS);
  }
}
