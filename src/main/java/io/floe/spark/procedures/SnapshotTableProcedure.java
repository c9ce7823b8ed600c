package io.floe.spark.procedures;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code snapshot(source_table, table [, location, properties, parallelism])}: creates the Iceberg
 * table {@code table} in this catalog over the files of {@code source_table}, a Parquet, ORC or
 * Avro table of Spark's session catalog, without changing the source. The new table has the source's columns,
 * identity partitions and properties (less its location settings), then {@code properties}, and
 * always {@code gc.enabled=false} and {@code snapshot=true} as in the official runtime: no
 * expiry, orphan cleanup or purge of the snapshot ever deletes a file of the source. Its own
 * writes go to its own location, which must not overlap the source's.
 *
 * <p>Footers are read by a Spark job of {@code parallelism} tasks (Spark's default parallelism
 * when not given). Returns {@code imported_files_count}. Bad input, or any failure before the
 * table is created, leaves no table behind.
 */
final class SnapshotTableProcedure extends BaseProcedure {
  static final String NAME = "snapshot";

  private static final ProcedureParameter SOURCE_TABLE =
      Parameters.required("source_table", DataTypes.StringType);
  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter LOCATION =
      Parameters.optional("location", DataTypes.StringType);
  private static final ProcedureParameter PROPERTIES =
      Parameters.optional("properties", Parameters.STRING_MAP);
  private static final ProcedureParameter PARALLELISM =
      Parameters.optional("parallelism", DataTypes.IntegerType);
  private static final ProcedureParameter[] PARAMETERS = {
    SOURCE_TABLE, TABLE, LOCATION, PROPERTIES, PARALLELISM
  };

  private static final StructType OUTPUT =
      Parameters.output(Parameters.column("imported_files_count", DataTypes.LongType, false));

  SnapshotTableProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    SparkSession spark = context().spark();
    String sourceText = args.string(SOURCE_TABLE);
    TableIdentifier ident = tableArgument(args, TABLE);
    String location = args.optionalString(LOCATION);
    if (location != null && location.isBlank()) {
      throw args.invalid(LOCATION, "is empty");
    }
    Map<String, String> userProperties = args.anyOptions(PROPERTIES);
    int parallelism = parallelism(args, PARALLELISM, spark);
    SessionTableImport source =
        SessionTableImport.resolve(spark, sourceText, why -> args.invalid(SOURCE_TABLE, why));
    if (context().catalogName().equals(SessionTableImport.SESSION_CATALOG)
        && ident.namespace().levels().length == 1
        && ident.namespace().level(0).equals(source.ident().database().get())
        && ident.name().equals(source.ident().table())) {
      throw failure("cannot create a snapshot with the same name as its source " + sourceText);
    }
    if (location != null && sameLocation(location, source.location())) {
      throw args.invalid(
          LOCATION, "is the location of the source table; the snapshot's files would mix with "
              + "the source's: " + location);
    }
    Map<String, String> properties = properties(source, userProperties, location);
    Identifier sparkIdent = Identifier.of(ident.namespace().levels(), ident.name());
    long imported =
        SessionTableImport.createAndImport(
            spark, stagingCatalog(spark), sparkIdent, source, properties, source.quotedName(),
            parallelism, qualifiedName() + " of " + sourceText + " as " + context().quoted(ident),
            staged -> refuseOverlap(staged, source),
            this::failure);
    context().refreshCached(ident);
    return new InternalRow[] {row(imported)};
  }

  private static Map<String, String> properties(
      SessionTableImport source, Map<String, String> userProperties, String location) {
    Map<String, String> properties = new HashMap<>(source.properties());
    properties.remove(TableCatalog.PROP_LOCATION);
    properties.remove(TableProperties.WRITE_METADATA_LOCATION);
    properties.remove(TableProperties.WRITE_FOLDER_STORAGE_LOCATION);
    properties.remove(TableProperties.OBJECT_STORE_PATH);
    properties.remove(TableProperties.WRITE_DATA_LOCATION);
    properties.put(TableCatalog.PROP_PROVIDER, "iceberg");
    properties.putAll(userProperties);
    // the snapshot shares the source's files: nothing it runs may delete them
    properties.put(TableProperties.GC_ENABLED, "false");
    properties.put("snapshot", "true");
    if (location != null) {
      properties.put(TableCatalog.PROP_LOCATION, location);
    }
    return properties;
  }

  private void refuseOverlap(Table staged, SessionTableImport source) {
    String target = normalized(staged.location());
    String sourceLocation = normalized(source.location());
    if (target.equals(sourceLocation)
        || target.startsWith(sourceLocation + "/")
        || sourceLocation.startsWith(target + "/")) {
      throw failure(
          "the snapshot's location " + staged.location() + " overlaps the location of its source "
              + source.location() + "; their files would mix");
    }
  }

  private StagingTableCatalog stagingCatalog(SparkSession spark) {
    CatalogPlugin catalog = spark.sessionState().catalogManager().catalog(context().catalogName());
    if (!(catalog instanceof StagingTableCatalog staging)) {
      throw failure("catalog " + context().catalogName() + " cannot stage a new table");
    }
    return staging;
  }

  private static boolean sameLocation(String a, String b) {
    return normalized(a).equals(normalized(b));
  }

  private static String normalized(String location) {
    return new org.apache.hadoop.fs.Path(location).toString().replaceAll("/+$", "");
  }

  /** A parallelism argument, at least 1; Spark's default parallelism when not given. */
  static int parallelism(ProcedureArgs args, ProcedureParameter parameter, SparkSession spark) {
    Integer given = args.optionalInt(parameter);
    if (given == null) {
      return spark.sparkContext().defaultParallelism();
    }
    if (given < 1) {
      throw args.invalid(parameter, "must be at least 1, got " + given);
    }
    return given;
  }
}
