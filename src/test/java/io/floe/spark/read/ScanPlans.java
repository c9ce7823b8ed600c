package io.floe.spark.read;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.CommandResultExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Looks into the physical plan a query ran with: every node, through adaptive execution's stages
 * and subqueries, the Floe scan nodes and the values of their metrics.
 */
public final class ScanPlans {
  private ScanPlans() {}

  /** Every node of the plan the query ran with; call after the query ran. */
  public static List<SparkPlan> executedNodes(Dataset<Row> df) {
    List<SparkPlan> nodes = new ArrayList<>();
    collect(df.queryExecution().executedPlan(), nodes);
    return nodes;
  }

  /**
   * Every node of a physical plan, in plan order, through a command's plan and adaptive
   * execution's stages; with {@code subqueries}, also the nodes of each node's subqueries.
   */
  public static List<SparkPlan> nodes(SparkPlan plan, boolean subqueries) {
    List<SparkPlan> nodes = new ArrayList<>();
    SparkPlan root = plan instanceof CommandResultExec command ? command.commandPhysicalPlan() : plan;
    collect(root, nodes, subqueries);
    return nodes;
  }

  private static void collect(SparkPlan plan, List<SparkPlan> nodes) {
    collect(plan, nodes, true);
  }

  private static void collect(SparkPlan plan, List<SparkPlan> nodes, boolean subqueries) {
    if (plan instanceof AdaptiveSparkPlanExec adaptive) {
      collect(adaptive.executedPlan(), nodes, subqueries);
      return;
    }
    if (plan instanceof QueryStageExec stage) {
      collect(stage.plan(), nodes, subqueries);
      return;
    }
    nodes.add(plan);
    for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
      collect(child, nodes, subqueries);
    }
    if (subqueries) {
      for (SparkPlan subquery : CollectionConverters.asJava(plan.subqueries())) {
        collect(subquery, nodes, true);
      }
    }
  }

  /** Names of the nodes the query ran with, e.g. ShuffleExchangeExec, SortExec. */
  public static List<String> nodeNames(Dataset<Row> df) {
    return executedNodes(df).stream().map(node -> node.getClass().getSimpleName()).toList();
  }

  /** The Floe scan nodes the query ran with, in plan order. */
  public static List<BatchScanExec> floeScanNodes(Dataset<Row> df) {
    List<BatchScanExec> scans = new ArrayList<>();
    for (SparkPlan node : executedNodes(df)) {
      if (node instanceof BatchScanExec scan && scan.scan() instanceof FloeScan) {
        scans.add(scan);
      }
    }
    return scans;
  }

  /** The metric values of a scan node, by metric name. */
  public static Map<String, Long> metrics(BatchScanExec scan) {
    Map<String, Long> values = new TreeMap<>();
    for (Map.Entry<String, SQLMetric> entry :
        CollectionConverters.asJava(scan.metrics()).entrySet()) {
      values.put(entry.getKey(), entry.getValue().value());
    }
    return values;
  }
}
