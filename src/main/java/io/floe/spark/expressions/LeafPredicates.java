package io.floe.spark.expressions;

import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;

/**
 * Converts one Spark predicate that is not a boolean connective (a comparison, IN, a null test,
 * STARTS_WITH) into the rows where it is TRUE and the rows where it is FALSE.
 *
 * <p>The expressions are written so that each Iceberg evaluator gets them right, because Iceberg's
 * evaluators disagree with Spark and with each other in five places:
 *
 * <ul>
 *   <li>NULL: Iceberg's row {@code Evaluator} and {@code ResidualEvaluator} order NULL before every
 *       value, so {@code lessThan}, {@code lessThanOrEqual}, {@code notEqual}, {@code notIn},
 *       {@code notStartsWith} and {@code notNaN} all accept NULL. Where Spark's answer for NULL is
 *       NULL, those predicates are joined with {@code notNull}.
 *   <li>NaN: Iceberg's row evaluator orders NaN above every value, as Spark does, but its file
 *       metrics evaluator treats comparisons as never matching NaN and keeps NaN out of the bounds.
 *       Where Spark accepts NaN ({@code a > 1.0}), the comparison is joined with {@code isNaN}. A
 *       NaN literal, which Iceberg cannot hold, becomes {@code isNaN}, {@code notNaN} and null
 *       tests.
 *   <li>Signed zero: Spark treats -0.0 and 0.0 as equal; Iceberg orders -0.0 first. Equality with
 *       zero tests both zeros, and a range bound at zero takes the sign that includes or excludes
 *       both.
 *   <li>String IN: Iceberg's row evaluator throws when it looks a NULL up in a set of strings, so a
 *       string IN tests {@code notNull} first (its AND skips the right side of a false left side).
 *   <li>STARTS_WITH and truncate: Iceberg's truncate transform cuts strings after a number of code
 *       points, but projects {@code startsWith} onto a truncated partition by the prefix's number
 *       of UTF-16 chars, so a prefix with a supplementary character (one code point, two chars)
 *       of as many chars as the width becomes an equality and prunes matching files: with {@code
 *       truncate(s, 2)}, {@code startsWith(s, "𝄞")} skips the partition {@code "𝄞a"}. A prefix
 *       with a supplementary character is therefore not converted.
 * </ul>
 */
final class LeafPredicates {

  /** A comparison operator with the column on the left. */
  private enum Op {
    EQ,
    NULL_SAFE_EQ,
    NOT_EQ,
    LT,
    LT_EQ,
    GT,
    GT_EQ;

    static Optional<Op> forName(String name) {
      return switch (name) {
        case "=" -> Optional.of(EQ);
        case "<=>" -> Optional.of(NULL_SAFE_EQ);
        case "<>" -> Optional.of(NOT_EQ);
        case "<" -> Optional.of(LT);
        case "<=" -> Optional.of(LT_EQ);
        case ">" -> Optional.of(GT);
        case ">=" -> Optional.of(GT_EQ);
        default -> Optional.empty();
      };
    }

    /** The operator that gives the same answer with the operands swapped. */
    Op flip() {
      return switch (this) {
        case LT -> GT;
        case LT_EQ -> GT_EQ;
        case GT -> LT;
        case GT_EQ -> LT_EQ;
        default -> this;
      };
    }

    boolean isOrdering() {
      return this == LT || this == LT_EQ || this == GT || this == GT_EQ;
    }
  }

  private final Schema schema;
  private final boolean caseSensitive;

  LeafPredicates(Schema schema, boolean caseSensitive) {
    this.schema = Objects.requireNonNull(schema, "schema is null");
    this.caseSensitive = caseSensitive;
  }

  /** Converts the predicate, or returns empty when its name or operands are not supported. */
  Optional<TruthSets> convert(Predicate predicate) {
    org.apache.spark.sql.connector.expressions.Expression[] args = predicate.children();
    String name = predicate.name();
    switch (name) {
      case "IS_NULL":
        return args.length == 1
            ? nullTestable(args[0]).map(c -> new TruthSets(isNull(c), notNull(c)))
            : Optional.empty();
      case "IS_NOT_NULL":
        return args.length == 1
            ? nullTestable(args[0]).map(c -> new TruthSets(notNull(c), isNull(c)))
            : Optional.empty();
      case "IN":
        return in(args);
      case "STARTS_WITH":
        return args.length == 2 ? startsWith(args[0], args[1]) : Optional.empty();
      case "BOOLEAN_EXPRESSION":
        return args.length == 1 ? booleanColumn(args[0]) : Optional.empty();
      default:
        return args.length == 2
            ? Op.forName(name).flatMap(op -> comparison(op, args[0], args[1]))
            : Optional.empty();
    }
  }

  private Optional<Column> nullTestable(org.apache.spark.sql.connector.expressions.Expression arg) {
    return Column.resolve(arg, schema, caseSensitive)
        .filter(c -> c.type().isPrimitiveType() || c.type().isStructType());
  }

  private Optional<Column> comparable(org.apache.spark.sql.connector.expressions.Expression arg) {
    return Column.resolve(arg, schema, caseSensitive).filter(c -> c.type().isPrimitiveType());
  }

  private Optional<TruthSets> comparison(
      Op op,
      org.apache.spark.sql.connector.expressions.Expression left,
      org.apache.spark.sql.connector.expressions.Expression right) {
    if (left instanceof Literal<?> && !(right instanceof Literal<?>)) {
      return comparison(op.flip(), right, left);
    }
    if (!(right instanceof Literal<?> literal)) {
      return Optional.empty();
    }
    Optional<Column> column = comparable(left);
    if (column.isEmpty() || (op.isOrdering() && column.get().type().typeId() == Type.TypeID.UUID)) {
      // Spark orders uuids as strings, Iceberg as two signed longs
      return Optional.empty();
    }
    return LiteralValues.convert(literal, column.get().type())
        .map(value -> compare(column.get(), op, value));
  }

  private TruthSets compare(Column column, Op op, LiteralValues.Value value) {
    if (value.kind() == LiteralValues.Kind.NULL) {
      return op == Op.NULL_SAFE_EQ
          ? new TruthSets(isNull(column), notNull(column))
          : new TruthSets(Expressions.alwaysFalse(), Expressions.alwaysFalse());
    }
    switch (op) {
      case NOT_EQ:
        TruthSets equal = compare(column, Op.EQ, value);
        return new TruthSets(equal.whenFalse(), equal.whenTrue());
      case NULL_SAFE_EQ:
        TruthSets nullSafe = compare(column, Op.EQ, value);
        return new TruthSets(
            nullSafe.whenTrue(), Expressions.or(isNull(column), nullSafe.whenFalse()));
      default:
        break;
    }
    return switch (value.kind()) {
      case NAN -> compareWithNaN(column, op);
      case BELOW_MIN -> outOfRange(column, op == Op.GT || op == Op.GT_EQ);
      case ABOVE_MAX -> outOfRange(column, op == Op.LT || op == Op.LT_EQ);
      default -> compareWithValue(column, op, value);
    };
  }

  /** A literal outside the column type's range: for every non-null value the answer is fixed. */
  private TruthSets outOfRange(Column column, boolean holds) {
    return holds
        ? new TruthSets(notNull(column), Expressions.alwaysFalse())
        : new TruthSets(Expressions.alwaysFalse(), notNull(column));
  }

  /** Spark orders NaN above every other value and equal to itself. */
  private TruthSets compareWithNaN(Column column, Op op) {
    Expression nan = Expressions.isNaN(column.name());
    Expression number = Expressions.and(notNull(column), Expressions.notNaN(column.name()));
    return switch (op) {
      case EQ, GT_EQ -> new TruthSets(nan, number);
      case LT -> new TruthSets(number, nan);
      case LT_EQ -> new TruthSets(notNull(column), Expressions.alwaysFalse());
      case GT -> new TruthSets(Expressions.alwaysFalse(), notNull(column));
      default -> throw new IllegalArgumentException("Cannot compare with NaN: " + op);
    };
  }

  private TruthSets compareWithValue(Column column, Op op, LiteralValues.Value value) {
    String name = column.name();
    Expression notNull = notNull(column);
    // at zero, the bound that includes both zeros or excludes both
    Object below = value.isZero() ? negativeZero(value.value()) : value.value();
    Object above = value.isZero() ? positiveZero(value.value()) : value.value();
    return switch (op) {
      case EQ ->
          new TruthSets(equalTo(name, value), Expressions.and(notNull, notEqualTo(name, value)));
      case LT ->
          new TruthSets(
              Expressions.and(notNull, Expressions.lessThan(name, below)),
              orNaN(column, Expressions.greaterThanOrEqual(name, below)));
      case LT_EQ ->
          new TruthSets(
              Expressions.and(notNull, Expressions.lessThanOrEqual(name, above)),
              orNaN(column, Expressions.greaterThan(name, above)));
      case GT ->
          new TruthSets(
              orNaN(column, Expressions.greaterThan(name, above)),
              Expressions.and(notNull, Expressions.lessThanOrEqual(name, above)));
      case GT_EQ ->
          new TruthSets(
              orNaN(column, Expressions.greaterThanOrEqual(name, below)),
              Expressions.and(notNull, Expressions.lessThan(name, below)));
      default -> throw new IllegalArgumentException("Cannot compare with a value: " + op);
    };
  }

  private Optional<TruthSets> in(org.apache.spark.sql.connector.expressions.Expression[] args) {
    if (args.length == 0) {
      return Optional.empty();
    }
    Optional<Column> resolved = comparable(args[0]);
    if (resolved.isEmpty()) {
      return Optional.empty();
    }
    Column column = resolved.get();
    if (args.length == 1) {
      // whether NULL IN () is NULL or FALSE depends on a Spark setting
      return Optional.of(new TruthSets(Expressions.alwaysFalse(), null));
    }
    Set<Object> values = new LinkedHashSet<>();
    boolean hasNull = false;
    boolean hasNaN = false;
    for (int i = 1; i < args.length; i += 1) {
      if (!(args[i] instanceof Literal<?> literal)) {
        return Optional.empty();
      }
      Optional<LiteralValues.Value> converted = LiteralValues.convert(literal, column.type());
      if (converted.isEmpty()) {
        return Optional.empty();
      }
      LiteralValues.Value value = converted.get();
      switch (value.kind()) {
        case NULL -> hasNull = true;
        case NAN -> hasNaN = true;
        case VALUE -> {
          values.add(value.value());
          if (value.isZero()) {
            values.add(negativeZero(value.value()));
            values.add(positiveZero(value.value()));
          }
        }
        default -> {
          // a value outside the column's range equals no row
        }
      }
    }
    String name = column.name();
    Expression whenTrue =
        Expressions.or(
            hasNaN ? Expressions.isNaN(name) : Expressions.alwaysFalse(),
            values.isEmpty() ? Expressions.alwaysFalse() : inSet(column, values));
    // a NULL in the list makes every non-matching row NULL rather than FALSE
    Expression whenFalse =
        hasNull
            ? Expressions.alwaysFalse()
            : Expressions.and(
                notNull(column),
                Expressions.and(
                    hasNaN ? Expressions.notNaN(name) : Expressions.alwaysTrue(),
                    values.isEmpty() ? Expressions.alwaysTrue() : Expressions.notIn(name, values)));
    return Optional.of(new TruthSets(whenTrue, whenFalse));
  }

  private Optional<TruthSets> startsWith(
      org.apache.spark.sql.connector.expressions.Expression arg,
      org.apache.spark.sql.connector.expressions.Expression prefix) {
    Optional<Column> column = comparable(arg).filter(c -> c.type().typeId() == Type.TypeID.STRING);
    if (column.isEmpty() || !(prefix instanceof Literal<?> literal)) {
      return Optional.empty();
    }
    String name = column.get().name();
    return LiteralValues.convert(literal, column.get().type())
        .filter(value -> value.kind() == LiteralValues.Kind.NULL || countsCharsAsCodePoints(value))
        .map(
            value ->
                value.kind() == LiteralValues.Kind.NULL
                    ? new TruthSets(Expressions.alwaysFalse(), Expressions.alwaysFalse())
                    : new TruthSets(
                        Expressions.startsWith(name, (String) value.value()),
                        Expressions.and(
                            notNull(column.get()),
                            Expressions.notStartsWith(name, (String) value.value()))));
  }

  /** Whether a string has as many code points as chars: no supplementary characters. */
  private static boolean countsCharsAsCodePoints(LiteralValues.Value value) {
    String text = (String) value.value();
    return text.codePointCount(0, text.length()) == text.length();
  }

  /** A boolean column used as a predicate is TRUE when the column is true. */
  private Optional<TruthSets> booleanColumn(
      org.apache.spark.sql.connector.expressions.Expression arg) {
    if (!(arg instanceof NamedReference)) {
      return Optional.empty();
    }
    return comparable(arg)
        .filter(c -> c.type().typeId() == Type.TypeID.BOOLEAN)
        .map(c -> compare(c, Op.EQ, LiteralValues.Value.of(true)));
  }

  private static Expression isNull(Column column) {
    return column.nullable() ? Expressions.isNull(column.name()) : Expressions.alwaysFalse();
  }

  private static Expression notNull(Column column) {
    return column.nullable() ? Expressions.notNull(column.name()) : Expressions.alwaysTrue();
  }

  /** An IN test; see the class comment for why a string column is tested for NULL first. */
  private static Expression inSet(Column column, Set<Object> values) {
    Expression in = Expressions.in(column.name(), values);
    return column.type().typeId() == Type.TypeID.STRING ? Expressions.and(notNull(column), in) : in;
  }

  private static Expression orNaN(Column column, Expression expression) {
    return column.isFloatingPoint()
        ? Expressions.or(expression, Expressions.isNaN(column.name()))
        : expression;
  }

  private static Expression equalTo(String name, LiteralValues.Value value) {
    return value.isZero()
        ? Expressions.in(name, positiveZero(value.value()), negativeZero(value.value()))
        : Expressions.equal(name, value.value());
  }

  private static Expression notEqualTo(String name, LiteralValues.Value value) {
    return value.isZero()
        ? Expressions.notIn(name, positiveZero(value.value()), negativeZero(value.value()))
        : Expressions.notEqual(name, value.value());
  }

  private static Object negativeZero(Object zero) {
    return zero instanceof Float ? (Object) (-0.0f) : (Object) (-0.0d);
  }

  private static Object positiveZero(Object zero) {
    return zero instanceof Float ? (Object) 0.0f : (Object) 0.0d;
  }
}
