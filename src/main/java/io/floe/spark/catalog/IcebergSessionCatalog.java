package io.floe.spark.catalog;

import org.apache.iceberg.catalog.Catalog;

/**
 * A Spark session catalog ({@code spark_catalog}) that keeps Iceberg tables beside the built-in
 * catalog's own: what the procedures that turn a built-in table into an Iceberg table ({@code
 * migrate}) and the view statements ask of it. Spark's built-in tables and views of the same
 * session stay reachable through Spark's own {@code SessionCatalog}.
 */
public interface IcebergSessionCatalog {
  /** The Iceberg catalog that holds this session catalog's Iceberg tables. */
  Catalog icebergCatalog();

  /**
   * Whether persistent views created through this catalog are Iceberg views (the Iceberg catalog
   * keeps views: REST, JDBC with {@code jdbc.schema-version=V1}), as with the official runtime's
   * {@code SparkSessionCatalog}; otherwise they are Spark's own views in the built-in catalog.
   */
  boolean servesIcebergViews();
}
