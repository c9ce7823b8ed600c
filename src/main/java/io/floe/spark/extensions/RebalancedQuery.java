package io.floe.spark.extensions;

import java.util.Optional;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.RebalancePartitions;
import org.apache.spark.sql.catalyst.plans.logical.Sort;

/**
 * The query of a write in hash mode as Spark 4.1 plans it: the rows, under the shuffle by partition
 * ({@code RebalancePartitions}) that Spark adds for the write's distribution, under the local sort
 * the write's ordering asks for, if any.
 *
 * @param rows the rows the write receives, before the shuffle
 * @param rebalance the shuffle
 * @param localSort the local sort over the shuffle, or null when the write asks for no ordering
 */
record RebalancedQuery(LogicalPlan rows, RebalancePartitions rebalance, Sort localSort) {
  /** The parts of a write's query; empty when the query does not end in a shuffle by partition. */
  static Optional<RebalancedQuery> of(LogicalPlan query) {
    Sort localSort = null;
    if (query instanceof Sort sort && !sort.global()) {
      localSort = sort;
      query = sort.child();
    }
    return query instanceof RebalancePartitions rebalance
        ? Optional.of(new RebalancedQuery(rebalance.child(), rebalance, localSort))
        : Optional.empty();
  }

  /** The query without the shuffle: {@code rows}, sorted locally as before when it was. */
  LogicalPlan withoutShuffle(LogicalPlan rows) {
    return localSort == null ? rows : localSort.withNewChildren(ScanLineage.seq(rows));
  }
}
