package io.floe.spark.procedures;

import io.floe.spark.util.Identifiers;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What a procedure needs from the catalog that serves it: the catalog's Spark name, its Iceberg
 * catalog, and the session. Table arguments are resolved here, the way the official runtime does:
 * {@code 't'} is in the current namespace (or the catalog's default one when another catalog is
 * current), {@code 'db.t'} is in this catalog, and {@code 'cat.db.t'} must name this catalog.
 */
public final class ProcedureContext {
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureContext.class);

  private final String catalogName;
  private final Catalog catalog;
  private final String[] defaultNamespace;

  /**
   * @param catalogName the Spark catalog's name, as in {@code spark.sql.catalog.<name>}
   * @param catalog the Iceberg catalog behind it
   * @param defaultNamespace the catalog's default namespace
   */
  public ProcedureContext(String catalogName, Catalog catalog, String[] defaultNamespace) {
    this.catalogName = Objects.requireNonNull(catalogName, "catalogName is null");
    this.catalog = Objects.requireNonNull(catalog, "catalog is null");
    this.defaultNamespace =
        Objects.requireNonNull(defaultNamespace, "defaultNamespace is null").clone();
  }

  String catalogName() {
    return catalogName;
  }

  Catalog catalog() {
    return catalog;
  }

  SparkSession spark() {
    return SparkSession.active();
  }

  /**
   * The Iceberg identifier a table argument names in this catalog.
   *
   * @throws IllegalArgumentException when the text is empty, cannot be parsed, or names a table of
   *     another catalog
   */
  TableIdentifier tableIdentifier(String procedure, String argument, String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "Cannot call " + procedure + ": argument '" + argument + "' is an empty table name");
    }
    List<String> parts;
    try {
      parts =
          CollectionConverters.asJava(
              spark().sessionState().sqlParser().parseMultipartIdentifier(text));
    } catch (ParseException e) {
      throw new IllegalArgumentException(
          "Cannot call "
              + procedure
              + ": cannot parse argument '"
              + argument
              + "' as a table name: "
              + text,
          e);
    }
    CatalogManager catalogs = spark().sessionState().catalogManager();
    String name = parts.get(parts.size() - 1);
    if (parts.size() == 1) {
      String[] namespace =
          catalogs.currentCatalog().name().equals(catalogName)
              ? catalogs.currentNamespace()
              : defaultNamespace;
      return TableIdentifier.of(Namespace.of(namespace), name);
    }
    String first = parts.get(0);
    List<String> namespace = parts.subList(0, parts.size() - 1);
    if (first.equals(catalogName)) {
      namespace = parts.subList(1, parts.size() - 1);
    } else if (catalogs.isCatalogRegistered(first)) {
      throw new IllegalArgumentException(
          "Cannot call "
              + procedure
              + " in catalog '"
              + catalogName
              + "': '"
              + text
              + "' is a table in catalog '"
              + first
              + "'");
    }
    return TableIdentifier.of(Namespace.of(namespace.toArray(new String[0])), name);
  }

  /**
   * Loads a table fresh from the catalog.
   *
   * @throws IllegalArgumentException naming the table when it does not exist
   */
  Table loadTable(String procedure, TableIdentifier ident) {
    try {
      return catalog.loadTable(ident);
    } catch (NoSuchTableException e) {
      throw new IllegalArgumentException(
          "Cannot call " + procedure + ": table " + quoted(ident) + " does not exist", e);
    }
  }

  /**
   * Drops Spark's cached plans of a table after a procedure changed it, so that the next query
   * reads the new state. A failure is logged, not thrown: the procedure's own outcome (its commit,
   * or its error) is what the call reports.
   */
  void refreshCached(TableIdentifier ident) {
    try {
      spark().catalog().refreshTable(quoted(ident));
    } catch (RuntimeException e) {
      LOG.warn("Cannot refresh Spark's cached plans of {}", quoted(ident), e);
    }
  }

  /** The table's full Spark name, every part quoted. */
  String quoted(TableIdentifier ident) {
    StringBuilder name = new StringBuilder(quote(catalogName));
    Arrays.stream(ident.namespace().levels())
        .forEach(level -> name.append('.').append(quote(level)));
    return name.append('.').append(quote(ident.name())).toString();
  }

  private static String quote(String part) {
    return Identifiers.quote(part);
  }
}
