package io.floe.spark.read.plan;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;

/**
 * The part of a runtime filter that data-column bounds can decide: which data files may hold a
 * matching row, judged by the lower and upper bounds, value counts and null counts their manifest
 * entries record, and what of the filter is left for a kept file's row groups.
 *
 * <p>Only the conjuncts of the filter that name nothing but {@code columns} (columns whose bounds
 * the planner found and trusts) are used; the others prune nothing here. Small conjuncts go to
 * Iceberg's {@link InclusiveMetricsEvaluator}. An {@code IN} list longer than Iceberg's evaluators
 * take ({@value #IN_LIMIT} values; beyond that they answer "may match") is what a join's runtime
 * filter usually is, so it is decided here instead: its values are sorted once, and a file may
 * match when some value lies within its bounds. Both decisions are inclusive: a kept file may hold
 * no matching row, a dropped one never holds one, and Spark filters every row again after the scan.
 */
final class ColumnBoundsFilter {
  /** The most values Iceberg's metrics and row-group evaluators take in an {@code IN} list. */
  static final int IN_LIMIT = 200;

  private final Expression small;
  private final InclusiveMetricsEvaluator evaluator;
  private final List<ValueList> lists;

  private ColumnBoundsFilter(
      Expression small, InclusiveMetricsEvaluator evaluator, List<ValueList> lists) {
    this.small = small;
    this.evaluator = evaluator;
    this.lists = lists;
  }

  /**
   * The filter's conjuncts over {@code columns}, or empty when it has none.
   *
   * @param filter the runtime filter over {@code schema}
   * @param columns the field ids of the columns whose bounds may be used
   */
  static Optional<ColumnBoundsFilter> of(
      Expression filter, Schema schema, Set<Integer> columns, boolean caseSensitive) {
    if (columns.isEmpty()) {
      return Optional.empty();
    }
    Expression small = Expressions.alwaysTrue();
    List<ValueList> lists = new ArrayList<>();
    for (Expression conjunct : conjuncts(filter)) {
      Set<Integer> names;
      try {
        names = Binder.boundReferences(schema.asStruct(), List.of(conjunct), caseSensitive);
      } catch (RuntimeException e) {
        // a conjunct that does not bind prunes nothing; Spark still applies it to the rows
        continue;
      }
      if (names.isEmpty() || !columns.containsAll(names)) {
        continue;
      }
      Optional<ValueList> list = ValueList.of(conjunct, schema, caseSensitive);
      if (list.isPresent()) {
        lists.add(list.get());
      } else {
        small = Expressions.and(small, conjunct);
      }
    }
    if (small.op() == Expression.Operation.TRUE && lists.isEmpty()) {
      return Optional.empty();
    }
    InclusiveMetricsEvaluator evaluator =
        small.op() == Expression.Operation.TRUE
            ? null
            : new InclusiveMetricsEvaluator(schema, small, caseSensitive);
    return Optional.of(new ColumnBoundsFilter(small, evaluator, List.copyOf(lists)));
  }

  /** Whether the file may hold a row the filter selects. */
  boolean mayMatch(DataFile file) {
    if (evaluator != null && !evaluator.eval(file)) {
      return false;
    }
    for (ValueList list : lists) {
      if (!list.mayMatch(file)) {
        return false;
      }
    }
    return true;
  }

  /**
   * What a kept file's row groups are filtered with: the small conjuncts, and each long {@code IN}
   * list cut to the values within the file's bounds, as an {@code IN} list when few enough remain
   * for Iceberg's row-group filter, else as the range from their least to their greatest.
   */
  Expression forRowGroups(DataFile file) {
    Expression result = small;
    for (ValueList list : lists) {
      result = Expressions.and(result, list.within(file));
    }
    return result;
  }

  private static List<Expression> conjuncts(Expression filter) {
    List<Expression> result = new ArrayList<>();
    if (filter instanceof And and) {
      result.addAll(conjuncts(and.left()));
      result.addAll(conjuncts(and.right()));
    } else if (filter.op() != Expression.Operation.TRUE) {
      result.add(filter);
    }
    return result;
  }

  /** A long {@code IN} list on one column, its values sorted in the column type's order. */
  private static final class ValueList {
    private final String name;
    private final int fieldId;
    private final Type.PrimitiveType type;
    private final Comparator<Object> order;
    private final Object[] values;

    private ValueList(String name, int fieldId, Type.PrimitiveType type, Object[] values) {
      this.name = name;
      this.fieldId = fieldId;
      this.type = type;
      this.order = Comparators.forType(type);
      this.values = values;
      Arrays.sort(values, order);
    }

    /** The conjunct as a value list, when it is an {@code IN} list too long for Iceberg. */
    static Optional<ValueList> of(Expression conjunct, Schema schema, boolean caseSensitive) {
      if (!(conjunct instanceof UnboundPredicate<?> unbound)
          || unbound.op() != Expression.Operation.IN
          || unbound.literals() == null
          || unbound.literals().size() <= IN_LIMIT) {
        return Optional.empty();
      }
      Expression bound = Binder.bind(schema.asStruct(), conjunct, caseSensitive);
      if (!(bound instanceof BoundPredicate<?> predicate)
          || !predicate.isSetPredicate()
          || !(predicate.term() instanceof BoundReference<?> reference)) {
        return Optional.empty();
      }
      Type.PrimitiveType type = reference.type().asPrimitiveType();
      // NaN has no place between bounds; Iceberg's evaluator keeps such files, and so does this
      if (type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE) {
        return Optional.empty();
      }
      return Optional.of(
          new ValueList(
              schema.findColumnName(reference.fieldId()),
              reference.fieldId(),
              type,
              predicate.asSetPredicate().literalSet().toArray()));
    }

    boolean mayMatch(DataFile file) {
      Long valueCount = count(file.valueCounts());
      Long nullCount = count(file.nullValueCounts());
      if (valueCount != null && nullCount != null && valueCount.equals(nullCount)) {
        // only NULLs (or no rows): IN selects no NULL
        return false;
      }
      Object lower = bound(file.lowerBounds());
      Object upper = bound(file.upperBounds());
      if (lower == null || upper == null) {
        return true;
      }
      int first = firstAtLeast(lower);
      return first < values.length && order.compare(values[first], upper) <= 0;
    }

    Expression within(DataFile file) {
      Object lower = bound(file.lowerBounds());
      Object upper = bound(file.upperBounds());
      int from = lower == null ? 0 : firstAtLeast(lower);
      int to = upper == null ? values.length : firstAbove(upper);
      if (from >= to) {
        return Expressions.alwaysFalse();
      }
      if (to - from <= IN_LIMIT) {
        return Expressions.in(name, Arrays.copyOfRange(values, from, to));
      }
      return Expressions.and(
          Expressions.greaterThanOrEqual(name, values[from]),
          Expressions.lessThanOrEqual(name, values[to - 1]));
    }

    private Long count(Map<Integer, Long> counts) {
      return counts == null ? null : counts.get(fieldId);
    }

    private Object bound(Map<Integer, ByteBuffer> bounds) {
      ByteBuffer bound = bounds == null ? null : bounds.get(fieldId);
      return bound == null ? null : Conversions.fromByteBuffer(type, bound);
    }

    /** The position of the first value not below {@code bound}, or the length when none is. */
    private int firstAtLeast(Object bound) {
      int low = 0;
      int high = values.length;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (order.compare(values[mid], bound) < 0) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      return low;
    }

    /** The position of the first value above {@code bound}, or the length when none is. */
    private int firstAbove(Object bound) {
      int low = 0;
      int high = values.length;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (order.compare(values[mid], bound) <= 0) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      return low;
    }
  }
}
