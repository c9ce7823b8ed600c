package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ScanPlans;
import org.apache.spark.sql.execution.CommandResultExec;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.util.QueryExecutionListener;

/**
 * A query listener that keeps the physical plan of the last merge-on-read statement (a {@code
 * WriteDelta}) that ran, so that a test can look at the scan of its target table.
 */
public final class DeltaPlanCapture implements QueryExecutionListener {
  private final String targetSuffix;
  private volatile SparkPlan delta;

  /** @param targetSuffix how the target table's name ends, e.g. {@code "db.target"} */
  public DeltaPlanCapture(String targetSuffix) {
    this.targetSuffix = targetSuffix;
  }

  @Override
  public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
    SparkPlan plan = qe.executedPlan();
    if (plan instanceof CommandResultExec command) {
      plan = command.commandPhysicalPlan();
    }
    if (plan.toString().contains("WriteDelta")) {
      delta = plan;
    }
  }

  @Override
  public void onFailure(String funcName, QueryExecution qe, Exception exception) {}

  /** Forgets the captured plan, so that a test sees only the plans of its own statements. */
  public void reset() {
    delta = null;
  }

  /** The last captured plan; fails when there is none. */
  public SparkPlan lastPlan() {
    assertThat(delta).as("the plan of a merge-on-read statement").isNotNull();
    return delta;
  }

  /** The scan of the target table in the last captured plan; fails when there is none. */
  public BatchScanExec targetScan() {
    SparkPlan delta = lastPlan();
    for (SparkPlan node : ScanPlans.nodes(delta, false)) {
      if (node instanceof BatchScanExec scan
          && scan.scan() instanceof FloeScan floe
          && floe.tableName().endsWith(targetSuffix)) {
        return scan;
      }
    }
    throw new AssertionError("No scan of the target in " + delta);
  }
}
