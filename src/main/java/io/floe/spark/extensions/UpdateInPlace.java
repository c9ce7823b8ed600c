package io.floe.spark.extensions;

import io.floe.spark.rowlevel.InPlaceRewrite;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.ReplaceData;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The planner strategy that lets a copy-on-write UPDATE of a Floe table in hash mode write its rows
 * from the tasks that read them, without the shuffle by partition Spark puts under the write.
 *
 * <p>Floe's copy-on-write scan reads each partition in one task where it can ({@link
 * InPlaceRewrite}), so the shuffle only moves rows that are already together, unless the UPDATE
 * changes a row's partition. Only the plan shows that, and no optimizer hook of Spark 4.1 runs
 * after Spark adds the shuffle. So this strategy, which Spark tries before its own, plans the
 * write again without the shuffle when every partition source column passes from the scan to the
 * write unchanged: through filters, and projections that keep the column or rename it. Any other
 * step, an assigned partition column among them, keeps the shuffle. Leaving it out changes only
 * which task writes a row, never the rows written.
 */
public final class UpdateInPlace extends SparkStrategy {
  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    Optional<LogicalPlan> withoutShuffle =
        plan instanceof ReplaceData replace ? withoutShuffle(replace) : Optional.empty();
    List<SparkPlan> planned =
        withoutShuffle.isEmpty() ? List.of() : List.of(planLater(withoutShuffle.get()));
    return CollectionConverters.asScala(planned).toSeq();
  }

  private static Optional<LogicalPlan> withoutShuffle(ReplaceData replace) {
    // the shape first: Spark plans the write this strategy returns again, without the shuffle
    Optional<RebalancedQuery> query = RebalancedQuery.of(replace.query());
    if (query.isEmpty() || replace.write().isEmpty()) {
      return Optional.empty();
    }
    Optional<InPlaceRewrite> rewrite = InPlaceRewrite.ofUpdate(replace.write().get());
    if (rewrite.isEmpty()) {
      return Optional.empty();
    }
    LogicalPlan rows = query.get().rows();
    for (String column : rewrite.get().partitionColumns()) {
      Optional<ScanLineage.ScanColumn> source = ScanLineage.of(rows, column);
      if (source.isEmpty() || source.get().relation().scan() != rewrite.get().scan()) {
        return Optional.empty();
      }
    }
    return Optional.of(
        replace.withNewChildren(ScanLineage.seq(query.get().withoutShuffle(rows))));
  }
}
