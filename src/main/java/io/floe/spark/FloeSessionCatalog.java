package io.floe.spark;

import io.floe.spark.catalog.CatalogBuilder;
import io.floe.spark.catalog.FloeCatalogSupport;
import io.floe.spark.catalog.FloeViews;
import io.floe.spark.catalog.IcebergSessionCatalog;
import io.floe.spark.catalog.SparkExceptions;
import io.floe.spark.functions.FloeFunctions;
import io.floe.spark.procedures.ProcedureContext;
import io.floe.spark.procedures.Procedures;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NoSuchViewException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.ViewAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.DelegatingCatalogExtension;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.View;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import org.apache.spark.sql.connector.catalog.ViewChange;
import org.apache.spark.sql.connector.catalog.ViewInfo;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Spark's built-in session catalog ({@code spark_catalog}) with Iceberg tables beside its own:
 * {@code spark.sql.catalog.spark_catalog=io.floe.spark.FloeSessionCatalog} plus the options of
 * {@link FloeCatalog} ({@code type}, {@code warehouse}, {@code uri}, ...) for the Iceberg catalog.
 *
 * <p>What goes where:
 *
 * <ul>
 *   <li>Tables created {@code USING iceberg} or {@code USING floe} (or with no {@code USING} when
 *       {@code spark.sql.sources.default} names one of them) are Iceberg tables in the Iceberg
 *       catalog; every other provider, and functions, stay in the built-in catalog.
 *   <li>Views: with {@link FloeSparkSessionExtensions}, a persistent view created here is an
 *       Iceberg view when the Iceberg catalog keeps views (REST; JDBC with {@code
 *       jdbc.schema-version=V1}), as with the official runtime, and Spark's own view in the
 *       built-in catalog otherwise; the option {@value #VIEW_FORMAT} ({@code iceberg}, {@code
 *       spark}) chooses. Spark's own views keep working as before: reads, DROP, ALTER
 *       and CREATE OR REPLACE of an existing one go to the built-in catalog, and SHOW VIEWS lists
 *       both kinds. This class is a {@link ViewCatalog} over the Iceberg views only.
 *       CREATE OR REPLACE TABLE [AS SELECT] of an Iceberg table is atomic.
 *   <li>A name that the Iceberg catalog knows (a table or one of its metadata tables, {@code
 *       db.t.snapshots}) is served as an Iceberg table; any other name by the built-in catalog.
 *       Alters, renames and drops go to the catalog that holds the table.
 *   <li>Listing tables lists both catalogs. Namespaces are the built-in catalog's, as with the
 *       official runtime's {@code SparkSessionCatalog}: an Iceberg table can only be created in a
 *       namespace the built-in catalog has, and its Iceberg namespace is created with it.
 * </ul>
 *
 * <p>A name is served by one catalog only: creating, replacing or renaming to a name the other
 * catalog holds fails with {@link TableAlreadyExistsException} (or, for a replace, an error that
 * says which catalog holds it) and changes nothing. Spark runs CREATE TABLE and RENAME of its own
 * file-source tables ({@code USING parquet}, ...) without asking this catalog, so those cannot be
 * checked: such a table given an Iceberg table's name is hidden by the Iceberg table.
 *
 * <p>The maintenance procedures of a {@link FloeCatalog} are served here too ({@code CALL
 * spark_catalog.system.migrate('db.t')}), for this catalog's Iceberg tables.
 *
 * <p>Floe's transform functions ({@code bucket}, {@code days}, ...) are served to Spark's planning
 * of writes to partitioned tables. A query cannot call them through this catalog: Spark resolves
 * the functions of its session catalog in its own function registry.
 */
public class FloeSessionCatalog extends DelegatingCatalogExtension
    implements StagingTableCatalog, IcebergSessionCatalog, ProcedureCatalog, ViewCatalog {
  /**
   * The catalog option that says what a new persistent view is: {@code iceberg} (an Iceberg view in
   * the Iceberg catalog) or {@code spark} (Spark's own view in the built-in catalog).
   */
  public static final String VIEW_FORMAT = "view-format";

  private String name;
  private FloeCatalogSupport iceberg;
  private FloeViews views;
  private ProcedureContext procedures;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    Map<String, String> settings = Map.copyOf(options.asCaseSensitiveMap());
    Catalog catalog = CatalogBuilder.build(name, settings, FloeCatalog.hadoopConf());
    this.name = name;
    this.iceberg = new FloeCatalogSupport(name, settings, catalog);
    this.views = new FloeViews(name, catalog);
    this.procedures = new ProcedureContext(name, catalog, iceberg.defaultNamespace());
  }

  @Override
  public String name() {
    return name;
  }

  /** The Iceberg catalog that holds this catalog's Iceberg tables. */
  @Override
  public Catalog icebergCatalog() {
    return iceberg.catalog();
  }

  /**
   * Whether new persistent views are Iceberg views: the catalog option {@value #VIEW_FORMAT} ({@code
   * iceberg} or {@code spark}), read from the session's configuration on every statement so that
   * {@code SET spark.sql.catalog.spark_catalog.view-format=spark} changes it for a session; when
   * not set, Iceberg views exactly when the Iceberg catalog keeps views.
   */
  @Override
  public boolean servesIcebergViews() {
    String format = SQLConf.get().getConfString("spark.sql.catalog." + name + "." + VIEW_FORMAT, null);
    if (format == null) {
      return views.keepsViews();
    }
    return switch (format.toLowerCase(Locale.ROOT)) {
      case "iceberg" -> true;
      case "spark" -> false;
      default -> throw new IllegalArgumentException(
          "Invalid value for catalog option spark.sql.catalog." + name + "." + VIEW_FORMAT + ": '"
              + format + "'; use iceberg or spark");
    };
  }

  // tables

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    Set<Identifier> tables = new LinkedHashSet<>(Arrays.asList(super.listTables(namespace)));
    if (iceberg.namespaceExists(namespace)) {
      tables.addAll(Arrays.asList(iceberg.listTables(namespace)));
    }
    return tables.toArray(new Identifier[0]);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    try {
      return iceberg.loadTable(ident);
    } catch (NoSuchTableException notIceberg) {
      if (ident.namespace().length != 1) {
        // only Iceberg serves longer names (metadata tables); the built-in catalog would refuse
        // the name itself rather than say that no such table exists
        throw notIceberg;
      }
      return super.loadTable(ident);
    }
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    if (isIcebergTable(ident)) {
      return iceberg.loadTable(ident, version);
    }
    return super.loadTable(ident, version);
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    if (isIcebergTable(ident)) {
      return iceberg.loadTableAsOf(ident, timestamp);
    }
    return super.loadTable(ident, timestamp);
  }

  @Override
  public boolean tableExists(Identifier ident) {
    return iceberg.tableExists(ident) || builtInTableExists(ident);
  }

  @Override
  public void invalidateTable(Identifier ident) {
    iceberg.invalidateTable(ident);
    super.invalidateTable(ident);
  }

  @Override
  public Table createTable(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    if (isIcebergProvider(properties)) {
      requireNotBuiltIn(ident);
      requireIcebergNamespace(ident);
      return iceberg.createTable(ident, columns, partitions, properties);
    }
    requireNotIceberg(ident);
    return super.createTable(ident, columns, partitions, properties);
  }

  @Override
  public StagedTable stageCreate(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    if (isIcebergProvider(properties)) {
      requireNotBuiltIn(ident);
      requireIcebergNamespace(ident);
      return iceberg.stageCreate(ident, columns, partitions, properties);
    }
    requireNotIceberg(ident);
    TableCatalog builtIn = (TableCatalog) delegate;
    return new DroppedOnAbortTable(
        builtIn, ident, builtIn.createTable(ident, columns, partitions, properties));
  }

  @Override
  public StagedTable stageReplace(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException, NoSuchTableException {
    requireSameKind(ident, properties);
    return iceberg.stageReplace(ident, columns, partitions, properties, false);
  }

  @Override
  public StagedTable stageCreateOrReplace(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException {
    requireSameKind(ident, properties);
    requireIcebergNamespace(ident);
    try {
      return iceberg.stageReplace(ident, columns, partitions, properties, true);
    } catch (NoSuchTableException e) {
      throw new IllegalStateException(
          "Cannot create or replace " + quoted(ident) + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    if (isIcebergTable(ident)) {
      return iceberg.alterTable(ident, changes);
    }
    return super.alterTable(ident, changes);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    return isIcebergTable(ident) ? iceberg.dropTable(ident, false) : super.dropTable(ident);
  }

  @Override
  public boolean purgeTable(Identifier ident) {
    return isIcebergTable(ident) ? iceberg.dropTable(ident, true) : super.purgeTable(ident);
  }

  @Override
  public void renameTable(Identifier from, Identifier to)
      throws NoSuchTableException, TableAlreadyExistsException {
    if (isIcebergTable(from)) {
      requireNotBuiltIn(to);
      iceberg.renameTable(from, to);
    } else {
      requireNotIceberg(to);
      super.renameTable(from, to);
    }
  }

  // namespaces: the built-in catalog's, with the Iceberg tables inside them

  /**
   * Drops a namespace from the built-in catalog, which refuses one that still holds its own tables
   * unless {@code cascade}, and then from the Iceberg catalog; without {@code cascade} a namespace
   * that holds Iceberg tables is refused before anything is dropped.
   */
  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade)
      throws NoSuchNamespaceException, NonEmptyNamespaceException {
    boolean inIceberg = iceberg.namespaceExists(namespace);
    Identifier[] icebergViews = inIceberg ? views.listViews(namespace) : new Identifier[0];
    if (inIceberg
        && !cascade
        && (iceberg.listTables(namespace).length > 0 || icebergViews.length > 0)) {
      throw new NonEmptyNamespaceException(namespace);
    }
    boolean dropped = super.dropNamespace(namespace, cascade);
    if (inIceberg) {
      for (Identifier view : icebergViews) {
        views.dropView(view);
      }
      iceberg.dropNamespace(namespace, cascade);
    }
    return dropped;
  }

  // views: the Iceberg catalog's, when it keeps views; Spark's own views stay in the built-in
  // catalog, which Spark itself serves (the view statements leave them to Spark)

  @Override
  public Identifier[] listViews(String... namespace) throws NoSuchNamespaceException {
    return iceberg.namespaceExists(namespace) ? views.listViews(namespace) : new Identifier[0];
  }

  @Override
  public View loadView(Identifier ident) throws NoSuchViewException {
    return views.loadView(ident);
  }

  @Override
  public boolean viewExists(Identifier ident) {
    return views.viewExists(ident);
  }

  /**
   * Creates an Iceberg view, in a namespace the built-in catalog has (created in the Iceberg
   * catalog when it lacks it, as for a table); a name the built-in catalog holds (a table or one of
   * Spark's views) is refused.
   */
  @Override
  public View createView(ViewInfo viewInfo)
      throws ViewAlreadyExistsException, NoSuchNamespaceException {
    Identifier ident = viewInfo.ident();
    if (builtInTableExists(ident)) {
      throw new ViewAlreadyExistsException(ident);
    }
    requireIcebergNamespace(ident);
    return views.createView(viewInfo);
  }

  @Override
  public View replaceView(ViewInfo viewInfo, boolean orCreate)
      throws NoSuchViewException, NoSuchNamespaceException {
    Identifier ident = viewInfo.ident();
    if (!views.viewExists(ident) && builtInTableExists(ident)) {
      throw new UnsupportedOperationException(
          "Cannot replace view " + quoted(ident) + " with an Iceberg view: the name belongs to "
              + "Spark's built-in catalog");
    }
    requireIcebergNamespace(ident);
    return views.replaceView(viewInfo, orCreate);
  }

  @Override
  public View alterView(Identifier ident, ViewChange... changes) throws NoSuchViewException {
    return views.alterView(ident, changes);
  }

  @Override
  public boolean dropView(Identifier ident) {
    return views.dropView(ident);
  }

  @Override
  public void renameView(Identifier from, Identifier to)
      throws NoSuchViewException, ViewAlreadyExistsException {
    if (builtInTableExists(to) || isIcebergTable(to)) {
      throw new ViewAlreadyExistsException(to);
    }
    views.renameView(from, to);
  }

  // functions: Iceberg's transforms, which Spark loads to plan a write's distribution

  @Override
  public Identifier[] listFunctions(String[] namespace) throws NoSuchNamespaceException {
    if (FloeFunctions.servesNamespace(namespace)) {
      return FloeFunctions.list(namespace);
    }
    return super.listFunctions(namespace);
  }

  @Override
  public UnboundFunction loadFunction(Identifier ident) throws NoSuchFunctionException {
    UnboundFunction function = FloeFunctions.load(ident).orElse(null);
    return function != null ? function : super.loadFunction(ident);
  }

  @Override
  public boolean functionExists(Identifier ident) {
    return FloeFunctions.load(ident).isPresent() || super.functionExists(ident);
  }

  // procedures: the same as a FloeCatalog's, over this catalog's Iceberg tables

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    return Procedures.load(procedures, ident);
  }

  @Override
  public Identifier[] listProcedures(String[] namespace) {
    return Procedures.list(namespace);
  }

  // helpers

  /** Whether the Iceberg catalog holds a table (not a metadata table) of this name. */
  private boolean isIcebergTable(Identifier ident) {
    return ident.namespace().length > 0
        && iceberg.catalog().tableExists(SparkExceptions.toIceberg(ident));
  }

  /**
   * Whether a new table is an Iceberg table: its provider is {@code iceberg} or {@code floe}, or it
   * names none and the session's default data source is one of them.
   */
  private static boolean isIcebergProvider(Map<String, String> properties) {
    String provider = properties.get(TableCatalog.PROP_PROVIDER);
    return FloeCatalogSupport.isIcebergProvider(
        provider != null ? provider : SQLConf.get().defaultDataSourceName());
  }

  /** Fails when a REPLACE would turn a table of one catalog into a table of the other. */
  private void requireSameKind(Identifier ident, Map<String, String> properties)
      throws NoSuchNamespaceException {
    String provider = properties.getOrDefault(TableCatalog.PROP_PROVIDER, "the default provider");
    if (!isIcebergProvider(properties)) {
      throw new UnsupportedOperationException(
          "Cannot replace table "
              + quoted(ident)
              + " atomically with provider "
              + provider
              + ": only Iceberg tables (USING iceberg) can be replaced in "
              + name
              + "; drop the table and create it");
    }
    if (!isIcebergTable(ident) && builtInTableExists(ident)) {
      throw new UnsupportedOperationException(
          "Cannot replace table "
              + quoted(ident)
              + " with an Iceberg table: it is a table of"
              + " Spark's built-in catalog; drop it first");
    }
  }

  /**
   * Whether the built-in catalog holds a table or view of this name. It only knows names in one
   * namespace level, and refuses longer ones rather than answer.
   */
  private boolean builtInTableExists(Identifier ident) {
    return ident.namespace().length == 1 && super.tableExists(ident);
  }

  private void requireNotBuiltIn(Identifier ident) throws TableAlreadyExistsException {
    if (builtInTableExists(ident)) {
      throw new TableAlreadyExistsException(ident);
    }
  }

  private void requireNotIceberg(Identifier ident) throws TableAlreadyExistsException {
    if (isIcebergTable(ident)) {
      throw new TableAlreadyExistsException(ident);
    }
  }

  /**
   * Fails unless the built-in catalog has the table's namespace, and creates that namespace in the
   * Iceberg catalog when it lacks it, so that both catalogs agree on where the table lives.
   */
  private void requireIcebergNamespace(Identifier ident) throws NoSuchNamespaceException {
    String[] namespace = ident.namespace();
    if (!super.namespaceExists(namespace)) {
      throw SparkExceptions.noSuchNamespace(namespace);
    }
    if (iceberg.namespaceExists(namespace)) {
      return;
    }
    try {
      // a mutable map: Iceberg's REST client asks an empty Map.of() whether it holds null
      iceberg.createNamespace(namespace, new HashMap<>());
    } catch (NamespaceAlreadyExistsException | AlreadyExistsException e) {
      // created meanwhile by another writer: it exists, which is all this asked for
    }
  }

  private String quoted(Identifier ident) {
    return name + "." + Namespace.of(ident.namespace()) + "." + ident.name();
  }

  @Override
  public String toString() {
    return iceberg == null
        ? "FloeSessionCatalog{uninitialized}"
        : "FloeSessionCatalog{" + iceberg + "}";
  }
}
