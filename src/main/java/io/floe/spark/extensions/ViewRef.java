package io.floe.spark.extensions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.spark.sql.catalyst.analysis.NoSuchViewException;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.View;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A name in a catalog that keeps views, resolved as Spark resolves a relation name: {@code v} in the
 * current catalog and namespace, {@code c.db.v} in catalog {@code c} when {@code c} is a catalog,
 * else {@code db.v} in the current catalog.
 *
 * @param catalog the view catalog the name falls in
 * @param ident the name in that catalog
 */
record ViewRef(ViewCatalog catalog, Identifier ident) {
  ViewRef {
    Objects.requireNonNull(catalog, "catalog is null");
    Objects.requireNonNull(ident, "ident is null");
  }

  /**
   * The view-catalog name {@code parts} resolves to; empty when it is a temporary view or falls in a
   * catalog that keeps no views (Spark's own handling applies then).
   */
  static Optional<ViewRef> resolve(CatalogManager catalogs, List<String> parts) {
    return isTempView(catalogs, parts) ? Optional.empty() : resolvePersistent(catalogs, parts);
  }

  /**
   * The view-catalog name {@code parts} resolves to, even when a temporary view has that name (the
   * name a persistent view is created under); empty when it falls in a catalog that keeps no views.
   */
  static Optional<ViewRef> resolvePersistent(CatalogManager catalogs, List<String> parts) {
    if (parts.isEmpty()) {
      return Optional.empty();
    }
    CatalogPlugin catalog;
    String[] namespace;
    if (parts.size() == 1) {
      catalog = catalogs.currentCatalog();
      namespace = catalogs.currentNamespace();
    } else if (catalogs.isCatalogRegistered(parts.get(0))) {
      catalog = catalogs.catalog(parts.get(0));
      namespace = parts.subList(1, parts.size() - 1).toArray(new String[0]);
    } else {
      catalog = catalogs.currentCatalog();
      namespace = parts.subList(0, parts.size() - 1).toArray(new String[0]);
    }
    if (!(catalog instanceof ViewCatalog views)) {
      return Optional.empty();
    }
    return Optional.of(new ViewRef(views, Identifier.of(namespace, parts.get(parts.size() - 1))));
  }

  static boolean isTempView(CatalogManager catalogs, List<String> parts) {
    return catalogs.v1SessionCatalog().isTempView(CollectionConverters.asScala(parts).toSeq());
  }

  /** The view, if the name is one. */
  Optional<View> load() {
    try {
      return Optional.of(catalog.loadView(ident));
    } catch (NoSuchViewException e) {
      return Optional.empty();
    }
  }

  /** {@code catalog, namespace..., name}. */
  List<String> parts() {
    List<String> parts = new ArrayList<>();
    parts.add(catalog.name());
    parts.addAll(Arrays.asList(ident.namespace()));
    parts.add(ident.name());
    return parts;
  }

  /** The full name as messages show it. */
  String quoted() {
    return Names.quoted(parts());
  }
}
