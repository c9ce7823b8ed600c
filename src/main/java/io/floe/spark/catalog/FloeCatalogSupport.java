package io.floe.spark.catalog;

import io.floe.spark.read.TimeTravel;
import io.floe.spark.util.Redaction;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.util.LocationUtil;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;

/**
 * The work behind {@code io.floe.spark.FloeCatalog}: table and namespace operations on one Iceberg
 * catalog, with Iceberg's exceptions translated into Spark's. Every load asks the catalog for the
 * table's current state, so a scan always sees the latest schema; unchanged metadata is reused
 * ({@link LiveTables}).
 */
public final class FloeCatalogSupport {
  private static final String DEFAULT_NAMESPACE_OPTION = "default-namespace";
  /** The official runtime's table-name selectors: {@code snapshot_id_<id>} and the like. */
  private static final Pattern SNAPSHOT_SELECTOR = Pattern.compile("(snapshot_id|at_timestamp)_(\\d{1,19})");
  private static final Pattern REF_SELECTOR = Pattern.compile("(branch|tag)_(.+)");
  private static final java.util.Set<String> SPARK_NAMESPACE_KEYS = java.util.Set.of("owner");

  private final String name;
  private final Map<String, String> options;
  private final Catalog catalog;
  private final SupportsNamespaces namespaces;
  private final LiveTables liveTables;

  public FloeCatalogSupport(String name, Map<String, String> options, Catalog catalog) {
    this.name = Objects.requireNonNull(name, "name is null");
    this.options = Map.copyOf(Objects.requireNonNull(options, "options is null"));
    this.catalog = Objects.requireNonNull(catalog, "catalog is null");
    this.namespaces = catalog instanceof SupportsNamespaces ? (SupportsNamespaces) catalog : null;
    this.liveTables = LiveTables.fromOptions(this.name, this.options);
  }

  public String name() {
    return name;
  }

  /** Whether a {@code provider} ({@code USING ...}) names the tables of this catalog. */
  public static boolean isIcebergProvider(String provider) {
    return provider != null && TableDefinition.isIcebergProvider(provider);
  }

  public Catalog catalog() {
    return catalog;
  }

  public String[] defaultNamespace() {
    String configured = options.get(DEFAULT_NAMESPACE_OPTION);
    return configured == null ? new String[] {"default"} : configured.split("\\.");
  }

  // tables

  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    if (isMissingDefaultNamespace(namespace)) {
      return new Identifier[0];
    }
    List<TableIdentifier> tables =
        SparkExceptions.onNamespace(namespace, () -> catalog.listTables(Namespace.of(namespace)));
    return tables.stream().map(SparkExceptions::toSpark).toArray(Identifier[]::new);
  }

  public org.apache.spark.sql.connector.catalog.Table loadTable(Identifier ident)
      throws NoSuchTableException {
    try {
      return new FloeTable(loadIceberg(ident), loader(ident), null);
    } catch (NoSuchTableException missing) {
      FloeTable metadataTable = loadMetadataTable(ident);
      if (metadataTable != null) {
        return metadataTable;
      }
      FloeChangelogTable changelog = loadChangelog(ident);
      if (changelog != null) {
        return changelog;
      }
      FloeTable selected = loadSelected(ident);
      if (selected == null) {
        throw missing;
      }
      return selected;
    }
  }

  /**
   * A table name with a selector as its last part, as the official runtime reads them: {@code
   * t.snapshot_id_<id>}, {@code t.at_timestamp_<millis>} and {@code t.tag_<name>} read that snapshot
   * (read-only), {@code t.branch_<name>} reads and writes the branch. Null when the name has no
   * selector or its table does not exist.
   */
  private FloeTable loadSelected(Identifier ident) {
    String[] namespace = ident.namespace();
    Matcher matcher = SNAPSHOT_SELECTOR.matcher(ident.name());
    if (!matcher.matches()) {
      matcher = REF_SELECTOR.matcher(ident.name());
    }
    if (namespace.length == 0 || !matcher.matches()) {
      return null;
    }
    Identifier base =
        Identifier.of(Arrays.copyOf(namespace, namespace.length - 1), namespace[namespace.length - 1]);
    Table table;
    try {
      table = loadIceberg(base);
    } catch (NoSuchTableException e) {
      return null;
    }
    String value = matcher.group(2);
    switch (matcher.group(1)) {
      case "branch":
        return FloeTable.onBranch(table, loader(base), value);
      case "tag":
        return new FloeTable(table, loader(base), new TimeTravel(TimeTravel.Kind.REF, value, 0));
      case "snapshot_id":
        return new FloeTable(table, loader(base), new TimeTravel(TimeTravel.Kind.SNAPSHOT_ID, value, 0));
      default:
        return new FloeTable(
            table, loader(base), new TimeTravel(TimeTravel.Kind.TIMESTAMP, null, Long.parseLong(value)));
    }
  }

  /** Time travel by snapshot id, or by branch or tag name (SQL {@code VERSION AS OF}). */
  public FloeTable loadTable(Identifier ident, String version) throws NoSuchTableException {
    Table table = loadIceberg(ident);
    return new FloeTable(table, loader(ident), TimeTravel.version(version));
  }

  /**
   * Time travel to the snapshot current at a time, given in microseconds since the epoch (SQL
   * {@code TIMESTAMP AS OF}).
   */
  public FloeTable loadTableAsOf(Identifier ident, long timestampMicros) throws NoSuchTableException {
    Table table = loadIceberg(ident);
    return new FloeTable(table, loader(ident), TimeTravel.asOfMicros(timestampMicros));
  }

  public boolean tableExists(Identifier ident) {
    try {
      loadTable(ident);
      return true;
    } catch (NoSuchTableException e) {
      return false;
    }
  }

  public FloeTable createTable(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    TableDefinition definition = TableDefinition.of(fullName(ident), columns, partitions, properties, options);
    requireNamespace(ident);
    Table table = SparkExceptions.onCreate(ident, builder(ident, definition)::create);
    return new FloeTable(table, loader(ident), null);
  }

  public StagedTable stageCreate(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    TableDefinition definition = TableDefinition.of(fullName(ident), columns, partitions, properties, options);
    requireNamespace(ident);
    Transaction transaction =
        SparkExceptions.onCreate(ident, builder(ident, definition)::createTransaction);
    return new StagedFloeTable(transaction, fullName(ident));
  }

  public StagedTable stageReplace(
      Identifier ident,
      Column[] columns,
      Transform[] partitions,
      Map<String, String> properties,
      boolean orCreate)
      throws NoSuchNamespaceException, NoSuchTableException {
    TableDefinition definition = TableDefinition.of(fullName(ident), columns, partitions, properties, options);
    if (orCreate) {
      requireNamespace(ident);
    }
    Transaction transaction =
        SparkExceptions.onReplace(
            ident,
            () -> {
              Catalog.TableBuilder builder = builder(ident, definition);
              return orCreate ? builder.createOrReplaceTransaction() : builder.replaceTransaction();
            });
    return new StagedFloeTable(transaction, fullName(ident));
  }

  public FloeTable alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    // changes are committed through a table of its own, never through a cached read view
    Table table =
        SparkExceptions.onTable(ident, () -> catalog.loadTable(SparkExceptions.toIceberg(ident)));
    try {
      TableChanges.apply(table, Arrays.asList(changes));
    } finally {
      invalidateTable(ident);
    }
    return new FloeTable(loadIceberg(ident), loader(ident), null);
  }

  public boolean dropTable(Identifier ident, boolean purge) {
    if (purge) {
      requireGcEnabled(ident);
    }
    try {
      return SparkExceptions.onDrop(() -> catalog.dropTable(SparkExceptions.toIceberg(ident), purge));
    } finally {
      invalidateTable(ident);
    }
  }

  /**
   * Refuses to purge a table with {@code gc.enabled=false}, in Iceberg's words: such a table may
   * share its files with another table (a snapshot of it, files added from elsewhere), so deleting
   * them could destroy that table's data. A table that does not exist is left to the drop.
   */
  private void requireGcEnabled(Identifier ident) {
    Table table;
    try {
      table = catalog.loadTable(SparkExceptions.toIceberg(ident));
    } catch (org.apache.iceberg.exceptions.NoSuchTableException e) {
      return;
    }
    ValidationException.check(
        PropertyUtil.propertyAsBoolean(
            table.properties(), TableProperties.GC_ENABLED, TableProperties.GC_ENABLED_DEFAULT),
        "Cannot purge table: GC is disabled (deleting files may corrupt other tables): %s",
        fullName(ident));
  }

  /** Forgets what is kept of a table, so that its next load starts from the catalog. */
  public void invalidateTable(Identifier ident) {
    liveTables.invalidate(SparkExceptions.toIceberg(ident));
  }

  /**
   * Renames a table. Spark hands over the new name as written, so {@code RENAME TO
   * <catalog>.db.t} arrives with this catalog's name in front of the namespace; it is dropped, as
   * the official runtime does.
   */
  public void renameTable(Identifier from, Identifier to)
      throws NoSuchTableException, TableAlreadyExistsException {
    Identifier target = withoutCatalogName(to);
    invalidateTable(from);
    invalidateTable(target);
    try {
      SparkExceptions.onRename(
          from,
          target,
          () -> catalog.renameTable(SparkExceptions.toIceberg(from), SparkExceptions.toIceberg(target)));
    } catch (UnsupportedOperationException e) {
      throw new UnsupportedOperationException(
          "Cannot rename " + fullName(from) + " to " + fullName(target) + ": " + e.getMessage(), e);
    }
  }

  private Identifier withoutCatalogName(Identifier ident) {
    String[] namespace = ident.namespace();
    if (namespace.length > 1 && namespace[0].equalsIgnoreCase(name)) {
      return Identifier.of(Arrays.copyOfRange(namespace, 1, namespace.length), ident.name());
    }
    return ident;
  }

  // namespaces

  public String[][] listNamespaces(String[] parent) throws NoSuchNamespaceException {
    if (parent.length == 0) {
      // a hadoop catalog whose warehouse folder does not exist yet has no namespaces
      List<Namespace> roots =
          SparkExceptions.orWhenNoNamespace(
              () -> requireNamespaces().listNamespaces(Namespace.empty()), List.of());
      return roots.stream().map(Namespace::levels).toArray(String[][]::new);
    }
    List<Namespace> children =
        SparkExceptions.onNamespace(parent, () -> requireNamespaces().listNamespaces(Namespace.of(parent)));
    return children.stream().map(Namespace::levels).toArray(String[][]::new);
  }

  public boolean namespaceExists(String[] namespace) {
    return namespaces != null && namespaces.namespaceExists(Namespace.of(namespace));
  }

  public Map<String, String> loadNamespaceMetadata(String[] namespace)
      throws NoSuchNamespaceException {
    return SparkExceptions.onNamespace(
        namespace, () -> requireNamespaces().loadNamespaceMetadata(Namespace.of(namespace)));
  }

  public void createNamespace(String[] namespace, Map<String, String> metadata)
      throws NamespaceAlreadyExistsException {
    SparkExceptions.onCreateNamespace(
        namespace,
        () -> {
          try {
            requireNamespaces().createNamespace(Namespace.of(namespace), metadata);
          } catch (UnsupportedOperationException e) {
            // catalogs without namespace properties (hadoop) reject the owner Spark adds on its own
            if (!SPARK_NAMESPACE_KEYS.containsAll(metadata.keySet())) {
              throw e;
            }
            requireNamespaces().createNamespace(Namespace.of(namespace), Map.of());
          }
        });
  }

  public void alterNamespace(String[] namespace, NamespaceChange... changes)
      throws NoSuchNamespaceException {
    Map<String, String> set = new HashMap<>();
    java.util.Set<String> removed = new java.util.HashSet<>();
    for (NamespaceChange change : changes) {
      if (change instanceof NamespaceChange.SetProperty) {
        NamespaceChange.SetProperty property = (NamespaceChange.SetProperty) change;
        set.put(property.property(), property.value());
      } else if (change instanceof NamespaceChange.RemoveProperty) {
        removed.add(((NamespaceChange.RemoveProperty) change).property());
      } else {
        throw new UnsupportedOperationException(
            "Cannot alter namespace " + String.join(".", namespace) + ": unsupported change " + change);
      }
    }
    SparkExceptions.onNamespace(
        namespace,
        () -> {
          if (!set.isEmpty()) {
            requireNamespaces().setProperties(Namespace.of(namespace), set);
          }
          if (!removed.isEmpty()) {
            requireNamespaces().removeProperties(Namespace.of(namespace), removed);
          }
          return null;
        });
  }

  public boolean dropNamespace(String[] namespace, boolean cascade)
      throws NoSuchNamespaceException, NonEmptyNamespaceException {
    if (!namespaceExists(namespace)) {
      throw SparkExceptions.noSuchNamespace(namespace);
    }
    if (cascade) {
      for (TableIdentifier table : catalog.listTables(Namespace.of(namespace))) {
        liveTables.invalidate(table);
        catalog.dropTable(table, true);
      }
      for (String[] child : listNamespaces(namespace)) {
        dropNamespace(child, true);
      }
    }
    return SparkExceptions.onDropNamespace(
        namespace, () -> requireNamespaces().dropNamespace(Namespace.of(namespace)));
  }

  // helpers

  private SupportsNamespaces requireNamespaces() {
    if (namespaces == null) {
      throw new UnsupportedOperationException(
          "Cannot manage namespaces: catalog " + name + " does not support namespaces");
    }
    return namespaces;
  }

  private Catalog.TableBuilder builder(Identifier ident, TableDefinition definition) {
    TableIdentifier icebergIdent = SparkExceptions.toIceberg(ident);
    return definition.builder(catalog, icebergIdent, fixedLocation(icebergIdent));
  }

  /**
   * The only location the catalog accepts for a table, when it fixes one: a hadoop catalog keeps
   * every table at {@code <warehouse>/<namespace levels>/<name>}. Null for other catalogs.
   */
  private String fixedLocation(TableIdentifier ident) {
    if (!(catalog instanceof HadoopCatalog)) {
      return null;
    }
    String warehouse =
        options.getOrDefault(CatalogProperties.WAREHOUSE_LOCATION, CatalogBuilder.defaultWarehouse());
    StringBuilder location = new StringBuilder(LocationUtil.stripTrailingSlash(warehouse));
    for (String level : ident.namespace().levels()) {
      location.append('/').append(level);
    }
    return location.append('/').append(ident.name()).toString();
  }

  /**
   * Fails unless the table's namespace exists: some catalogs (hadoop) would otherwise create it on
   * the fly, where Spark expects SCHEMA_NOT_FOUND. The catalog's default namespace is the exception:
   * as with the official runtime, a new catalog's {@code default} (or {@code default-namespace})
   * takes tables without a CREATE NAMESPACE, so it is created with the first table.
   */
  private void requireNamespace(Identifier ident) throws NoSuchNamespaceException {
    if (namespaces == null
        || ident.namespace().length == 0
        || namespaces.namespaceExists(Namespace.of(ident.namespace()))) {
      return;
    }
    if (!Arrays.equals(ident.namespace(), defaultNamespace())) {
      throw SparkExceptions.noSuchNamespace(ident.namespace());
    }
    try {
      // a mutable map: Iceberg's REST client fails on an immutable empty one
      namespaces.createNamespace(Namespace.of(ident.namespace()), new HashMap<>());
    } catch (AlreadyExistsException e) {
      // another writer created it first: the namespace exists, which is all this asked for
    }
  }

  /** A default namespace that no table has been created in yet lists no tables. */
  private boolean isMissingDefaultNamespace(String[] namespace) {
    return namespaces != null
        && Arrays.equals(namespace, defaultNamespace())
        && !namespaces.namespaceExists(Namespace.of(namespace));
  }

  private Table loadIceberg(Identifier ident) throws NoSuchTableException {
    return SparkExceptions.onTable(
        ident, () -> liveTables.load(SparkExceptions.toIceberg(ident), catalog::loadTable));
  }

  private FloeTable loadMetadataTable(Identifier ident) {
    MetadataTableType type = MetadataTableType.from(ident.name());
    String[] namespace = ident.namespace();
    if (type == null || namespace.length == 0) {
      return null;
    }
    Identifier base =
        Identifier.of(Arrays.copyOf(namespace, namespace.length - 1), namespace[namespace.length - 1]);
    try {
      Table baseTable = loadIceberg(base);
      return new FloeTable(MetadataTableUtils.createMetadataTableInstance(baseTable, type), null, null);
    } catch (NoSuchTableException e) {
      return null;
    }
  }

  /** The changelog {@code <table>.changes}, or null when the name is not one of an existing table. */
  private FloeChangelogTable loadChangelog(Identifier ident) {
    String[] namespace = ident.namespace();
    if (!FloeChangelogTable.NAME.equalsIgnoreCase(ident.name()) || namespace.length == 0) {
      return null;
    }
    Identifier base =
        Identifier.of(Arrays.copyOf(namespace, namespace.length - 1), namespace[namespace.length - 1]);
    try {
      return new FloeChangelogTable(loadIceberg(base), loader(base));
    } catch (NoSuchTableException e) {
      return null;
    }
  }

  private CatalogTableLoader loader(Identifier ident) {
    return new CatalogTableLoader(
        name, options, SparkExceptions.toIceberg(ident).toString(), catalog);
  }

  private String fullName(Identifier ident) {
    return name + "." + SparkExceptions.toIceberg(ident);
  }

  @Override
  public String toString() {
    return "FloeCatalog{name=" + name + ", options=" + Redaction.redact(options) + "}";
  }
}
