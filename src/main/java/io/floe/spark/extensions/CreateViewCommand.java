package io.floe.spark.extensions;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchViewException;
import org.apache.spark.sql.catalyst.analysis.ViewAlreadyExistsException;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import org.apache.spark.sql.connector.catalog.ViewInfo;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import io.floe.spark.util.Unchecked;

/**
 * {@code CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v [(c [COMMENT '...'], ...)] [COMMENT '...']
 * [TBLPROPERTIES (...)] AS query} in a view catalog. The query is checked first ({@link
 * ViewQueries}: no temporary objects, no cycle, it analyses); only then is the view stored, in one
 * catalog call, as the official runtime stores it: the query text, the schema (the given column
 * names and comments over the query's types), the current catalog (none when it is the view's own)
 * and namespace, the query's own column names, the comment and the properties, plus {@code
 * create_engine_version} and {@code engine_version}.
 */
final class CreateViewCommand extends ViewCommand {
  /** What the statement says. */
  record Definition(
      ViewRef target,
      String sql,
      LogicalPlan query,
      List<String> columnNames,
      List<String> columnComments,
      String comment,
      Map<String, String> properties) {
    Definition {
      Objects.requireNonNull(target, "target is null");
      Objects.requireNonNull(sql, "sql is null");
      Objects.requireNonNull(query, "query is null");
      columnNames = List.copyOf(columnNames);
      columnComments = new ArrayList<>(columnComments);
      properties = Map.copyOf(properties);
    }
  }

  private final Definition definition;
  private final boolean ifNotExists;
  private final boolean replace;

  CreateViewCommand(Definition definition, boolean ifNotExists, boolean replace) {
    this.definition = Objects.requireNonNull(definition, "definition is null");
    this.ifNotExists = ifNotExists;
    this.replace = replace;
  }

  @Override
  public String name() {
    return "CREATE " + (replace ? "OR REPLACE " : "") + "VIEW " + definition.target().quoted();
  }

  @Override
  StructType schema() {
    return new StructType();
  }

  @Override
  List<InternalRow> run(SparkSession spark) {
    ViewRef target = definition.target();
    ViewCatalog catalog = target.catalog();
    if (ifNotExists && catalog.viewExists(target.ident())) {
      return List.of();
    }
    LogicalPlan analyzed = ViewQueries.check(spark, target, definition.query());
    ViewInfo info = viewInfo(spark, definition, analyzed, engineProperties(spark, null));
    try {
      if (replace) {
        catalog.replaceView(info, true);
      } else {
        catalog.createView(info);
      }
    } catch (ViewAlreadyExistsException e) {
      if (!ifNotExists) {
        throw Unchecked.rethrow(e);
      }
    } catch (NoSuchNamespaceException | NoSuchViewException e) {
      throw Unchecked.rethrow(e);
    } catch (RuntimeException e) {
      throw ViewErrors.refused("create view", target, e);
    }
    return List.of();
  }

  /** {@code create_engine_version} (kept from {@code created} when given) and {@code engine_version}. */
  static Map<String, String> engineProperties(SparkSession spark, String created) {
    String engine = "Spark " + SparkContext.getOrCreate().version();
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(ViewCatalog.PROP_CREATE_ENGINE_VERSION, created != null ? created : engine);
    properties.put(ViewCatalog.PROP_ENGINE_VERSION, engine);
    return properties;
  }

  /** The view as stored: the definition over the analysed query, in the current catalog context. */
  static ViewInfo viewInfo(
      SparkSession spark, Definition definition, LogicalPlan analyzed, Map<String, String> engine) {
    ViewRef target = definition.target();
    StructType output = analyzed.schema();
    List<String> names = definition.columnNames();
    if (!names.isEmpty() && names.size() != output.fields().length) {
      throw ViewErrors.columnArity(
          target,
          names.size() > output.fields().length,
          String.join(", ", names),
          String.join(", ", output.fieldNames()));
    }
    List<StructField> fields = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    boolean caseSensitive = spark.sessionState().conf().caseSensitiveAnalysis();
    for (int pos = 0; pos < output.fields().length; pos++) {
      StructField column = output.fields()[pos];
      String name = names.isEmpty() ? column.name() : names.get(pos);
      if (!seen.add(caseSensitive ? name : name.toLowerCase(Locale.ROOT))) {
        throw ViewErrors.message(
            String.format(
                "Cannot create view %s: column %s appears more than once", target.quoted(), name));
      }
      String comment = names.isEmpty() ? null : definition.columnComments().get(pos);
      StructField field = new StructField(name, column.dataType(), column.nullable(), column.metadata());
      fields.add(comment != null ? field.withComment(comment) : field);
    }
    CatalogManager catalogs = spark.sessionState().catalogManager();
    String current = catalogs.currentCatalog().name();
    Map<String, String> properties = new LinkedHashMap<>(definition.properties());
    if (definition.comment() != null) {
      properties.put(ViewCatalog.PROP_COMMENT, definition.comment());
    }
    properties.putAll(engine);
    return new ViewInfo(
        target.ident(),
        definition.sql(),
        current.equals(target.catalog().name()) ? null : current,
        catalogs.currentNamespace(),
        new StructType(fields.toArray(new StructField[0])),
        output.fieldNames(),
        fields.stream().map(StructField::name).toArray(String[]::new),
        fields.stream()
            .map(f -> f.getComment().isDefined() ? f.getComment().get() : null)
            .toArray(String[]::new),
        properties);
  }
}
