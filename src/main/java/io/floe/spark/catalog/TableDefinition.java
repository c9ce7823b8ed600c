package io.floe.spark.catalog;

import io.floe.spark.types.SparkSchemas;
import io.floe.spark.types.Transforms;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.connector.catalog.CatalogV2Util;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;

/**
 * A CREATE or REPLACE TABLE statement turned into Iceberg terms: schema with fresh field ids,
 * partition spec, location and table properties. Spark's reserved keys are translated here.
 */
final class TableDefinition {
  private static final Set<String> PROVIDERS = Set.of("iceberg", "floe");
  private static final Set<String> DROPPED = Set.of("provider", "location", "external", "is_managed_location");
  private static final String OPTION_PREFIX = "option.";

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

  static TableDefinition of(
      String tableName, Column[] columns, Transform[] partitions, Map<String, String> sparkProperties) {
    String provider = sparkProperties.get("provider");
    if (provider != null && !PROVIDERS.contains(provider.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(
          "Cannot create table " + tableName + ": provider '" + provider
              + "' is not supported by a Floe catalog (use USING iceberg)");
    }
    for (Column column : columns) {
      if (column.defaultValue() != null || column.generationExpression() != null) {
        throw new UnsupportedOperationException(
            "Cannot create table " + tableName + ": column " + column.name()
                + " has a default value or generation expression, which are not supported");
      }
    }
    StructType struct = CatalogV2Util.v2ColumnsToStructType(columns);
    Schema schema = SparkSchemas.toIceberg(struct);
    PartitionSpec spec = Transforms.toIcebergSpec(schema, partitions);
    Map<String, String> properties = new HashMap<>();
    sparkProperties.forEach(
        (key, value) -> {
          if (key.startsWith(OPTION_PREFIX)) {
            properties.put(key.substring(OPTION_PREFIX.length()), value);
          } else if (!DROPPED.contains(key)) {
            properties.put(key, value);
          }
        });
    return new TableDefinition(schema, spec, sparkProperties.get("location"), properties);
  }

  Catalog.TableBuilder builder(Catalog catalog, TableIdentifier ident) {
    Catalog.TableBuilder builder =
        catalog.buildTable(ident, schema).withPartitionSpec(spec).withProperties(properties);
    return location == null ? builder : builder.withLocation(location);
  }
}
