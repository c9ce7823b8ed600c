package io.floe.spark.catalog;

import io.floe.spark.types.SparkSchemas;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.view.BaseView;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.View;
import org.apache.spark.sql.types.StructType;

/**
 * An Iceberg view as Spark's {@link org.apache.spark.sql.connector.catalog.View}, read the way the
 * official runtime stores views: the SQL of dialect {@value #DIALECT}, the view's schema (column
 * names are the column aliases, field docs the column comments), its default catalog (null when it
 * is the view's own catalog) and namespace, and the query's own output names in the property
 * {@value #QUERY_COLUMN_NAMES}.
 *
 * <p>It carries the Iceberg view as loaded and the name of the Spark catalog that loaded it.
 */
public final class FloeView implements org.apache.spark.sql.connector.catalog.View {
  /** The SQL dialect Spark's view text is stored under. */
  public static final String DIALECT = "spark";
  /** The view property holding the query's own output column names, comma separated. */
  public static final String QUERY_COLUMN_NAMES = "spark.query-column-names";
  /** Properties reported from the view's metadata, never stored or set as view properties. */
  public static final Set<String> RESERVED_PROPERTIES =
      Set.of("provider", "location", "format-version", QUERY_COLUMN_NAMES);

  private final String catalogName;
  private final View view;

  FloeView(String catalogName, View view) {
    this.catalogName = Objects.requireNonNull(catalogName, "catalogName is null");
    this.view = Objects.requireNonNull(view, "view is null");
  }

  /** The Iceberg view this view reads. */
  public View icebergView() {
    return view;
  }

  @Override
  public String name() {
    return view.name();
  }

  /**
   * The view's Spark SQL.
   *
   * @throws IllegalStateException when the view has no SQL of dialect {@value #DIALECT}, naming the
   *     dialects it has
   */
  @Override
  public String query() {
    SQLViewRepresentation sql = view.sqlFor(DIALECT);
    // sqlFor falls back to another dialect when there is no exact match: only Spark's is Spark SQL
    if (sql == null || !DIALECT.equalsIgnoreCase(sql.dialect())) {
      String dialects =
          view.currentVersion().representations().stream()
              .filter(SQLViewRepresentation.class::isInstance)
              .map(r -> ((SQLViewRepresentation) r).dialect())
              .collect(Collectors.joining(", "));
      throw new IllegalStateException(
          String.format(
              "Cannot read view %s: it has no SQL of dialect %s (it has: %s)",
              view.name(), DIALECT, dialects.isEmpty() ? "none" : dialects));
    }
    return sql.sql();
  }

  @Override
  public String currentCatalog() {
    String stored = view.currentVersion().defaultCatalog();
    return stored != null ? stored : catalogName;
  }

  @Override
  public String[] currentNamespace() {
    return view.currentVersion().defaultNamespace().levels();
  }

  @Override
  public StructType schema() {
    return SparkSchemas.toSpark(view.schema());
  }

  @Override
  public String[] queryColumnNames() {
    String names = view.properties().get(QUERY_COLUMN_NAMES);
    return names == null || names.isEmpty() ? new String[0] : names.split(",", -1);
  }

  @Override
  public String[] columnAliases() {
    return view.schema().columns().stream().map(Types.NestedField::name).toArray(String[]::new);
  }

  @Override
  public String[] columnComments() {
    return view.schema().columns().stream().map(Types.NestedField::doc).toArray(String[]::new);
  }

  @Override
  public Map<String, String> properties() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("provider", "iceberg");
    properties.put("location", view.location());
    if (view instanceof BaseView base) {
      properties.put("format-version", String.valueOf(base.operations().current().formatVersion()));
    }
    view.properties().forEach(
        (key, value) -> {
          if (!RESERVED_PROPERTIES.contains(key)) {
            properties.put(key, value);
          }
        });
    return properties;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FloeView that && view.name().equals(that.view.name());
  }

  @Override
  public int hashCode() {
    return view.name().hashCode();
  }

  @Override
  public String toString() {
    return "FloeView{" + view.name() + "}";
  }
}
