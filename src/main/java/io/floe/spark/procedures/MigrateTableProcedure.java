package io.floe.spark.procedures;

import io.floe.spark.catalog.IcebergSessionCatalog;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.apache.spark.sql.catalyst.catalog.SessionCatalog;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * {@code migrate(table [, properties, drop_backup, backup_table_name, parallelism])}: replaces a
 * Parquet, ORC or Avro table of Spark's session catalog by an Iceberg table of the same name over
 * the same files. {@code spark_catalog} must be {@code io.floe.spark.FloeSessionCatalog}, which
 * holds the new table.
 *
 * <p>The steps, as in the official runtime: the source is renamed to {@code <name>_BACKUP_} (or
 * {@code backup_table_name}), which stops writes to it; the Iceberg table is staged with the
 * source's columns, identity partitions, properties, then {@code properties} and {@code
 * migrated=true}, at the source's location (except in a hadoop catalog, which fixes its tables'
 * locations); the backup's files are appended; the table is created. On any failure the Iceberg
 * table is not created and the backup is renamed back, so nothing is lost. With {@code
 * drop_backup => true} the backup is dropped afterwards.
 *
 * <p>Unlike the official runtime, a managed source is made an external table before the rename:
 * Spark moves the folder of a managed table it renames and deletes it when it drops one, which
 * would take the migrated table's files away. The backup therefore stays external, and dropping
 * it never deletes a file; a failed migration restores the table as managed.
 */
final class MigrateTableProcedure extends BaseProcedure {
  static final String NAME = "migrate";

  private static final Logger LOG = LoggerFactory.getLogger(MigrateTableProcedure.class);
  private static final String BACKUP_SUFFIX = "_BACKUP_";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter PROPERTIES =
      Parameters.optional("properties", Parameters.STRING_MAP);
  private static final ProcedureParameter DROP_BACKUP =
      Parameters.optional("drop_backup", DataTypes.BooleanType);
  private static final ProcedureParameter BACKUP_TABLE_NAME =
      Parameters.optional("backup_table_name", DataTypes.StringType);
  private static final ProcedureParameter PARALLELISM =
      Parameters.optional("parallelism", DataTypes.IntegerType);
  private static final ProcedureParameter[] PARAMETERS = {
    TABLE, PROPERTIES, DROP_BACKUP, BACKUP_TABLE_NAME, PARALLELISM
  };

  private static final StructType OUTPUT =
      Parameters.output(Parameters.column("migrated_files_count", DataTypes.LongType, false));

  MigrateTableProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    SparkSession spark = context().spark();
    String text = args.string(TABLE);
    Map<String, String> userProperties = args.anyOptions(PROPERTIES);
    boolean dropBackup = Boolean.TRUE.equals(args.optionalBoolean(DROP_BACKUP));
    String backupName = args.optionalString(BACKUP_TABLE_NAME);
    if (backupName != null && backupName.isBlank()) {
      throw args.invalid(BACKUP_TABLE_NAME, "is empty");
    }
    int parallelism = SnapshotTableProcedure.parallelism(args, PARALLELISM, spark);
    CatalogPlugin session = spark.sessionState().catalogManager().v2SessionCatalog();
    if (!(session instanceof IcebergSessionCatalog iceberg)
        || !(session instanceof StagingTableCatalog staging)) {
      throw failure(
          "migrate replaces a table of the session catalog by an Iceberg table, so "
              + "spark.sql.catalog.spark_catalog must be io.floe.spark.FloeSessionCatalog; it is "
              + session.getClass().getName());
    }
    SessionTableImport source =
        SessionTableImport.resolve(spark, text, why -> args.invalid(TABLE, why));
    TableIdentifier ident = source.ident();
    String database = ident.database().get();
    TableIdentifier backup =
        new TableIdentifier(
            backupName != null ? backupName : ident.table() + BACKUP_SUFFIX, Option.apply(database));
    SessionCatalog builtIn = spark.sessionState().catalog();
    if (builtIn.tableExists(backup)
        || iceberg.icebergCatalog().tableExists(
            org.apache.iceberg.catalog.TableIdentifier.of(database, backup.table()))) {
      throw failure(
          "the backup table " + SessionTableImport.quotedName(backup) + " already exists; drop it "
              + "or give another backup_table_name");
    }
    Map<String, String> properties =
        properties(source, userProperties, iceberg.icebergCatalog());
    Identifier sparkIdent = Identifier.of(new String[] {database}, ident.table());

    CatalogTable original = source.table();
    boolean managed = original.tableType() == CatalogTableType.MANAGED();
    if (managed) {
      builtIn.alterTable(withType(original, CatalogTableType.EXTERNAL()));
    }
    long migrated;
    try {
      builtIn.renameTable(ident, backup);
      try {
        migrated =
            SessionTableImport.createAndImport(
                spark, staging, sparkIdent, source, properties,
                SessionTableImport.quotedName(backup), parallelism,
                qualifiedName() + " of " + SessionTableImport.quotedName(ident), staged -> {},
                this::failure);
      } catch (Exception e) {
        // also a failed Spark job's SparkException, which Spark throws undeclared
        LOG.error("{}: migration of {} failed, restoring it", qualifiedName(), ident, e);
        builtIn.renameTable(backup, ident);
        throw e;
      }
    } catch (Exception e) {
      // also a failed Spark job's SparkException, which Spark throws undeclared
      if (managed) {
        builtIn.alterTable(original);
      }
      throw e;
    }
    if (dropBackup) {
      // the backup is external, so dropping it keeps the files the Iceberg table now uses
      builtIn.dropTable(backup, false, false);
    }
    refreshCached(spark, ident);
    return new InternalRow[] {row(migrated)};
  }

  private static Map<String, String> properties(
      SessionTableImport source, Map<String, String> userProperties, Catalog catalog) {
    Map<String, String> properties = new HashMap<>(source.properties());
    properties.put(TableCatalog.PROP_PROVIDER, "iceberg");
    properties.putAll(userProperties);
    properties.put("migrated", "true");
    if (!(catalog instanceof HadoopCatalog)) {
      properties.putIfAbsent(TableCatalog.PROP_LOCATION, source.location());
    }
    return properties;
  }

  /** Drops Spark's cached plans of the name, which now reads the Iceberg table. */
  private void refreshCached(SparkSession spark, TableIdentifier ident) {
    String name = SessionTableImport.SESSION_CATALOG + "." + SessionTableImport.quotedName(ident);
    try {
      spark.catalog().refreshTable(name);
    } catch (RuntimeException e) {
      LOG.warn("{}: cannot refresh Spark's cached plans of {}", qualifiedName(), name, e);
    }
  }

  /** The same table definition with another table type. */
  private static CatalogTable withType(CatalogTable table, CatalogTableType type) {
    return table.copy(
        table.identifier(), type, table.storage(), table.schema(), table.provider(),
        table.partitionColumnNames(), table.bucketSpec(), table.owner(), table.createTime(),
        table.lastAccessTime(), table.createVersion(), table.properties(), table.stats(),
        table.viewText(), table.comment(), table.collation(), table.unsupportedFeatures(),
        table.tracksPartitionsInCatalog(), table.schemaPreservesCase(), table.ignoredProperties(),
        table.viewOriginalText());
  }
}
