package io.floe.spark.catalog;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.view.UpdateViewProperties;
import org.apache.iceberg.view.View;
import org.apache.iceberg.view.ViewBuilder;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchViewException;
import org.apache.spark.sql.catalyst.analysis.ViewAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ViewChange;
import org.apache.spark.sql.connector.catalog.ViewInfo;

/**
 * The view operations behind {@code io.floe.spark.FloeCatalog}, over the Iceberg catalog's {@link
 * ViewCatalog} when it has one (REST; JDBC with {@code jdbc.schema-version=V1}). Views are stored as
 * the official runtime stores them ({@link FloeView}), so each runtime reads the other's views.
 *
 * <p>On a catalog without views (hadoop) loads and lists find nothing, and every change fails with
 * a message that names the catalog and says which catalogs serve views.
 */
public final class FloeViews {
  private final String name;
  private final Catalog catalog;
  private final ViewCatalog views;
  private volatile Boolean keepsViews;

  public FloeViews(String name, Catalog catalog) {
    this.name = Objects.requireNonNull(name, "name is null");
    this.catalog = Objects.requireNonNull(catalog, "catalog is null");
    this.views = catalog instanceof ViewCatalog viewCatalog ? viewCatalog : null;
  }

  /** Whether the Iceberg catalog stores views at all. */
  public boolean supported() {
    return views != null;
  }

  /**
   * Whether the Iceberg catalog really keeps views: a JDBC catalog on its V0 schema, or a REST
   * server without the view endpoints, has the interface but refuses every view call with {@link
   * UnsupportedOperationException}. Asked once (a listing of the root namespace), then remembered.
   */
  public boolean keepsViews() {
    Boolean known = keepsViews;
    if (known == null) {
      known = views != null && probe();
      keepsViews = known;
    }
    return known;
  }

  private boolean probe() {
    try {
      views.listViews(Namespace.empty());
      return true;
    } catch (UnsupportedOperationException e) {
      return false;
    } catch (RuntimeException e) {
      // a catalog that refuses the root namespace itself (REST) still serves views
      return true;
    }
  }

  public Identifier[] listViews(String[] namespace) throws NoSuchNamespaceException {
    if (views == null) {
      return new Identifier[0];
    }
    try {
      return views.listViews(Namespace.of(namespace)).stream()
          .map(SparkExceptions::toSpark)
          .toArray(Identifier[]::new);
    } catch (org.apache.iceberg.exceptions.NoSuchNamespaceException e) {
      throw SparkExceptions.noSuchNamespace(namespace);
    } catch (UnsupportedOperationException e) {
      // a JDBC catalog on its V0 schema has the interface but keeps no views
      return new Identifier[0];
    }
  }

  public FloeView loadView(Identifier ident) throws NoSuchViewException {
    if (views == null) {
      throw new NoSuchViewException(ident);
    }
    try {
      return new FloeView(name, views.loadView(SparkExceptions.toIceberg(ident)));
    } catch (org.apache.iceberg.exceptions.NoSuchViewException
        | org.apache.iceberg.exceptions.NoSuchNamespaceException
        | UnsupportedOperationException e) {
      throw new NoSuchViewException(ident);
    }
  }

  public boolean viewExists(Identifier ident) {
    try {
      return views != null && views.viewExists(SparkExceptions.toIceberg(ident));
    } catch (UnsupportedOperationException e) {
      return false;
    }
  }

  /**
   * Creates a view.
   *
   * @throws ViewAlreadyExistsException when a view or a table of that name exists
   */
  public FloeView createView(ViewInfo info)
      throws ViewAlreadyExistsException, NoSuchNamespaceException {
    ViewBuilder builder = builder("create", info);
    try {
      return new FloeView(name, onChange("create", info.ident(), builder::create));
    } catch (AlreadyExistsException e) {
      throw new ViewAlreadyExistsException(info.ident());
    } catch (org.apache.iceberg.exceptions.NoSuchNamespaceException e) {
      throw SparkExceptions.noSuchNamespace(info.ident().namespace());
    }
  }

  /**
   * Replaces a view's definition in one commit (a new view version), or creates it when {@code
   * orCreate}.
   *
   * @throws NoSuchViewException when the view does not exist and {@code orCreate} is false
   */
  public FloeView replaceView(ViewInfo info, boolean orCreate)
      throws NoSuchViewException, NoSuchNamespaceException {
    ViewBuilder builder = builder("replace", info);
    try {
      Supplier<View> commit = orCreate ? builder::createOrReplace : builder::replace;
      return new FloeView(name, onChange("replace", info.ident(), commit));
    } catch (org.apache.iceberg.exceptions.NoSuchViewException e) {
      throw new NoSuchViewException(info.ident());
    } catch (org.apache.iceberg.exceptions.NoSuchNamespaceException e) {
      throw SparkExceptions.noSuchNamespace(info.ident().namespace());
    } catch (AlreadyExistsException e) {
      throw new IllegalStateException(
          String.format("Cannot replace view %s: %s", quoted(info.ident()), e.getMessage()), e);
    }
  }

  /**
   * Sets and removes view properties in one commit.
   *
   * @throws IllegalArgumentException for a reserved property ({@link FloeView#RESERVED_PROPERTIES})
   */
  public FloeView alterView(Identifier ident, ViewChange... changes) throws NoSuchViewException {
    requireSupported("alter", ident);
    View view;
    try {
      view = views.loadView(SparkExceptions.toIceberg(ident));
    } catch (org.apache.iceberg.exceptions.NoSuchViewException
        | org.apache.iceberg.exceptions.NoSuchNamespaceException e) {
      throw new NoSuchViewException(ident);
    }
    UpdateViewProperties update = view.updateProperties();
    for (ViewChange change : changes) {
      if (change instanceof ViewChange.SetProperty set) {
        requireNotReserved("set", set.property(), ident);
        update.set(set.property(), set.value());
      } else if (change instanceof ViewChange.RemoveProperty remove) {
        requireNotReserved("unset", remove.property(), ident);
        update.remove(remove.property());
      } else {
        throw new UnsupportedOperationException(
            String.format("Cannot alter view %s: unsupported change %s", quoted(ident), change));
      }
    }
    update.commit();
    return new FloeView(name, view);
  }

  public boolean dropView(Identifier ident) {
    if (views == null) {
      return false;
    }
    try {
      return views.dropView(SparkExceptions.toIceberg(ident));
    } catch (UnsupportedOperationException e) {
      return false;
    }
  }

  public void renameView(Identifier from, Identifier to)
      throws NoSuchViewException, ViewAlreadyExistsException {
    requireSupported("rename", from);
    try {
      views.renameView(SparkExceptions.toIceberg(from), SparkExceptions.toIceberg(to));
    } catch (org.apache.iceberg.exceptions.NoSuchViewException e) {
      throw new NoSuchViewException(from);
    } catch (AlreadyExistsException e) {
      throw new ViewAlreadyExistsException(to);
    }
  }

  private ViewBuilder builder(String action, ViewInfo info) {
    requireSupported(action, info.ident());
    Map<String, String> properties = new LinkedHashMap<>();
    info.properties().forEach(
        (key, value) -> {
          if (!FloeView.RESERVED_PROPERTIES.contains(key)) {
            properties.put(key, value);
          }
        });
    properties.put(FloeView.QUERY_COLUMN_NAMES, String.join(",", info.queryColumnNames()));
    TableIdentifier ident = SparkExceptions.toIceberg(info.ident());
    ViewBuilder builder =
        views
            .buildView(ident)
            .withDefaultCatalog(info.currentCatalog())
            .withDefaultNamespace(Namespace.of(info.currentNamespace()))
            .withQuery(FloeView.DIALECT, info.sql())
            .withSchema(io.floe.spark.types.SparkSchemas.toIceberg(info.schema()))
            .withProperties(properties);
    String location = info.properties().get("location");
    return location == null ? builder : builder.withLocation(location);
  }

  /** Runs a view change, turning a catalog that keeps no views into a message naming it. */
  private View onChange(String action, Identifier ident, Supplier<View> change) {
    try {
      return change.get();
    } catch (UnsupportedOperationException e) {
      throw new UnsupportedOperationException(
          String.format(
              "Cannot %s view %s: catalog %s keeps no views (%s)",
              action, quoted(ident), name, e.getMessage()),
          e);
    }
  }

  private void requireSupported(String action, Identifier ident) {
    if (views == null) {
      throw new UnsupportedOperationException(
          String.format(
              "Cannot %s view %s: catalog %s (%s) does not support views; views need a REST catalog,"
                  + " or a JDBC catalog with jdbc.schema-version=V1",
              action, quoted(ident), name, catalog.getClass().getSimpleName()));
    }
  }

  private void requireNotReserved(String action, String property, Identifier ident) {
    if (FloeView.RESERVED_PROPERTIES.contains(property)) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot %s reserved property '%s' of view %s", action, property, quoted(ident)));
    }
  }

  private String quoted(Identifier ident) {
    String[] parts = Arrays.copyOf(ident.namespace(), ident.namespace().length + 1);
    parts[parts.length - 1] = ident.name();
    return name + "." + String.join(".", parts);
  }

  @Override
  public String toString() {
    return "FloeViews{" + name + ", " + (views != null ? "views" : "no views") + "}";
  }
}
