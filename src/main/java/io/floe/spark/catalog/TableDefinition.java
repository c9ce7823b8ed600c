package io.floe.spark.catalog;

import io.floe.spark.types.SparkSchemas;
import io.floe.spark.types.Transforms;
import io.floe.spark.types.VariantColumns;
import java.net.URI;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.connector.catalog.CatalogV2Util;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;

/**
 * A CREATE or REPLACE TABLE statement turned into Iceberg terms: schema with fresh field ids,
 * partition spec, location and table properties. Spark's reserved keys are translated here, and the
 * properties {@link FloeTable#properties()} derives from the table's state (which SHOW CREATE TABLE
 * prints) are not stored, so that its output creates the same table again.
 */
final class TableDefinition {
  /** Properties Floe reports from the table's state; never stored as table properties. */
  static final Set<String> DERIVED_PROPERTIES = Set.of("current-snapshot-id", "format", "sort-order");

  private static final Set<String> PROVIDERS = Set.of("iceberg", "floe");
  private static final Set<String> DROPPED = Set.of("provider", "location", "external", "is_managed_location");
  private static final String OPTION_PREFIX = "option.";
  /** The format version Iceberg gives a new table that names none (TableMetadata's default). */
  private static final int ICEBERG_DEFAULT_FORMAT_VERSION = 2;

  private final Schema schema;
  private final PartitionSpec spec;
  private final String location;
  private final Map<String, String> properties;

  private TableDefinition(
      Schema schema, PartitionSpec spec, String location, Map<String, String> properties) {
    this.schema = schema;
    this.spec = spec;
    this.location = location;
    this.properties = properties;
  }

  /** Whether a table's {@code provider} ({@code USING ...}) names an Iceberg table. */
  static boolean isIcebergProvider(String provider) {
    return PROVIDERS.contains(provider.toLowerCase(Locale.ROOT));
  }

  /**
   * @param tableDefaults the catalog's options: its {@code table-default.} and {@code
   *     table-override.} properties decide the format version when the statement names none
   */
  static TableDefinition of(
      String tableName,
      Column[] columns,
      Transform[] partitions,
      Map<String, String> sparkProperties,
      Map<String, String> tableDefaults) {
    String provider = sparkProperties.get("provider");
    if (provider != null && !isIcebergProvider(provider)) {
      throw new IllegalArgumentException(
          "Cannot create table " + tableName + ": provider '" + provider
              + "' is not supported by a Floe catalog (use USING iceberg)");
    }
    for (Column column : columns) {
      if (column.generationExpression() != null) {
        throw new UnsupportedOperationException(
            "Cannot create table " + tableName + ": column " + column.name()
                + " has a generation expression, which is not supported");
      }
      if (column.defaultValue() != null) {
        ColumnDefaults.requireFormat(
            "create table " + tableName, column.name(), formatVersion(sparkProperties, tableDefaults));
      }
    }
    // the DEFAULTs are taken from the columns themselves, not from Spark's field metadata
    StructType struct = CatalogV2Util.v2ColumnsToStructType(withoutDefaults(columns));
    Schema schema = SparkSchemas.toIceberg(struct);
    VariantColumns.requireSupported(
        "create table " + tableName, schema, formatVersion(sparkProperties, tableDefaults));
    if (ColumnDefaults.anyDefault(columns)) {
      schema = ColumnDefaults.withDefaults(tableName, schema, columns);
    }
    PartitionSpec spec = Transforms.toIcebergSpec(schema, partitions);
    Map<String, String> properties = new HashMap<>();
    sparkProperties.forEach(
        (key, value) -> {
          if (key.startsWith(OPTION_PREFIX)) {
            properties.put(key.substring(OPTION_PREFIX.length()), value);
          } else if (!DROPPED.contains(key) && !DERIVED_PROPERTIES.contains(key)) {
            properties.put(key, value);
          }
        });
    return new TableDefinition(schema, spec, sparkProperties.get("location"), properties);
  }

  /** The format version the new table gets: override, then statement, then catalog default. */
  private static int formatVersion(Map<String, String> properties, Map<String, String> catalogOptions) {
    String key = TableProperties.FORMAT_VERSION;
    String version =
        catalogOptions.getOrDefault(
            CatalogProperties.TABLE_OVERRIDE_PREFIX + key,
            properties.getOrDefault(
                key,
                properties.getOrDefault(
                    OPTION_PREFIX + key,
                    catalogOptions.get(CatalogProperties.TABLE_DEFAULT_PREFIX + key))));
    if (version == null) {
      return ICEBERG_DEFAULT_FORMAT_VERSION;
    }
    try {
      return Integer.parseInt(version.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid format-version '" + version + "': not a number", e);
    }
  }

  private static Column[] withoutDefaults(Column[] columns) {
    Column[] plain = new Column[columns.length];
    for (int i = 0; i < columns.length; i++) {
      Column column = columns[i];
      plain[i] =
          column.defaultValue() == null
              ? column
              : Column.create(
                  column.name(), column.dataType(), column.nullable(), column.comment(),
                  column.metadataInJSON());
    }
    return plain;
  }

  /**
   * A builder for the table.
   *
   * @param fixedLocation the one location the catalog accepts for this table (hadoop), or null; a
   *     LOCATION naming the same folder in another spelling (Spark qualifies it as {@code file:/x}
   *     where the catalog says {@code file:///x}) is taken as that location
   */
  Catalog.TableBuilder builder(Catalog catalog, TableIdentifier ident, String fixedLocation) {
    Catalog.TableBuilder builder =
        catalog.buildTable(ident, schema).withPartitionSpec(spec).withProperties(properties);
    if (location == null) {
      return builder;
    }
    boolean sameFolder = fixedLocation != null && sameFolder(location, fixedLocation);
    return builder.withLocation(sameFolder ? fixedLocation : location);
  }

  private static boolean sameFolder(String left, String right) {
    return normalized(left).equals(normalized(right));
  }

  private static String normalized(String location) {
    URI uri = new Path(location).toUri().normalize();
    String path = uri.getPath() == null ? "" : uri.getPath().replaceAll("/+$", "");
    return uri.getScheme() + "|" + (uri.getAuthority() == null ? "" : uri.getAuthority()) + "|" + path;
  }
}
