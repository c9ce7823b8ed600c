package io.floe.spark.catalog;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.util.FastLocalFileSystem;
import io.floe.spark.util.Redaction;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopTables;

/**
 * Loads a table through an Iceberg catalog built from the catalog's options, or from a location
 * when the table is path-based. In the driver that created it the live catalog is reused; a copy
 * rebuilt in another process builds the catalog again from the options it carries.
 */
public final class CatalogTableLoader implements TableLoader {
  private final String catalogName;
  private final Map<String, String> catalogOptions;
  private final String identifier;
  private transient volatile Catalog catalog;

  /**
   * @param catalogName the Spark catalog name, or null for a path-based table
   * @param catalogOptions the catalog's options (may hold secrets; never shown)
   * @param identifier the table identifier within the catalog, or the table location
   */
  public CatalogTableLoader(
      String catalogName, Map<String, String> catalogOptions, String identifier) {
    this.catalogName = catalogName;
    this.catalogOptions = Map.copyOf(Objects.requireNonNull(catalogOptions, "catalogOptions is null"));
    this.identifier = Objects.requireNonNull(identifier, "identifier is null");
  }

  CatalogTableLoader(String catalogName, Map<String, String> catalogOptions, String identifier, Catalog live) {
    this(catalogName, catalogOptions, identifier);
    this.catalog = live;
  }

  public Map<String, String> catalogOptions() {
    return catalogOptions;
  }

  public String identifier() {
    return identifier;
  }

  @Override
  public String name() {
    return catalogName == null ? identifier : catalogName + "." + identifier;
  }

  @Override
  public Table load() {
    if (catalogName == null) {
      return new HadoopTables(FastLocalFileSystem.useIn(new Configuration())).load(identifier);
    }
    Catalog live = catalog;
    if (live == null) {
      live = CatalogBuilder.build(catalogName, catalogOptions, new Configuration());
      catalog = live;
    }
    return live.loadTable(TableIdentifier.parse(identifier));
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof CatalogTableLoader)) {
      return false;
    }
    CatalogTableLoader that = (CatalogTableLoader) other;
    return Objects.equals(catalogName, that.catalogName)
        && catalogOptions.equals(that.catalogOptions)
        && identifier.equals(that.identifier);
  }

  @Override
  public int hashCode() {
    return Objects.hash(catalogName, catalogOptions, identifier);
  }

  @Override
  public String toString() {
    return "CatalogTableLoader{catalog="
        + catalogName
        + ", table="
        + identifier
        + ", options="
        + Redaction.redact(catalogOptions)
        + "}";
  }
}
