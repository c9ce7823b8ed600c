package io.floe.spark.extensions;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.View;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code SHOW CREATE TABLE v} of a view: the one {@code createtab_stmt} row holding a CREATE VIEW
 * statement that recreates it (columns with comments, comment, properties, the stored query). Names
 * and column names are quoted where needed, so the statement parses back; the query is printed as
 * stored, so it reads in the view's default catalog and namespace.
 */
final class ShowCreateViewCommand extends ViewCommand {
  private static final StructType SCHEMA =
      new StructType().add("createtab_stmt", DataTypes.StringType, false);

  private final ViewRef target;
  private final View view;

  ShowCreateViewCommand(ViewRef target, View view) {
    this.target = Objects.requireNonNull(target, "target is null");
    this.view = Objects.requireNonNull(view, "view is null");
  }

  @Override
  public String name() {
    return "SHOW CREATE TABLE " + target.quoted();
  }

  @Override
  StructType schema() {
    return SCHEMA;
  }

  @Override
  List<InternalRow> run(SparkSession spark) {
    StringBuilder statement = new StringBuilder("CREATE VIEW ").append(target.quoted()).append(" (\n");
    List<String> columns = new ArrayList<>();
    for (StructField field : view.schema().fields()) {
      String column = "  " + Names.quoted(List.of(field.name()));
      if (field.getComment().isDefined()) {
        column += " COMMENT " + literal(field.getComment().get());
      }
      columns.add(column);
    }
    statement.append(String.join(",\n", columns)).append(")\n");
    String comment = view.properties().get(ViewCatalog.PROP_COMMENT);
    if (comment != null) {
      statement.append("COMMENT ").append(literal(comment)).append('\n');
    }
    Map<String, String> properties = new TreeMap<>(view.properties());
    ViewCatalog.RESERVED_PROPERTIES.forEach(properties::remove);
    properties.keySet().removeAll(List.of("provider", "location", "format-version"));
    Map<String, String> shown = new TreeMap<>();
    scala.jdk.javaapi.CollectionConverters.asJava(
            spark.sessionState().conf().redactOptions(
                scala.collection.immutable.Map$.MODULE$.from(
                    scala.jdk.javaapi.CollectionConverters.asScala(properties))))
        .forEach(shown::put);
    if (!shown.isEmpty()) {
      statement.append("TBLPROPERTIES (\n  ").append(propertyList(shown, ",\n  ")).append(")\n");
    }
    statement.append("AS\n").append(view.query()).append('\n');
    return List.of(CommandRows.row(statement.toString()));
  }

  /** {@code 'key' = 'value'} pairs, sorted by key, joined with {@code separator}. */
  static String propertyList(Map<String, String> properties, String separator) {
    return new TreeMap<>(properties)
        .entrySet().stream()
            .map(e -> literal(e.getKey()) + " = " + literal(e.getValue()))
            .collect(Collectors.joining(separator));
  }

  private static String literal(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

}
