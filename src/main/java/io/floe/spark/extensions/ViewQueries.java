package io.floe.spark.extensions;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier$;
import org.apache.spark.sql.catalyst.QueryPlanningTracker;
import org.apache.spark.sql.catalyst.analysis.CTESubstitution$;
import org.apache.spark.sql.catalyst.analysis.UnresolvedFunction;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.catalog.SessionCatalog;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import scala.Function1;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.BoxedUnit;

/**
 * What CREATE VIEW and ALTER VIEW ... AS check of a new view query before anything is stored: no
 * temporary view or function in it (Spark's {@code INVALID_TEMP_OBJ_REFERENCE}), no cycle through
 * the view being defined, and that it analyses (a missing table fails with Spark's {@code
 * TABLE_OR_VIEW_NOT_FOUND}, naming it).
 */
final class ViewQueries {
  private ViewQueries() {}

  /** The analysed query, after every check passed. */
  static LogicalPlan check(SparkSession spark, ViewRef target, LogicalPlan query) {
    CatalogManager catalogs = spark.sessionState().catalogManager();
    refuseTemporaryObjects(catalogs, target, CTESubstitution$.MODULE$.apply(query));
    List<String> defaults = new ArrayList<>();
    defaults.add(catalogs.currentCatalog().name());
    defaults.addAll(List.of(catalogs.currentNamespace()));
    // expanding along [target] fails when a view the query reads reads the target again
    new ViewExpander(spark).qualify(query, defaults, List.of(target.parts()));
    return spark
        .sessionState()
        .analyzer()
        .executeAndCheck(query, new QueryPlanningTracker(Option.empty()));
  }

  private static void refuseTemporaryObjects(
      CatalogManager catalogs, ViewRef target, LogicalPlan query) {
    SessionCatalog session = catalogs.v1SessionCatalog();
    Set<String> views = new LinkedHashSet<>();
    Set<String> functions = new LinkedHashSet<>();
    query.foreachWithSubqueries(
        toFunction(
            node -> {
              if (node instanceof UnresolvedRelation relation
                  && ViewRef.isTempView(
                      catalogs, CollectionConverters.asJava(relation.multipartIdentifier()))) {
                views.add(Names.quoted(CollectionConverters.asJava(relation.multipartIdentifier())));
              }
              for (Expression expression : CollectionConverters.asJava(node.expressions())) {
                expression.foreach(
                    toFunction(
                        e -> {
                          if (e instanceof UnresolvedFunction function
                              && function.nameParts().size() == 1
                              && session.isTemporaryFunction(
                                  FunctionIdentifier$.MODULE$.apply(function.nameParts().head()))) {
                            functions.add(function.nameParts().head());
                          }
                        }));
              }
            }));
    if (!views.isEmpty()) {
      throw ViewErrors.tempReference(target, "VIEW", views.iterator().next());
    }
    if (!functions.isEmpty()) {
      throw ViewErrors.tempReference(target, "FUNCTION", functions.iterator().next());
    }
  }

  private static <T> Function1<T, BoxedUnit> toFunction(java.util.function.Consumer<T> action) {
    return value -> {
      action.accept(value);
      return BoxedUnit.UNIT;
    };
  }

}
