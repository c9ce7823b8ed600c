package io.floe.spark.catalog;

import java.nio.file.Path;
import java.util.Map;

/**
 * The kinds of Iceberg catalog a suite runs against, with their options over a warehouse folder and
 * what each one can do, so that a suite asserts the right outcome for each.
 */
public enum TestCatalog {
  /**
   * Iceberg's hadoop catalog: tables are folders, no namespace properties, no rename, and dropping
   * a table removes its folder.
   */
  HADOOP(false, false, false, false),
  /** Iceberg's JDBC catalog over a SQLite file in the warehouse folder. */
  JDBC(true, true, true, true);

  private final boolean namespaceProperties;
  private final boolean customLocation;
  private final boolean rename;
  private final boolean dropKeepsFiles;

  TestCatalog(
      boolean namespaceProperties, boolean customLocation, boolean rename, boolean dropKeepsFiles) {
    this.namespaceProperties = namespaceProperties;
    this.customLocation = customLocation;
    this.rename = rename;
    this.dropKeepsFiles = dropKeepsFiles;
  }

  /** The options of {@code spark.sql.catalog.<name>.*} for a warehouse folder. */
  public Map<String, String> options(Path warehouse) {
    String location = warehouse.toUri().toString();
    switch (this) {
      case HADOOP:
        return Map.of("type", "hadoop", "warehouse", location);
      case JDBC:
        return Map.of(
            "type", "jdbc",
            "uri", "jdbc:sqlite:" + warehouse.resolve("catalog.db"),
            "jdbc.schema-version", "V1",
            "warehouse", location);
      default:
        throw new IllegalStateException("Unknown test catalog " + this);
    }
  }

  /** Whether the catalog stores namespace properties. */
  public boolean supportsNamespaceProperties() {
    return namespaceProperties;
  }

  /** Whether a table may live outside its namespace's folder. */
  public boolean supportsCustomLocation() {
    return customLocation;
  }

  /** Whether tables can be renamed. */
  public boolean supportsRename() {
    return rename;
  }

  /** Whether DROP TABLE without PURGE leaves the table's files in place. */
  public boolean dropKeepsFiles() {
    return dropKeepsFiles;
  }
}
