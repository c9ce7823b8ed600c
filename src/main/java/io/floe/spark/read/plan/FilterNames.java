package io.floe.spark.read.plan;

import io.floe.spark.expressions.ExpressionRebuilder;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.BoundTerm;
import org.apache.iceberg.expressions.BoundTransform;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundTerm;
import org.apache.iceberg.types.Types;

/**
 * Re-expresses a filter written in the column names of one schema in the names of another schema of
 * the same table, matching columns by field id.
 *
 * <p>Iceberg binds filters by name. A scan of an older snapshot binds its filter, and the residuals
 * of its tasks, with that snapshot's schema, while Spark's filters and the reader's projection use
 * the schema the table reported; after a rename the two disagree. A predicate on a column that the
 * other schema lacks, or has with a different type, cannot be carried over exactly, and then no
 * translation is given: the caller scans without that filter, which is always correct because Spark
 * evaluates every filter again after the scan.
 */
final class FilterNames {
  private FilterNames() {}

  /**
   * @param filter an unbound filter over {@code from}
   * @return the same filter over {@code to}, or empty if it references a column {@code to} does not
   *     hold with the same type
   */
  static Optional<Expression> translate(
      Expression filter, Schema from, Schema to, boolean caseSensitive) {
    if (filter.op() == Expression.Operation.TRUE || filter.op() == Expression.Operation.FALSE) {
      return Optional.of(filter);
    }
    try {
      Expression bound = Binder.bind(from.asStruct(), filter, caseSensitive);
      return Optional.of(ExpressionVisitors.visit(bound, new Renamer(from, to)));
    } catch (NotTranslatable | org.apache.iceberg.exceptions.ValidationException e) {
      return Optional.empty();
    }
  }

  /** Whether filters over one schema bind to the same columns under the other's names. */
  static boolean sameNames(Schema first, Schema second) {
    return first.asStruct().equals(second.asStruct());
  }

  private static final class NotTranslatable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotTranslatable() {
      super(null, null, false, false);
    }
  }

  private static final class Renamer extends ExpressionRebuilder {
    private final Schema from;
    private final Schema to;

    Renamer(Schema from, Schema to) {
      this.from = from;
      this.to = to;
    }

    @Override
    public <T> Expression predicate(BoundPredicate<T> pred) {
      UnboundTerm<T> term = rename(pred.term());
      if (pred.isUnaryPredicate()) {
        return Expressions.predicate(pred.op(), term);
      } else if (pred.isLiteralPredicate()) {
        return Expressions.predicate(
            pred.op(), term, List.of(pred.asLiteralPredicate().literal().value()));
      } else if (pred.isSetPredicate()) {
        return Expressions.predicate(pred.op(), term, pred.asSetPredicate().literalSet());
      }
      throw new NotTranslatable();
    }

    private <T> UnboundTerm<T> rename(BoundTerm<T> term) {
      if (term instanceof BoundReference<T> reference) {
        return Expressions.ref(nameInTarget(reference.fieldId()));
      } else if (term instanceof BoundTransform<?, T> transform) {
        return Expressions.transform(
            nameInTarget(transform.ref().fieldId()), transform.transform());
      }
      throw new NotTranslatable();
    }

    private String nameInTarget(int fieldId) {
      Types.NestedField source = from.findField(fieldId);
      Types.NestedField target = to.findField(fieldId);
      if (source == null || target == null || !source.type().equals(target.type())) {
        throw new NotTranslatable();
      }
      return to.findColumnName(fieldId);
    }
  }
}
