package io.floe.spark.extensions;

import io.floe.spark.rowlevel.InPlaceRewrite;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.RebalancePartitions;
import org.apache.spark.sql.catalyst.plans.logical.ReplaceData;
import org.apache.spark.sql.catalyst.plans.logical.Sort;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import org.apache.spark.sql.internal.SQLConf;
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
    LogicalPlan query = replace.query();
    Sort localSort = null;
    if (query instanceof Sort sort && !sort.global()) {
      localSort = sort;
      query = sort.child();
    }
    // the shape first: Spark plans the write this strategy returns again, without the shuffle
    if (!(query instanceof RebalancePartitions rebalance) || replace.write().isEmpty()) {
      return Optional.empty();
    }
    Optional<InPlaceRewrite> rewrite = InPlaceRewrite.ofUpdate(replace.write().get());
    if (rewrite.isEmpty()) {
      return Optional.empty();
    }
    LogicalPlan rows = rebalance.child();
    for (String column : rewrite.get().partitionColumns()) {
      Optional<Attribute> output = outputNamed(rows, column);
      if (output.isEmpty() || !unchangedFromScan(rows, output.get().exprId(), rewrite.get())) {
        return Optional.empty();
      }
    }
    LogicalPlan written = localSort == null ? rows : localSort.withNewChildren(seq(rows));
    return Optional.of(replace.withNewChildren(seq(written)));
  }

  private static Optional<Attribute> outputNamed(LogicalPlan plan, String name) {
    boolean caseSensitive = SQLConf.get().caseSensitiveAnalysis();
    for (Attribute attribute : CollectionConverters.asJava(plan.output())) {
      if (caseSensitive ? attribute.name().equals(name) : attribute.name().equalsIgnoreCase(name)) {
        return Optional.of(attribute);
      }
    }
    return Optional.empty();
  }

  /** Whether the attribute {@code id} of {@code plan} is a column of the rewrite's scan as read. */
  private static boolean unchangedFromScan(LogicalPlan plan, ExprId id, InPlaceRewrite rewrite) {
    if (plan instanceof DataSourceV2ScanRelation relation) {
      return relation.scan() == rewrite.scan()
          && relation.output().exists(attribute -> attribute.exprId().equals(id));
    }
    if (plan instanceof Filter filter) {
      return unchangedFromScan(filter.child(), id, rewrite);
    }
    if (plan instanceof Project project) {
      for (NamedExpression expression : CollectionConverters.asJava(project.projectList())) {
        if (!expression.exprId().equals(id)) {
          continue;
        }
        if (expression instanceof Attribute attribute) {
          return unchangedFromScan(project.child(), attribute.exprId(), rewrite);
        }
        if (expression instanceof Alias alias && alias.child() instanceof Attribute attribute) {
          return unchangedFromScan(project.child(), attribute.exprId(), rewrite);
        }
        return false;
      }
    }
    return false;
  }

  private static Seq<LogicalPlan> seq(LogicalPlan plan) {
    return CollectionConverters.asScala(List.of(plan)).toSeq();
  }
}
