package io.floe.spark.procedures;

import io.floe.spark.catalog.FloeTable;
import io.floe.spark.catalog.IcebergSessionCatalog;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.WriteMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.CatalogV2Util;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Transform;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A table of Spark's built-in session catalog as the source of a new Iceberg table, what {@code
 * snapshot} and {@code migrate} share: the source resolved and checked (a Parquet, ORC or Avro
 * table with a location, not bucketed, not a view, not already an Iceberg table), its columns,
 * identity partitions and properties, and the creation of the Iceberg table over its files.
 *
 * <p>The Iceberg table is staged through the destination Spark catalog, so that its naming rules
 * hold, and appears only when everything is imported: a failure leaves no table and deletes the
 * manifests the staged append wrote.
 */
final class SessionTableImport {
  static final String SESSION_CATALOG = CatalogManager.SESSION_CATALOG_NAME();

  private static final Logger LOG = LoggerFactory.getLogger(SessionTableImport.class);
  private static final Set<String> NOT_COPIED =
      Set.of("path", "transient_lastDdlTime", "serialization.format");

  private final TableIdentifier ident;
  private final CatalogTable table;

  private SessionTableImport(TableIdentifier ident, CatalogTable table) {
    this.ident = Objects.requireNonNull(ident, "ident is null");
    this.table = Objects.requireNonNull(table, "table is null");
  }

  /**
   * Resolves a source table name: {@code 't'} (in the session catalog's current database), {@code
   * 'db.t'} or {@code 'spark_catalog.db.t'}.
   *
   * @param fail makes the procedure's failure from a reason
   */
  static SessionTableImport resolve(
      SparkSession spark, String text, Function<String, RuntimeException> fail) {
    TableIdentifier ident = identifier(spark, text, fail);
    CatalogPlugin session = spark.sessionState().catalogManager().v2SessionCatalog();
    if (session instanceof IcebergSessionCatalog iceberg
        && iceberg.icebergCatalog().tableExists(
            org.apache.iceberg.catalog.TableIdentifier.of(ident.database().get(), ident.table()))) {
      throw fail.apply("'" + text + "' is already an Iceberg table");
    }
    CatalogTable table;
    try {
      table = spark.sessionState().catalog().getTableMetadata(ident);
    } catch (Exception e) {
      throw fail.apply("'" + text + "' names no table of the session catalog (" + SESSION_CATALOG + ")");
    }
    if (table.tableType() == CatalogTableType.VIEW()) {
      throw fail.apply("'" + text + "' is a view, not a table");
    }
    if (ImportSource.formatOf(table).isEmpty()) {
      throw fail.apply(
          "'" + text + "' is a " + ImportSource.describeFormat(table) + " table; Floe imports "
              + "Parquet, ORC and Avro tables only");
    }
    if (table.bucketSpec().isDefined()) {
      throw fail.apply("'" + text + "' is bucketed: Iceberg has no Spark bucketing to carry over");
    }
    if (table.storage().locationUri().isEmpty()) {
      throw fail.apply("'" + text + "' has no location");
    }
    return new SessionTableImport(ident, table);
  }

  private static TableIdentifier identifier(
      SparkSession spark, String text, Function<String, RuntimeException> fail) {
    List<String> parts;
    try {
      parts =
          CollectionConverters.asJava(spark.sessionState().sqlParser().parseMultipartIdentifier(text));
    } catch (Exception e) {
      throw fail.apply("cannot be parsed as a table name: " + text);
    }
    if (parts.size() == 3 && parts.get(0).equalsIgnoreCase(SESSION_CATALOG)) {
      parts = parts.subList(1, 3);
    }
    if (parts.size() == 1) {
      String database = spark.sessionState().catalog().getCurrentDatabase();
      return new TableIdentifier(parts.get(0), Option.apply(database));
    }
    if (parts.size() != 2) {
      throw fail.apply(
          "'" + text + "' must name a table of the session catalog (" + SESSION_CATALOG + "), as "
              + "'t', 'db.t' or '" + SESSION_CATALOG + ".db.t'");
    }
    return new TableIdentifier(parts.get(1), Option.apply(parts.get(0)));
  }

  TableIdentifier ident() {
    return ident;
  }

  CatalogTable table() {
    return table;
  }

  /** The table's name for {@link ImportSource}, every part quoted. */
  String quotedName() {
    return quotedName(ident);
  }

  static String quotedName(TableIdentifier ident) {
    return "`" + ident.database().get().replace("`", "``") + "`.`"
        + ident.table().replace("`", "``") + "`";
  }

  String location() {
    return table.location().toString();
  }

  Column[] columns() {
    return CatalogV2Util.structTypeToV2Columns(table.schema());
  }

  Transform[] partitioning() {
    return CollectionConverters.asJava(table.partitionColumnNames()).stream()
        .map(Expressions::identity)
        .toArray(Transform[]::new);
  }

  /** The source's table properties, without those that describe only the Spark table. */
  Map<String, String> properties() {
    Map<String, String> properties = new HashMap<>(CollectionConverters.asJava(table.properties()));
    NOT_COPIED.forEach(properties::remove);
    return properties;
  }

  /**
   * Stages the Iceberg table in {@code catalog}, sets its name mapping, appends the files of the
   * built-in table {@code importFrom} in one snapshot carrying {@code floe.commit-id}, and commits
   * the creation. Returns how many data files the table got.
   *
   * @param check runs on the staged table before any file is read (to refuse a location, say)
   */
  static long createAndImport(
      SparkSession spark,
      StagingTableCatalog catalog,
      Identifier ident,
      SessionTableImport definition,
      Map<String, String> properties,
      String importFrom,
      int parallelism,
      String description,
      Consumer<Table> check,
      Function<String, RuntimeException> fail) {
    StagedTable staged;
    try {
      staged = catalog.stageCreate(ident, definition.columns(), definition.partitioning(), properties);
    } catch (TableAlreadyExistsException e) {
      throw fail.apply("table " + catalog.name() + "." + ident + " already exists");
    } catch (NoSuchNamespaceException e) {
      throw fail.apply("the namespace of table " + catalog.name() + "." + ident + " does not exist");
    }
    if (!(staged instanceof FloeTable floeTable)) {
      staged.abortStagedChanges();
      throw fail.apply("catalog " + catalog.name() + " does not create Floe tables");
    }
    Table table = floeTable.table();
    long files;
    try {
      check.accept(table);
      String nameMapping = NameMappingParser.toJson(MappingUtil.create(table.schema()));
      table.updateProperties().set(TableProperties.DEFAULT_NAME_MAPPING, nameMapping).commit();
      ImportSource source =
          ImportSource.resolve(spark, importFrom, table.schema(), table.spec(), Map.of(), fail);
      files = source.files().size();
      if (files > 0) {
        List<DataFile> dataFiles =
            AddFilesProcedure.readFooters(
                spark, table, source, nameMapping, parallelism, description);
        CommitRequest request =
            new CommitRequest(
                WriteMode.APPEND, dataFiles, null, UUID.randomUUID().toString(), false, null,
                null, null, Map.of(), null, null);
        new Committer(table, table.name()).commit(request);
      }
    } catch (Exception e) {
      // also a failed Spark job's SparkException, which Spark throws undeclared
      deleteStagedManifests(table);
      staged.abortStagedChanges();
      throw e;
    }
    // Iceberg deletes what the transaction wrote when the commit fails for certain
    staged.commitStagedChanges();
    return files;
  }

  /** Deletes the manifests and manifest list a staged append wrote, which no table references. */
  private static void deleteStagedManifests(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return;
    }
    try {
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        table.io().deleteFile(manifest.path());
      }
      table.io().deleteFile(snapshot.manifestListLocation());
    } catch (RuntimeException e) {
      LOG.warn("Cannot delete the staged manifests of {}", table.name(), e);
    }
  }
}
