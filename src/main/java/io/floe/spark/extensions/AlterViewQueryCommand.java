package io.floe.spark.extensions;

import io.floe.spark.util.Unchecked;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchViewException;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.catalog.View;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import org.apache.spark.sql.types.StructType;

/**
 * {@code ALTER VIEW v AS query}: a new version of an existing view with the new query, checked as
 * CREATE VIEW checks one. As Spark's own ALTER VIEW ... AS, the view keeps its comment and
 * properties, and takes the new query's column names (the old column list is dropped). The
 * official runtime refuses this statement; Floe runs it.
 */
final class AlterViewQueryCommand extends ViewCommand {
  private final ViewRef target;
  private final String sql;
  private final LogicalPlan query;

  AlterViewQueryCommand(ViewRef target, String sql, LogicalPlan query) {
    this.target = Objects.requireNonNull(target, "target is null");
    this.sql = Objects.requireNonNull(sql, "sql is null");
    this.query = Objects.requireNonNull(query, "query is null");
  }

  @Override
  public String name() {
    return "ALTER VIEW " + target.quoted() + " AS";
  }

  @Override
  StructType schema() {
    return new StructType();
  }

  @Override
  List<InternalRow> run(SparkSession spark) {
    View existing =
        target.load().orElseThrow(() -> Unchecked.rethrow(new NoSuchViewException(target.ident())));
    LogicalPlan analyzed = ViewQueries.check(spark, target, query);
    Map<String, String> kept = new LinkedHashMap<>(existing.properties());
    ViewCatalog.RESERVED_PROPERTIES.forEach(kept::remove);
    String comment = existing.properties().get(ViewCatalog.PROP_COMMENT);
    CreateViewCommand.Definition definition =
        new CreateViewCommand.Definition(target, sql, analyzed, List.of(), List.of(), comment, kept);
    String created = existing.properties().get(ViewCatalog.PROP_CREATE_ENGINE_VERSION);
    try {
      target
          .catalog()
          .replaceView(
              CreateViewCommand.viewInfo(
                  spark, definition, analyzed, CreateViewCommand.engineProperties(spark, created)),
              false);
    } catch (NoSuchViewException | NoSuchNamespaceException e) {
      throw Unchecked.rethrow(e);
    } catch (RuntimeException e) {
      throw ViewErrors.refused("alter view", target, e);
    }
    return List.of();
  }
}
