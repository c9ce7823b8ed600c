package io.floe.spark.read;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionUtil;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.Projections;

/**
 * One table's planned scan, offered to the next scan of the same table whose files it holds, so that
 * that scan need not read the manifests again. A copy-on-write DELETE, UPDATE or MERGE offers the
 * plan of its scan; the regular scan of Spark's group filter (the subquery on {@code _file} that
 * narrows that scan at run time) reads the same snapshot with the same condition, plus what Spark
 * infers from it ({@code IS NOT NULL} of the columns it names), and takes it.
 *
 * <p>Driver only; holds at most one plan, and a plan is taken at most once. A scan takes a plan only
 * when the plan holds every file the scan would plan: the same snapshot, schema and read options,
 * and a filter that has every conjunct of the plan's filter (so it is at least as narrow). The
 * taken tasks are then pruned by the scan's own filter, by each file's partition and column
 * metrics, as planning prunes them: a predicate the scan keeps from Spark (one that selects whole
 * partitions) therefore holds for every file it reads, as after its own planning. The plan was
 * made reading whole files (no residual filters), which is right for any scan: Spark applies every
 * other predicate after the scan.
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
   * The offered plan, taken, when it holds every file a scan of these settings would plan; else
   * null (and the plan stays offered). The caller prunes its tasks by its filter ({@link #prune}).
   */
  synchronized FloeScan take(
      Long snapshotId,
      Schema schema,
      ReadOptions options,
      Expression filter) {
    FloeScan plan = offered;
    if (plan == null
        || !Objects.equals(plan.snapshotId(), snapshotId)
        || !plan.tableSchema().sameSchema(schema)
        || !plan.options().equals(options)
        || !narrower(filter, plan.filter(), schema, options.caseSensitive())) {
      return null;
    }
    offered = null;
    return plan;
  }

  /**
   * The groups of a taken plan less the tasks of files {@code filter} rules out by partition or
   * column metrics; groups left empty are dropped.
   */
  static List<FloeInputPartition> prune(
      List<FloeInputPartition> groups,
      Expression filter,
      Schema schema,
      Map<Integer, PartitionSpec> specs,
      boolean caseSensitive) {
    InclusiveMetricsEvaluator metrics = new InclusiveMetricsEvaluator(schema, filter, caseSensitive);
    Map<Integer, Evaluator> partitions = new HashMap<>();
    List<FloeInputPartition> kept = new ArrayList<>();
    for (FloeInputPartition group : groups) {
      List<ScanTask> tasks = new ArrayList<>();
      for (ScanTask task : group.tasks()) {
        if (!task.isFileScanTask()) {
          tasks.add(task);
          continue;
        }
        FileScanTask file = task.asFileScanTask();
        Evaluator partition =
            partitions.computeIfAbsent(
                file.file().specId(),
                id ->
                    new Evaluator(
                        specs.get(id).partitionType(),
                        Projections.inclusive(specs.get(id), caseSensitive).project(filter),
                        caseSensitive));
        if (partition.eval(file.file().partition()) && metrics.eval(file.file())) {
          tasks.add(task);
        }
      }
      if (!tasks.isEmpty()) {
        kept.add(new FloeInputPartition(kept.size(), tasks, group.partitionKey()));
      }
    }
    return kept;
  }

  /** Whether {@code asked} has every conjunct of {@code planned} (and so implies it). */
  private static boolean narrower(
      Expression asked, Expression planned, Schema schema, boolean caseSensitive) {
    List<Expression> askedConjuncts = conjuncts(asked);
    for (Expression conjunct : conjuncts(planned)) {
      boolean found = false;
      for (Expression candidate : askedConjuncts) {
        if (equivalent(conjunct, candidate, schema, caseSensitive)) {
          found = true;
          break;
        }
      }
      if (!found) {
        return false;
      }
    }
    return true;
  }

  private static List<Expression> conjuncts(Expression expression) {
    List<Expression> conjuncts = new ArrayList<>();
    collect(expression, conjuncts);
    return conjuncts;
  }

  private static void collect(Expression expression, List<Expression> conjuncts) {
    if (expression.op() == Expression.Operation.AND) {
      collect(((And) expression).left(), conjuncts);
      collect(((And) expression).right(), conjuncts);
    } else if (expression.op() != Expression.Operation.TRUE) {
      conjuncts.add(expression);
    }
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
