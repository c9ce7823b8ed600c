package io.floe.spark.expressions;

import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.expressions.Expression;

/**
 * The rows on which a Spark predicate is TRUE and the rows on which it is FALSE, each as an Iceberg
 * expression. Rows on which the predicate is NULL belong to neither, which is why the FALSE side
 * cannot be derived by negating the TRUE side.
 *
 * @param whenTrue selects exactly the rows where the predicate is TRUE
 * @param whenFalse selects exactly the rows where the predicate is FALSE, or null when that set
 *     cannot be expressed
 */
record TruthSets(Expression whenTrue, Expression whenFalse) {

  TruthSets {
    Objects.requireNonNull(whenTrue, "whenTrue is null");
  }

  /** Returns the rows where the predicate is FALSE if {@code negated}, else where it is TRUE. */
  Optional<Expression> rows(boolean negated) {
    return negated ? Optional.ofNullable(whenFalse) : Optional.of(whenTrue);
  }
}
