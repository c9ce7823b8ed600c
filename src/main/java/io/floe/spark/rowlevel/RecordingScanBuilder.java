package io.floe.spark.rowlevel;

import io.floe.spark.read.FloeScan;
import io.floe.spark.read.FloeScanBuilder;
import java.util.Objects;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;

/**
 * The ordinary Floe scan builder for the rows a row-level operation reads, which remembers the scan
 * it built: the write validates its commit from that scan's snapshot, with that scan's filter, and
 * takes the data files' previous deletes from its tasks. Filters and columns are pushed as into
 * any Floe scan; a limit or an aggregate is never pushed into a row-level read.
 */
final class RecordingScanBuilder
    implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns {
  private final FloeScanBuilder delegate;
  private volatile FloeScan built;

  RecordingScanBuilder(FloeScanBuilder delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate is null");
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    return delegate.pushPredicates(predicates);
  }

  @Override
  public Predicate[] pushedPredicates() {
    return delegate.pushedPredicates();
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    delegate.pruneColumns(requiredSchema);
  }

  @Override
  public Scan build() {
    Scan scan = delegate.build();
    if (!(scan instanceof FloeScan floeScan)) {
      throw new IllegalStateException(
          "Cannot read the rows of a row-level operation with " + scan.getClass().getName());
    }
    this.built = floeScan;
    return floeScan;
  }

  /** The scan built, or null when Spark never built one (a condition that is always false). */
  FloeScan scan() {
    return built;
  }
}
