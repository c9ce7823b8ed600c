package io.floe.spark.expressions;

import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.filter.Predicate;

/**
 * Converts Spark DataSource V2 filter predicates into Iceberg expressions for scan planning and row
 * filtering.
 *
 * <p>Spark evaluates a predicate with SQL's three-valued logic and keeps a row only when the
 * predicate is TRUE; a comparison with NULL is NULL, and {@code NOT NULL} is NULL too. Iceberg's
 * expressions are two-valued. The conversion therefore works out, for every part of a predicate,
 * both the rows where it is TRUE and the rows where it is FALSE, and a {@code NOT} selects the
 * latter: {@code NOT (a = 1)} becomes {@code a IS NOT NULL AND a != 1}, and {@code NOT (a IN (1,
 * NULL))} selects nothing. Spark's floating point rules (NaN equals NaN and sorts above every other
 * value, -0.0 equals 0.0) are kept; see {@link LeafPredicates} for how.
 *
 * <p>Supported: {@code =}, {@code <=>}, {@code <>}, {@code <}, {@code <=}, {@code >}, {@code >=}
 * between a column and a literal (either order), {@code IN} with literals, {@code IS_NULL}, {@code
 * IS_NOT_NULL}, {@code STARTS_WITH} on string columns (with a prefix free of supplementary
 * characters, which Iceberg's truncate projection miscounts), a boolean column as a predicate,
 * {@code AND}, {@code OR}, {@code NOT}, {@code ALWAYS_TRUE} and {@code ALWAYS_FALSE}. A column may
 * be a nested struct field, and an int column may be widened to bigint by a cast; any other cast,
 * function or column-to-column comparison is not converted. Literals must have the Spark type the
 * column is read as.
 *
 * <p>Neither method throws for a predicate it cannot convert: it returns empty, and the predicate
 * stays with Spark. Column names in the result are spelled as in the schema, so the result binds to
 * the schema case-sensitively whatever {@code caseSensitive} was.
 */
public final class SparkPredicates {

  private SparkPredicates() {}

  /**
   * Converts a predicate for scan planning. The result selects every row on which Spark's predicate
   * is TRUE; when an {@code AND} that is not under a {@code NOT} has a side that cannot be
   * converted, that side is left out, so the result may also select rows Spark would reject. The
   * caller must then let Spark evaluate the predicate after the scan.
   *
   * @param predicate the Spark predicate
   * @param schema the table schema the predicate's columns refer to
   * @param caseSensitive whether column names are matched case-sensitively
   * @return the Iceberg expression, or empty if no part of the predicate could be converted
   */
  public static Optional<Expression> convert(
      Predicate predicate, Schema schema, boolean caseSensitive) {
    return convert(predicate, schema, caseSensitive, true);
  }

  /**
   * Converts a predicate only if the whole of it converts: the result selects exactly the rows on
   * which Spark's predicate is TRUE, so Spark need not evaluate the predicate again after the scan
   * if every row goes through the result.
   *
   * @param predicate the Spark predicate
   * @param schema the table schema the predicate's columns refer to
   * @param caseSensitive whether column names are matched case-sensitively
   * @return the exactly equivalent Iceberg expression, or empty
   */
  public static Optional<Expression> convertExact(
      Predicate predicate, Schema schema, boolean caseSensitive) {
    return convert(predicate, schema, caseSensitive, false);
  }

  private static Optional<Expression> convert(
      Predicate predicate, Schema schema, boolean caseSensitive, boolean mayWiden) {
    Objects.requireNonNull(predicate, "predicate is null");
    Objects.requireNonNull(schema, "schema is null");
    try {
      Optional<Expression> converted =
          new Conversion(new LeafPredicates(schema, caseSensitive))
              .rows(predicate, false, mayWiden);
      // binding proves the result usable; should it fail, the predicate stays with Spark
      converted.ifPresent(expression -> Binder.bind(schema.asStruct(), expression, true));
      return converted;
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Walks the boolean connectives; leaves go to {@link LeafPredicates}. */
  private record Conversion(LeafPredicates leaves) {

    /**
     * Returns the rows where the predicate is TRUE, or FALSE if {@code negated}. With {@code
     * mayWiden}, an AND may drop a side it cannot convert, which can only add rows.
     */
    Optional<Expression> rows(Predicate predicate, boolean negated, boolean mayWiden) {
      switch (predicate.name()) {
        case "ALWAYS_TRUE":
          return Optional.of(negated ? Expressions.alwaysFalse() : Expressions.alwaysTrue());
        case "ALWAYS_FALSE":
          return Optional.of(negated ? Expressions.alwaysTrue() : Expressions.alwaysFalse());
        case "NOT":
          Predicate[] child = predicates(predicate, 1);
          // nothing under a NOT may be dropped: there, dropping a side would remove rows
          return child == null ? Optional.empty() : rows(child[0], !negated, false);
        case "AND":
          return negated ? either(predicate, true, false) : both(predicate, false, mayWiden);
        case "OR":
          return negated ? both(predicate, true, false) : either(predicate, false, mayWiden);
        default:
          return leaves.convert(predicate).flatMap(sets -> sets.rows(negated));
      }
    }

    /**
     * Rows where both sides hold: TRUE for a TRUE AND, FALSE for a FALSE OR. With {@code mayWiden},
     * a side that cannot be converted is left out.
     */
    private Optional<Expression> both(Predicate predicate, boolean negated, boolean mayWiden) {
      Predicate[] sides = predicates(predicate, 2);
      if (sides == null) {
        return Optional.empty();
      }
      Optional<Expression> left = rows(sides[0], negated, mayWiden);
      Optional<Expression> right = rows(sides[1], negated, mayWiden);
      if (left.isPresent() && right.isPresent()) {
        return Optional.of(Expressions.and(left.get(), right.get()));
      }
      return mayWiden ? left.or(() -> right) : Optional.empty();
    }

    /**
     * Rows where either side holds: TRUE for a TRUE OR, FALSE for a FALSE AND. Both sides must
     * convert; with {@code mayWiden} each side may itself be wider than exact.
     */
    private Optional<Expression> either(Predicate predicate, boolean negated, boolean mayWiden) {
      Predicate[] sides = predicates(predicate, 2);
      if (sides == null) {
        return Optional.empty();
      }
      Optional<Expression> left = rows(sides[0], negated, mayWiden);
      Optional<Expression> right = rows(sides[1], negated, mayWiden);
      return left.isPresent() && right.isPresent()
          ? Optional.of(Expressions.or(left.get(), right.get()))
          : Optional.empty();
    }

    /** Returns the predicate's children if there are {@code count}, all predicates; else null. */
    private static Predicate[] predicates(Predicate predicate, int count) {
      org.apache.spark.sql.connector.expressions.Expression[] children = predicate.children();
      if (children.length != count) {
        return null;
      }
      Predicate[] result = new Predicate[count];
      for (int i = 0; i < count; i += 1) {
        if (!(children[i] instanceof Predicate child)) {
          return null;
        }
        result[i] = child;
      }
      return result;
    }
  }
}
