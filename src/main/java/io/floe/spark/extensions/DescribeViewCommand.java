package io.floe.spark.extensions;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.View;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code DESCRIBE [EXTENDED] v} of a view: one row per column ({@code col_name}, {@code data_type},
 * {@code comment}), and with EXTENDED the official runtime's block of view information (comment,
 * the catalog and namespace its names resolve in, the query's output columns, the properties, the
 * engine that created it).
 */
final class DescribeViewCommand extends ViewCommand {
  private static final StructType SCHEMA =
      new StructType()
          .add("col_name", DataTypes.StringType, false)
          .add("data_type", DataTypes.StringType, false)
          .add("comment", DataTypes.StringType, true);

  private final ViewRef target;
  private final View view;
  private final boolean extended;

  DescribeViewCommand(ViewRef target, View view, boolean extended) {
    this.target = Objects.requireNonNull(target, "target is null");
    this.view = Objects.requireNonNull(view, "view is null");
    this.extended = extended;
  }

  @Override
  public String name() {
    return "DESCRIBE " + (extended ? "EXTENDED " : "") + target.quoted();
  }

  @Override
  StructType schema() {
    return SCHEMA;
  }

  @Override
  List<InternalRow> run(SparkSession spark) {
    List<InternalRow> rows = new ArrayList<>();
    for (StructField field : view.schema().fields()) {
      String comment = field.getComment().isDefined() ? field.getComment().get() : "";
      rows.add(CommandRows.row(field.name(), field.dataType().simpleString(), comment));
    }
    if (!extended) {
      return rows;
    }
    Map<String, String> properties = new TreeMap<>(view.properties());
    ViewCatalog.RESERVED_PROPERTIES.forEach(properties::remove);
    List<String> defaults = new ArrayList<>();
    defaults.add(view.currentCatalog());
    defaults.addAll(List.of(view.currentNamespace()));
    rows.add(CommandRows.row("", "", ""));
    rows.add(CommandRows.row("# Detailed View Information", "", ""));
    rows.add(CommandRows.row("View", target.quoted(), ""));
    rows.add(CommandRows.row("Comment", view.properties().getOrDefault(ViewCatalog.PROP_COMMENT, ""), ""));
    rows.add(CommandRows.row("View Catalog and Namespace", Names.quoted(defaults), ""));
    rows.add(
        CommandRows.row(
            "View Query Output Columns", "[" + String.join(", ", view.queryColumnNames()) + "]", ""));
    rows.add(CommandRows.row("View Properties", "[" + ShowCreateViewCommand.propertyList(properties, ", ") + "]", ""));
    rows.add(
        CommandRows.row(
            "Created By",
            view.properties().getOrDefault(ViewCatalog.PROP_CREATE_ENGINE_VERSION, ""),
            ""));
    return rows;
  }

}
