package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.read.ScanPlans;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.REBALANCE_PARTITIONS_BY_COL$;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.util.QueryExecutionListener;

/**
 * Counts the rebalancing shuffles (Spark's shuffle by partition under a write) in the physical plan
 * of the last statement whose plan names a write node.
 */
final class RebalanceCapture implements QueryExecutionListener {
  private final SparkSession spark;
  private final String writeNode;
  private volatile SparkPlan write;

  /**
   * @param spark the session whose statements are captured
   * @param writeNode the name of the write's node in the plan, such as {@code ReplaceData}
   */
  RebalanceCapture(SparkSession spark, String writeNode) {
    this.spark = spark;
    this.writeNode = writeNode;
  }

  @Override
  public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
    if (qe.executedPlan().toString().contains(writeNode)) {
      write = qe.executedPlan();
    }
  }

  @Override
  public void onFailure(String funcName, QueryExecution qe, Exception exception) {}

  /** The rebalancing shuffles of the last write's plan. */
  long rebalances() throws TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    assertThat(write).as("the plan of a " + writeNode + " statement").isNotNull();
    long count =
        ScanPlans.nodes(write, false).stream()
            .filter(
                node ->
                    node instanceof ShuffleExchangeExec exchange
                        && exchange.shuffleOrigin() == REBALANCE_PARTITIONS_BY_COL$.MODULE$)
            .count();
    write = null;
    return count;
  }
}
