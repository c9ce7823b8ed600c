package io.floe.spark;

import io.floe.spark.catalog.CatalogBuilder;
import io.floe.spark.catalog.FloeCatalogSupport;
import io.floe.spark.catalog.FloeViews;
import io.floe.spark.functions.FloeFunctions;
import io.floe.spark.procedures.ProcedureContext;
import io.floe.spark.procedures.Procedures;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.catalog.Catalog;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NoSuchViewException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.ViewAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalogCapability;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.View;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import org.apache.spark.sql.connector.catalog.ViewChange;
import org.apache.spark.sql.connector.catalog.ViewInfo;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Spark catalog over any Iceberg catalog: {@code
 * spark.sql.catalog.<name>=io.floe.spark.FloeCatalog} plus Iceberg's usual options ({@code type},
 * {@code warehouse}, {@code uri}, {@code io-impl}, ...). With no options it uses the embedded
 * default: a hadoop catalog in the {@code floe-warehouse} folder of the working directory.
 *
 * <p>Tables are Iceberg tables ({@code USING iceberg}); their metadata tables are reached as {@code
 * <name>.db.table.snapshots} and so on. CREATE/REPLACE TABLE [AS SELECT] are atomic. Iceberg's
 * partition transforms are functions of the {@code system} namespace ({@code
 * <name>.system.bucket(16, id)}, see {@link FloeFunctions}), and so are the maintenance procedures
 * ({@code CALL <name>.system.expire_snapshots(...)}, see {@link Procedures}).
 *
 * <p>It is a {@link ViewCatalog} over the Iceberg catalog's views where that catalog keeps views
 * (REST; JDBC with {@code jdbc.schema-version=V1}), stored as the official runtime stores them (see
 * {@link FloeViews}). Spark 4.1 runs no view statement against a catalog's views by itself: the
 * view statements and reads need {@link FloeSparkSessionExtensions}.
 */
public class FloeCatalog
    implements StagingTableCatalog,
        SupportsNamespaces,
        FunctionCatalog,
        ProcedureCatalog,
        ViewCatalog {
  private FloeCatalogSupport support;
  private FloeViews views;
  private ProcedureContext procedures;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    Map<String, String> settings = Map.copyOf(options.asCaseSensitiveMap());
    Catalog catalog = CatalogBuilder.build(name, settings, hadoopConf());
    this.support = new FloeCatalogSupport(name, settings, catalog);
    this.views = new FloeViews(name, catalog);
    this.procedures = new ProcedureContext(name, catalog, support.defaultNamespace());
  }

  /** A copy of the active session's Hadoop configuration, for building an Iceberg catalog. */
  static Configuration hadoopConf() {
    return SparkSession.getActiveSession().isDefined()
        ? new Configuration(SparkSession.getActiveSession().get().sparkContext().hadoopConfiguration())
        : new Configuration();
  }

  /**
   * Column DEFAULT values in CREATE, REPLACE and ALTER TABLE: they become Iceberg's initial and
   * write defaults on format v3 tables (see {@code catalog.ColumnDefaults}).
   */
  @Override
  public Set<TableCatalogCapability> capabilities() {
    return Set.of(TableCatalogCapability.SUPPORT_COLUMN_DEFAULT_VALUE);
  }

  /** The Iceberg catalog this Spark catalog serves. */
  public Catalog icebergCatalog() {
    return support.catalog();
  }

  @Override
  public String name() {
    return support.name();
  }

  @Override
  public String[] defaultNamespace() {
    return support.defaultNamespace();
  }

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    return support.listTables(namespace);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return support.loadTable(ident);
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    return support.loadTable(ident, version);
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    return support.loadTableAsOf(ident, timestamp);
  }

  @Override
  public boolean tableExists(Identifier ident) {
    return support.tableExists(ident);
  }

  @Override
  public Table createTable(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return support.createTable(ident, columns, partitions, properties);
  }

  @Override
  public StagedTable stageCreate(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return support.stageCreate(ident, columns, partitions, properties);
  }

  @Override
  public StagedTable stageReplace(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException, NoSuchTableException {
    return support.stageReplace(ident, columns, partitions, properties, false);
  }

  @Override
  public StagedTable stageCreateOrReplace(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException {
    try {
      return support.stageReplace(ident, columns, partitions, properties, true);
    } catch (NoSuchTableException e) {
      throw new IllegalStateException("Cannot create or replace " + ident + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    return support.alterTable(ident, changes);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    return support.dropTable(ident, false);
  }

  @Override
  public boolean purgeTable(Identifier ident) {
    return support.dropTable(ident, true);
  }

  @Override
  public void renameTable(Identifier from, Identifier to)
      throws NoSuchTableException, TableAlreadyExistsException {
    support.renameTable(from, to);
  }

  @Override
  public void invalidateTable(Identifier ident) {
    support.invalidateTable(ident);
  }

  @Override
  public String[][] listNamespaces() throws NoSuchNamespaceException {
    return support.listNamespaces(new String[0]);
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    return support.listNamespaces(namespace);
  }

  @Override
  public boolean namespaceExists(String[] namespace) {
    return support.namespaceExists(namespace);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace)
      throws NoSuchNamespaceException {
    return support.loadNamespaceMetadata(namespace);
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata)
      throws NamespaceAlreadyExistsException {
    support.createNamespace(namespace, metadata);
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes)
      throws NoSuchNamespaceException {
    support.alterNamespace(namespace, changes);
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade)
      throws NoSuchNamespaceException, NonEmptyNamespaceException {
    return support.dropNamespace(namespace, cascade);
  }

  @Override
  public Identifier[] listFunctions(String[] namespace) throws NoSuchNamespaceException {
    if (FloeFunctions.servesNamespace(namespace)) {
      return FloeFunctions.list(namespace);
    }
    if (namespaceExists(namespace)) {
      return new Identifier[0];
    }
    throw new NoSuchNamespaceException(namespace);
  }

  @Override
  public UnboundFunction loadFunction(Identifier ident) throws NoSuchFunctionException {
    return FloeFunctions.load(ident).orElseThrow(() -> new NoSuchFunctionException(ident));
  }

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    return Procedures.load(procedures, ident);
  }

  @Override
  public Identifier[] listProcedures(String[] namespace) {
    return Procedures.list(namespace);
  }

  @Override
  public Identifier[] listViews(String... namespace) throws NoSuchNamespaceException {
    return views.listViews(namespace);
  }

  @Override
  public View loadView(Identifier ident) throws NoSuchViewException {
    return views.loadView(ident);
  }

  @Override
  public boolean viewExists(Identifier ident) {
    return views.viewExists(ident);
  }

  @Override
  public View createView(ViewInfo viewInfo)
      throws ViewAlreadyExistsException, NoSuchNamespaceException {
    return views.createView(viewInfo);
  }

  @Override
  public View replaceView(ViewInfo viewInfo, boolean orCreate)
      throws NoSuchViewException, NoSuchNamespaceException {
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
  public void renameView(Identifier oldIdent, Identifier newIdent)
      throws NoSuchViewException, ViewAlreadyExistsException {
    views.renameView(oldIdent, newIdent);
  }

  @Override
  public String toString() {
    return support == null ? "FloeCatalog{uninitialized}" : support.toString();
  }
}
