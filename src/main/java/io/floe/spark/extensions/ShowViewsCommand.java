package io.floe.spark.extensions;

import io.floe.spark.util.Unchecked;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.catalog.SessionCatalog;
import org.apache.spark.sql.catalyst.util.StringUtils;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code SHOW VIEWS [IN ns] [LIKE 'pattern']} in a view catalog: the catalog's views of the
 * namespace, then (in the session catalog) Spark's own views of the database, then the session's
 * local temporary views, as Spark lists them ({@code namespace}, {@code viewName}, {@code
 * isTemporary}).
 */
final class ShowViewsCommand extends ViewCommand {
  private static final StructType SCHEMA =
      new StructType()
          .add("namespace", DataTypes.StringType, false)
          .add("viewName", DataTypes.StringType, false)
          .add("isTemporary", DataTypes.BooleanType, false);

  private final ViewCatalog catalog;
  private final String[] namespace;
  private final String pattern;
  private final boolean builtInViews;

  /**
   * @param builtInViews whether to list the built-in catalog's views of the (one-level) namespace
   *     too: the session catalog's Spark views beside its Iceberg views
   */
  ShowViewsCommand(ViewCatalog catalog, String[] namespace, String pattern, boolean builtInViews) {
    this.catalog = Objects.requireNonNull(catalog, "catalog is null");
    this.namespace = namespace.clone();
    this.pattern = pattern;
    this.builtInViews = builtInViews;
  }

  @Override
  public String name() {
    return "SHOW VIEWS IN " + Names.quoted(withCatalog());
  }

  private List<String> withCatalog() {
    List<String> parts = new ArrayList<>();
    parts.add(catalog.name());
    parts.addAll(Arrays.asList(namespace));
    return parts;
  }

  @Override
  StructType schema() {
    return SCHEMA;
  }

  @Override
  List<InternalRow> run(SparkSession spark) {
    List<InternalRow> rows = new ArrayList<>();
    Identifier[] views;
    try {
      views = catalog.listViews(namespace);
    } catch (NoSuchNamespaceException e) {
      throw Unchecked.rethrow(e);
    }
    for (Identifier view : views) {
      if (matches(view.name())) {
        rows.add(CommandRows.row(Names.quoted(Arrays.asList(view.namespace())), view.name(), false));
      }
    }
    SessionCatalog session = spark.sessionState().catalogManager().v1SessionCatalog();
    if (builtInViews) {
      String database = namespace[0];
      for (TableIdentifier view :
          CollectionConverters.asJava(session.listViews(database, pattern == null ? "*" : pattern))) {
        if (view.database().isDefined() && view.database().get().equals(database)) {
          rows.add(CommandRows.row(database, view.table(), false));
        }
      }
    }
    for (TableIdentifier temp :
        CollectionConverters.asJava(session.listLocalTempViews(pattern == null ? "*" : pattern))) {
      rows.add(CommandRows.row("", temp.table(), true));
    }
    return rows;
  }

  private boolean matches(String name) {
    return pattern == null
        || !StringUtils.filterPattern(CollectionConverters.asScala(List.of(name)).toSeq(), pattern)
            .isEmpty();
  }
}
