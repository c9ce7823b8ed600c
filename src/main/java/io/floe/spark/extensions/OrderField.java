package io.floe.spark.extensions;

import java.util.Objects;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.SortDirection;

/**
 * One field of {@code WRITE ORDERED BY}: a transform, its direction, and where nulls go (by
 * default first when ascending and last when descending, as in Spark and the official runtime).
 */
record OrderField(TransformTerm term, SortDirection direction, NullOrder nullOrder) {
  OrderField {
    Objects.requireNonNull(term, "term is null");
    Objects.requireNonNull(direction, "direction is null");
    Objects.requireNonNull(nullOrder, "nullOrder is null");
  }

  @Override
  public String toString() {
    return term
        + (direction == SortDirection.ASC ? " ASC" : " DESC")
        + (nullOrder == NullOrder.NULLS_FIRST ? " NULLS FIRST" : " NULLS LAST");
  }
}
