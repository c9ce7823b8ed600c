package io.floe.spark.catalog;

import org.apache.iceberg.catalog.Catalog;

/**
 * A Spark session catalog ({@code spark_catalog}) that keeps Iceberg tables beside the built-in
 * catalog's own: what the procedures that turn a built-in table into an Iceberg table ({@code
 * migrate}) ask of it. Spark's built-in tables of the same session stay reachable through Spark's
 * own {@code SessionCatalog}.
 */
public interface IcebergSessionCatalog {
  /** The Iceberg catalog that holds this session catalog's Iceberg tables. */
  Catalog icebergCatalog();
}
