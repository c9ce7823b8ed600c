package io.floe.spark.read;

import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionUtil;

/**
 * One table's planned scan, offered to the next scan of the same table that would plan exactly the
 * same files, so that it need not read the manifests again. A copy-on-write DELETE, UPDATE or MERGE
 * offers the plan of its scan; the regular scan of Spark's group filter (the subquery on {@code
 * _file} that narrows that scan at run time) reads the same snapshot with the same condition and
 * takes it.
 *
 * <p>Driver only; holds at most one plan, and a plan is taken at most once. A scan takes a plan only
 * when it would have planned the same files: the same snapshot, the same schema and read options,
 * and a filter equivalent to the one the plan was made with. Such a plan was made reading whole
 * files (no residual filters), which is correct for any scan: the predicates a scan hands back to
 * Spark are applied after it, and those it keeps select whole partitions, which the plan's filter
 * already selected by.
 */
public final class ScanPlanShare {
  private FloeScan offered;

  /** Offers a scan's plan, in place of any plan offered before and not taken. */
  public synchronized void offer(FloeScan planned) {
    this.offered = Objects.requireNonNull(planned, "planned is null");
  }

  /** Withdraws the plan of this scan if it is still offered (the operation no longer needs it). */
  public synchronized void withdraw(FloeScan planned) {
    if (offered == planned) {
      offered = null;
    }
  }

  /**
   * The offered plan, taken, when it plans what a scan of these settings would; else null (and the
   * plan stays offered).
   */
  synchronized FloeScan take(
      Long snapshotId, Schema schema, ReadOptions options, Expression filter) {
    FloeScan plan = offered;
    if (plan == null
        || !Objects.equals(plan.snapshotId(), snapshotId)
        || !plan.tableSchema().sameSchema(schema)
        || !plan.options().equals(options)
        || !equivalent(plan.filter(), filter, schema, options.caseSensitive())) {
      return null;
    }
    offered = null;
    return plan;
  }

  private static boolean equivalent(
      Expression planned, Expression asked, Schema schema, boolean caseSensitive) {
    try {
      return ExpressionUtil.equivalent(planned, asked, schema.asStruct(), caseSensitive);
    } catch (RuntimeException e) {
      // an expression that does not bind here is planned on its own
      return false;
    }
  }
}
