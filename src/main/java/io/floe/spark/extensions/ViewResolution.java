package io.floe.spark.extensions;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.catalog.View;
import scala.Function1;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractPartialFunction;

/**
 * The analyzer rule that reads views of view catalogs (Spark 4.1 resolves no DSv2 view itself): a
 * relation name that Spark's own resolution left unresolved (no temporary view, no table) and that
 * names a view of a {@code ViewCatalog} becomes the view's plan ({@link ViewExpander}). Relations
 * inside subqueries reach this rule when Spark analyses the subquery.
 */
public final class ViewResolution extends Rule<LogicalPlan> {
  private final SparkSession spark;

  /** @param spark the session whose catalogs and parser the rule uses */
  public ViewResolution(SparkSession spark) {
    this.spark = Objects.requireNonNull(spark, "spark is null");
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return plan.resolveOperatorsUp(
        new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
          @Override
          public boolean isDefinedAt(LogicalPlan node) {
            return node instanceof UnresolvedRelation;
          }

          @Override
          public <A1 extends LogicalPlan, B1> B1 applyOrElse(A1 node, Function1<A1, B1> otherwise) {
            if (!(node instanceof UnresolvedRelation relation)) {
              return otherwise.apply(node);
            }
            @SuppressWarnings("unchecked")
            B1 result = (B1) expanded(relation);
            return result;
          }
        });
  }

  private LogicalPlan expanded(UnresolvedRelation relation) {
    List<String> parts = CollectionConverters.asJava(relation.multipartIdentifier());
    Optional<ViewRef> ref = ViewRef.resolve(spark.sessionState().catalogManager(), parts);
    Optional<View> view = ref.flatMap(ViewRef::load);
    if (view.isEmpty()) {
      return relation;
    }
    return new ViewExpander(spark).expand(ref.get(), view.get(), List.of());
  }
}
