package io.floe.spark.procedures;

import io.floe.spark.expressions.SparkPredicates;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.optimizer.ConstantFolding$;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Strategy$;
import scala.Option;

/**
 * A {@code where} argument: Spark SQL text resolved against the table's columns by Spark's own
 * analyzer (so names, literals and casts mean what they mean in a query), constant-folded, and
 * converted exactly to an Iceberg expression, or refused.
 */
final class WhereFilter {
  private WhereFilter() {}

  /**
   * The Iceberg expression the text selects.
   *
   * @param spark the session whose analyzer resolves the text
   * @param quotedTable the table's full Spark name, quoted
   * @param schema the table's schema
   * @param text the filter text
   * @param fail turns a reason into the procedure's failure naming the argument
   */
  static Expression convert(
      SparkSession spark,
      String quotedTable,
      Schema schema,
      String text,
      java.util.function.Function<String, RuntimeException> fail) {
    LogicalPlan analyzed;
    try {
      Dataset<Row> filtered = spark.table(quotedTable).where(text);
      analyzed = filtered.queryExecution().analyzed();
    } catch (Exception e) {
      // Spark's AnalysisException is checked, though Scala code throws it undeclared
      RuntimeException failure =
          fail.apply("cannot be parsed or resolved as a filter: " + text + " (" + e.getMessage() + ")");
      failure.initCause(e);
      throw failure;
    }
    if (!(analyzed instanceof Filter)) {
      throw fail.apply("is not a filter on the table's columns: " + text);
    }
    LogicalPlan folded = ConstantFolding$.MODULE$.apply(analyzed);
    if (!(folded instanceof Filter)) {
      throw fail.apply("is not a filter on the table's columns: " + text);
    }
    Option<Predicate> predicate =
        DataSourceV2Strategy$.MODULE$.translateFilterV2(((Filter) folded).condition());
    Optional<Expression> converted =
        predicate.isDefined()
            ? SparkPredicates.convertExact(
                predicate.get(), schema, spark.sessionState().conf().caseSensitiveAnalysis())
            : Optional.empty();
    if (converted.isEmpty()) {
      throw fail.apply("cannot be converted to an Iceberg filter: " + text);
    }
    return converted.get();
  }
}
