package io.floe.spark.extensions;

import io.floe.spark.catalog.FloeTable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.DynamicPruningSubquery;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.MonotonicallyIncreasingID;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.planning.ExtractEquiJoinKeys$;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.RightOuter$;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.JoinHint;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MergeRows;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering;
import org.apache.spark.sql.connector.write.RowLevelOperationTable;
import org.apache.spark.sql.connector.write.SupportsDelta;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import org.apache.spark.sql.internal.SQLConf;
import scala.Option;
import scala.Tuple8;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The planner strategy that lets an updating merge-on-read MERGE into a Floe table skip target
 * files at run time, as Spark already lets a deleting one.
 *
 * <p>To check that no target row matches twice, Spark projects {@code monotonically_increasing_id()}
 * over the target's read. Its dynamic pruning rule then puts the source's keys in a filter above
 * that projection, which no filter crosses because it is nondeterministic, and {@code
 * CleanupDynamicPruningFilters} drops the filter. No optimizer hook of Spark 4.1 runs late enough to
 * see the target's scan, so this strategy, which Spark tries before its own, plans the MERGE's join
 * again with the same filter below the projection, on the target's read itself, where Spark turns
 * it into a runtime filter of Floe's scan.
 *
 * <p>The filter is the one Spark's own rule would build, for a key that the scan offers to runtime
 * filters ({@code filterAttributes()}). Like Spark's, it only reuses the join's broadcast of the
 * source unless {@code spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly} is false and
 * the source is estimated smaller than the target. It is added only where skipping target rows that
 * match no source row cannot change the result: a merge-on-read join that keeps no unmatched target
 * row (inner, or the outer join of a MERGE without {@code WHEN NOT MATCHED BY SOURCE}), over a
 * deterministic source. A runtime filter only skips files; the join still decides every row.
 */
public final class MergeTargetPruning extends SparkStrategy {
  /** The name Spark gives the row id of MERGE's cardinality check. */
  private static final String CARDINALITY_ROW_ID = MergeRows.ROW_ID();

  /** How many filter ids are kept: far more than the MERGEs being planned at one time. */
  private static final int KEPT_FILTER_IDS = 256;

  /**
   * The id of the filter on each target key, by the key's id. Adaptive execution plans a query
   * again from its logical plan as stages finish, and matches each subquery to the one it compiled
   * first by id, so planning the same join again must give the same id. Spark builds a new
   * strategy each time it plans, so the ids live in the class; key ids are unique in the JVM.
   */
  private static final Map<ExprId, ExprId> FILTER_IDS =
      Collections.synchronizedMap(
          new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<ExprId, ExprId> eldest) {
              return size() > KEPT_FILTER_IDS;
            }
          });

  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    if (!(plan instanceof Join join)) {
      return CollectionConverters.asScala(List.<SparkPlan>of()).toSeq();
    }
    LogicalPlan pruned = pruned(join);
    return CollectionConverters.asScala(
            pruned == join ? List.<SparkPlan>of() : List.of(planLater(pruned)))
        .toSeq();
  }

  private static LogicalPlan pruned(Join join) {
    JoinType type = join.joinType();
    Optional<Project> leftTarget = cardinalityProjection(join.left());
    Optional<Project> rightTarget =
        leftTarget.isPresent() ? Optional.empty() : cardinalityProjection(join.right());
    boolean targetLeft = leftTarget.isPresent();
    if (!(targetLeft && (type == Inner$.MODULE$ || type == RightOuter$.MODULE$))
        && !(rightTarget.isPresent() && (type == Inner$.MODULE$ || type == LeftOuter$.MODULE$))) {
      return join;
    }
    Project target = targetLeft ? leftTarget.get() : rightTarget.get();
    LogicalPlan source = targetLeft ? join.right() : join.left();
    Optional<DataSourceV2ScanRelation> relation = floeRead(target.child());
    if (relation.isEmpty() || !deterministic(source)) {
      return join;
    }
    Option<Tuple8<JoinType, Seq<Expression>, Seq<Expression>, Option<Expression>,
            Option<Expression>, LogicalPlan, LogicalPlan, JoinHint>> keys =
        ExtractEquiJoinKeys$.MODULE$.unapply(join);
    if (keys.isEmpty()) {
      return join;
    }
    Seq<Expression> targetKeys = targetLeft ? keys.get()._2() : keys.get()._3();
    Seq<Expression> sourceKeys = targetLeft ? keys.get()._3() : keys.get()._2();
    for (int index = 0; index < targetKeys.size(); index++) {
      Expression key = targetKeys.apply(index);
      if (key instanceof Attribute attribute
          && relation.get().outputSet().contains(attribute)
          && offered(relation.get(), attribute)) {
        DynamicPruningSubquery filter =
            new DynamicPruningSubquery(
                attribute,
                source,
                sourceKeys,
                CollectionConverters.asScala(List.<Object>of(index)).toSeq(),
                onlyInBroadcast(source, relation.get()),
                FILTER_IDS.computeIfAbsent(attribute.exprId(), id -> NamedExpression.newExprId()),
                Option.empty());
        Project filtered = new Project(target.projectList(), new Filter(filter, target.child()));
        LogicalPlan side = replaced(targetLeft ? join.left() : join.right(), target, filtered);
        return targetLeft
            ? new Join(side, join.right(), type, join.condition(), join.hint())
            : new Join(join.left(), side, type, join.condition(), join.hint());
      }
    }
    return join;
  }

  /**
   * The target's projection that carries MERGE's cardinality row id, found under the deterministic
   * filters Spark infers above it (such as {@code isnotnull(key)}), or empty.
   */
  private static Optional<Project> cardinalityProjection(LogicalPlan plan) {
    LogicalPlan node = plan;
    while (node instanceof Filter filter && filter.condition().deterministic()) {
      node = filter.child();
    }
    return node instanceof Project project && isCardinalityProjection(project)
        ? Optional.of(project)
        : Optional.empty();
  }

  /** The side with its cardinality projection replaced, under the same filters. */
  private static LogicalPlan replaced(LogicalPlan side, Project target, Project filtered) {
    if (side == target) {
      return filtered;
    }
    Filter filter = (Filter) side;
    return new Filter(filter.condition(), replaced(filter.child(), target, filtered));
  }

  /** Whether the plan is the target's projection that carries MERGE's cardinality row id. */
  private static boolean isCardinalityProjection(Project project) {
    return CollectionConverters.asJava(project.projectList()).stream()
        .anyMatch(
            expression ->
                expression instanceof Alias alias
                    && CARDINALITY_ROW_ID.equals(alias.name())
                    && alias.child() instanceof MonotonicallyIncreasingID);
  }

  /**
   * The merge-on-read scan of a Floe table under deterministic projections and filters, or empty
   * when the plan is anything else or already carries a dynamic pruning filter.
   */
  private static Optional<DataSourceV2ScanRelation> floeRead(LogicalPlan plan) {
    LogicalPlan node = plan;
    while (true) {
      if (node instanceof DataSourceV2ScanRelation relation) {
        return relation.scan() instanceof SupportsRuntimeV2Filtering
                && relation.relation().table() instanceof RowLevelOperationTable operation
                && operation.table() instanceof FloeTable
                && operation.operation() instanceof SupportsDelta
            ? Optional.of(relation)
            : Optional.empty();
      }
      if (node instanceof Filter filter) {
        if (!filter.condition().deterministic()
            || filter.condition().exists(DynamicPruningSubquery.class::isInstance)) {
          return Optional.empty();
        }
        node = filter.child();
      } else if (node instanceof Project project
          && CollectionConverters.asJava(project.projectList()).stream()
              .allMatch(expression -> ((Expression) expression).deterministic())) {
        node = project.child();
      } else {
        return Optional.empty();
      }
    }
  }

  /** Whether the scan offers the column to runtime filters. */
  private static boolean offered(DataSourceV2ScanRelation relation, Attribute column) {
    for (NamedReference reference :
        ((SupportsRuntimeV2Filtering) relation.scan()).filterAttributes()) {
      String[] names = reference.fieldNames();
      if (names.length == 1 && names[0].equals(column.name())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the filter may only reuse the join's broadcast, as Spark's own rule decides: unless
   * Spark's conf allows running the source a second time and the source is the smaller side.
   */
  private static boolean onlyInBroadcast(LogicalPlan source, LogicalPlan target) {
    if (SQLConf.get().dynamicPartitionPruningReuseBroadcastOnly()) {
      return true;
    }
    return source.stats().sizeInBytes().compare(target.stats().sizeInBytes()) >= 0;
  }

  private static boolean deterministic(LogicalPlan plan) {
    return !plan.exists(
        node -> CollectionConverters.asJava(node.expressions()).stream().anyMatch(e -> !e.deterministic()));
  }
}
