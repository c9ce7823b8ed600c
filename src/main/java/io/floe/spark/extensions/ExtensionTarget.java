package io.floe.spark.extensions;

import io.floe.spark.catalog.FloeTable;
import io.floe.spark.util.Identifiers;
import io.floe.spark.util.Unchecked;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table an extension statement names, resolved when the statement runs the way Spark resolves
 * a table name: {@code t} in the current catalog and namespace, {@code c.db.t} in catalog {@code c}
 * when {@code c} is a catalog, else {@code db.t} in the current catalog. It must be an Iceberg
 * table of a Floe catalog ({@code FloeCatalog} or {@code FloeSessionCatalog}), not a branch, tag,
 * snapshot or metadata table of one.
 *
 * @param catalog the catalog holding the table
 * @param ident the table's identifier in that catalog
 * @param table the table as the catalog loaded it
 */
record ExtensionTarget(TableCatalog catalog, Identifier ident, FloeTable table) {
  private static final Logger LOG = LoggerFactory.getLogger(ExtensionTarget.class);

  ExtensionTarget {
    Objects.requireNonNull(catalog, "catalog is null");
    Objects.requireNonNull(ident, "ident is null");
    Objects.requireNonNull(table, "table is null");
  }

  /**
   * Resolves a statement's table.
   *
   * @throws org.apache.spark.sql.AnalysisException when there is no such table ({@code
   *     TABLE_OR_VIEW_NOT_FOUND}), or it is no Floe Iceberg table, naming the statement and table
   */
  static ExtensionTarget resolve(SparkSession spark, ExtensionStatement statement) {
    CatalogManager catalogs = spark.sessionState().catalogManager();
    List<String> parts = statement.table();
    String name = parts.get(parts.size() - 1);
    CatalogPlugin catalog = catalogs.currentCatalog();
    String[] namespace;
    if (parts.size() == 1) {
      namespace = catalogs.currentNamespace();
    } else if (isCatalog(catalogs, parts.get(0))) {
      catalog = catalogs.catalog(parts.get(0));
      namespace = parts.subList(1, parts.size() - 1).toArray(new String[0]);
    } else {
      namespace = parts.subList(0, parts.size() - 1).toArray(new String[0]);
    }
    Identifier ident = Identifier.of(namespace, name);
    String statementText = "ALTER TABLE " + Names.quoted(parts) + " " + statement.action();
    if (!(catalog instanceof TableCatalog)) {
      throw Unchecked.analysisError(
          "Cannot run " + statementText + ": catalog " + catalog.name() + " has no tables");
    }
    TableCatalog tables = (TableCatalog) catalog;
    org.apache.spark.sql.connector.catalog.Table loaded;
    try {
      loaded = tables.loadTable(ident);
    } catch (NoSuchTableException e) {
      // Spark's own TABLE_OR_VIEW_NOT_FOUND, thrown on unchanged
      throw Unchecked.rethrow(e);
    }
    String fullName = quoted(catalog.name(), ident);
    if (!(loaded instanceof FloeTable)) {
      throw Unchecked.analysisError(
          "Cannot run " + statementText + ": " + fullName
              + " is not an Iceberg table of a Floe catalog (FloeCatalog or FloeSessionCatalog)");
    }
    FloeTable floe = (FloeTable) loaded;
    if (floe.loader() == null
        || floe.table() instanceof BaseMetadataTable
        || floe.branch() != null
        || floe.snapshotId() != null) {
      throw Unchecked.analysisError(
          "Cannot run " + statementText + ": " + fullName
              + " names a branch, tag, snapshot or metadata table; name the table itself");
    }
    return new ExtensionTarget(tables, ident, floe);
  }

  private static boolean isCatalog(CatalogManager catalogs, String name) {
    return name.equalsIgnoreCase(CatalogManager.SESSION_CATALOG_NAME())
        || catalogs.isCatalogRegistered(name);
  }

  /** The table as its catalog has it now: live, for a commit (never the catalog's read view). */
  Table live() {
    return table.loader().load();
  }

  /** {@code catalog.db.t}, each part quoted as Spark reads it back. */
  String quotedName() {
    return quoted(catalog.name(), ident);
  }

  /**
   * Forgets the table in its catalog and refreshes Spark's cached plans of it, after a statement
   * changed it (or may have). A failed refresh is logged: the statement's outcome is what counts.
   */
  void invalidate(SparkSession spark) {
    catalog.invalidateTable(ident);
    try {
      spark.catalog().refreshTable(quotedName());
    } catch (RuntimeException e) {
      LOG.warn("Cannot refresh Spark's cached plans of {}", quotedName(), e);
    }
  }

  private static String quoted(String catalogName, Identifier ident) {
    return Stream.concat(
            Stream.of(catalogName),
            Stream.concat(Arrays.stream(ident.namespace()), Stream.of(ident.name())))
        .map(Identifiers::quote)
        .collect(Collectors.joining("."));
  }
}
