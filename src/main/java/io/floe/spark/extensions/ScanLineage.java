package io.floe.spark.extensions;

import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import org.apache.spark.sql.internal.SQLConf;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Where a column a write receives comes from, for the planner strategies that leave out the
 * shuffle under a write ({@link UpdateInPlace}, {@link InsertInPlace}): a scan's column, unchanged,
 * when only filters, and projections that keep or rename columns, lie between the scan and the
 * write. Such a column holds in every row the value the row was read with.
 */
final class ScanLineage {
  /**
   * A column read by a scan.
   *
   * @param relation the scan's relation
   * @param attribute the relation's output attribute the column is
   */
  record ScanColumn(DataSourceV2ScanRelation relation, Attribute attribute) {}

  private ScanLineage() {}

  /** The scan column that the output column {@code name} of {@code plan} is, if it is one. */
  static Optional<ScanColumn> of(LogicalPlan plan, String name) {
    return outputNamed(plan, name).flatMap(attribute -> traced(plan, attribute.exprId()));
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

  private static Optional<ScanColumn> traced(LogicalPlan plan, ExprId id) {
    if (plan instanceof DataSourceV2ScanRelation relation) {
      for (Attribute attribute : CollectionConverters.asJava(relation.output())) {
        if (attribute.exprId().equals(id)) {
          return Optional.of(new ScanColumn(relation, attribute));
        }
      }
      return Optional.empty();
    }
    if (plan instanceof Filter filter) {
      return traced(filter.child(), id);
    }
    if (plan instanceof Project project) {
      for (NamedExpression expression : CollectionConverters.asJava(project.projectList())) {
        if (!expression.exprId().equals(id)) {
          continue;
        }
        if (expression instanceof Attribute attribute) {
          return traced(project.child(), attribute.exprId());
        }
        if (expression instanceof Alias alias && alias.child() instanceof Attribute attribute) {
          return traced(project.child(), attribute.exprId());
        }
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /**
   * {@code plan} with {@code relation} replaced by {@code replacement}, which has the same output;
   * {@code plan} is filters and projections over the relation, as {@link #of} traced them.
   */
  static LogicalPlan withRelation(
      LogicalPlan plan, DataSourceV2ScanRelation relation, LogicalPlan replacement) {
    if (plan == relation) {
      return replacement;
    }
    if (plan instanceof Filter || plan instanceof Project) {
      LogicalPlan child = plan.children().head();
      return plan.withNewChildren(seq(withRelation(child, relation, replacement)));
    }
    throw new IllegalStateException("Cannot replace scan under " + plan.nodeName());
  }

  static Seq<LogicalPlan> seq(LogicalPlan plan) {
    return CollectionConverters.asScala(List.of(plan)).toSeq();
  }
}
