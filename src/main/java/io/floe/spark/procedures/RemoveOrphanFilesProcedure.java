package io.floe.spark.procedures;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.DeleteOrphanFiles.PrefixMismatchMode;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code remove_orphan_files(table [, older_than, location, dry_run, max_concurrent_deletes,
 * file_list_view, equal_schemes, equal_authorities, prefix_mismatch_mode, prefix_listing,
 * stream_results])}: deletes the files under the table's location (or {@code location}) that the
 * table's metadata does not reference and that were modified before {@code older_than} (3 days ago
 * by default), and returns one row per such file ({@link OrphanFiles} finds them with Spark jobs).
 *
 * <p>As in the official runtime, an {@code older_than} less than 24 hours ago is refused unless
 * the session conf {@code spark.testing} is true (a younger file may belong to a write in flight),
 * and a table with {@code gc.enabled=false} is refused. {@code dry_run} deletes nothing. Deletes
 * are bulk when the FileIO supports it (then {@code max_concurrent_deletes} is ignored), else on
 * that many threads. {@code file_list_view} names a view of {@code file_path} STRING and {@code
 * last_modified} TIMESTAMP to use instead of listing. {@code stream_results} is accepted and has no
 * effect: the orphan list is collected to the driver, as the output rows need it there anyway.
 */
final class RemoveOrphanFilesProcedure extends BaseProcedure {
  static final String NAME = "remove_orphan_files";

  private static final Logger LOG = LoggerFactory.getLogger(RemoveOrphanFilesProcedure.class);
  private static final Map<String, String> EQUAL_SCHEMES_DEFAULT = Map.of("s3n", "s3", "s3a", "s3");

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter OLDER_THAN =
      Parameters.optional("older_than", DataTypes.TimestampType);
  private static final ProcedureParameter LOCATION =
      Parameters.optional("location", DataTypes.StringType);
  private static final ProcedureParameter DRY_RUN =
      Parameters.optional("dry_run", DataTypes.BooleanType);
  private static final ProcedureParameter MAX_CONCURRENT_DELETES =
      Parameters.optional("max_concurrent_deletes", DataTypes.IntegerType);
  private static final ProcedureParameter FILE_LIST_VIEW =
      Parameters.optional("file_list_view", DataTypes.StringType);
  private static final ProcedureParameter EQUAL_SCHEMES =
      Parameters.optional("equal_schemes", Parameters.STRING_MAP);
  private static final ProcedureParameter EQUAL_AUTHORITIES =
      Parameters.optional("equal_authorities", Parameters.STRING_MAP);
  private static final ProcedureParameter PREFIX_MISMATCH_MODE =
      Parameters.optional("prefix_mismatch_mode", DataTypes.StringType);
  private static final ProcedureParameter PREFIX_LISTING =
      Parameters.optional("prefix_listing", DataTypes.BooleanType);
  private static final ProcedureParameter STREAM_RESULTS =
      Parameters.optional("stream_results", DataTypes.BooleanType);
  private static final ProcedureParameter[] PARAMETERS = {
    TABLE,
    OLDER_THAN,
    LOCATION,
    DRY_RUN,
    MAX_CONCURRENT_DELETES,
    FILE_LIST_VIEW,
    EQUAL_SCHEMES,
    EQUAL_AUTHORITIES,
    PREFIX_MISMATCH_MODE,
    PREFIX_LISTING,
    STREAM_RESULTS
  };

  private static final StructType OUTPUT =
      Parameters.output(Parameters.column("orphan_file_location", DataTypes.StringType, false));

  RemoveOrphanFilesProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    Long olderThanArg = args.optionalTimestampMillis(OLDER_THAN);
    String location = args.optionalString(LOCATION);
    boolean dryRun = Boolean.TRUE.equals(args.optionalBoolean(DRY_RUN));
    Integer maxConcurrentDeletes = args.optionalInt(MAX_CONCURRENT_DELETES);
    String fileListView = args.optionalString(FILE_LIST_VIEW);
    Map<String, String> equalSchemes = new HashMap<>(EQUAL_SCHEMES_DEFAULT);
    equalSchemes.putAll(flatten(args.anyOptions(EQUAL_SCHEMES)));
    Map<String, String> equalAuthorities = flatten(args.anyOptions(EQUAL_AUTHORITIES));
    PrefixMismatchMode mode = mode(args);
    boolean prefixListing = Boolean.TRUE.equals(args.optionalBoolean(PREFIX_LISTING));
    // read only to check its type: it has no effect here (see the class comment)
    args.optionalBoolean(STREAM_RESULTS);
    if (maxConcurrentDeletes != null && maxConcurrentDeletes < 1) {
      throw args.invalid(MAX_CONCURRENT_DELETES, "must be at least 1, got " + maxConcurrentDeletes);
    }
    SparkSession spark = context().spark();
    long now = System.currentTimeMillis();
    long olderThan = olderThanArg != null ? olderThanArg : now - TimeUnit.DAYS.toMillis(3);
    boolean testing = Boolean.parseBoolean(spark.conf().get("spark.testing", "false"));
    if (olderThanArg != null && !testing && now - olderThan < TimeUnit.DAYS.toMillis(1)) {
      throw args.invalid(
          OLDER_THAN,
          "must be at least 24 hours ago: a younger file may belong to a write still in flight, "
              + "and deleting it would corrupt the table");
    }
    Dataset<Row> fileList = fileListView == null ? null : fileList(args, spark, fileListView);
    return readTable(
        ident,
        table -> {
          if (!PropertyUtil.propertyAsBoolean(
              table.properties(), TableProperties.GC_ENABLED, TableProperties.GC_ENABLED_DEFAULT)) {
            throw failure(
                "table " + table.name() + " has gc.enabled=false: deleting files may corrupt "
                    + "other tables that share them");
          }
          spark.sparkContext().setJobDescription(qualifiedName() + " on " + table.name());
          List<String> orphans;
          try {
            orphans =
                new OrphanFiles(spark, table, qualifiedName())
                    .find(
                        new OrphanFiles.Listing(
                            location == null ? table.location() : location, olderThan, fileList,
                            prefixListing),
                        equalSchemes,
                        equalAuthorities,
                        mode);
          } finally {
            spark.sparkContext().setJobDescription(null);
          }
          LOG.info(
              "{} on {}: found {} orphan files older than {}{}", qualifiedName(), table.name(),
              orphans.size(), olderThan, dryRun ? " (dry run, none deleted)" : "");
          if (!dryRun) {
            delete(table.io(), orphans, maxConcurrentDeletes);
          }
          InternalRow[] rows = new InternalRow[orphans.size()];
          for (int i = 0; i < rows.length; i++) {
            rows[i] = row(UTF8String.fromString(orphans.get(i)));
          }
          return rows;
        });
  }

  private static Dataset<Row> fileList(ProcedureArgs args, SparkSession spark, String view) {
    Dataset<Row> files;
    try {
      files = spark.table(view);
    } catch (Exception e) {
      // Spark's AnalysisException is checked, though Scala code throws it undeclared
      throw args.invalid(FILE_LIST_VIEW, "names no table or view: " + view);
    }
    StructType schema = files.schema();
    if (!List.of(schema.fieldNames()).contains("file_path")
        || !List.of(schema.fieldNames()).contains("last_modified")
        || !schema.apply("file_path").dataType().equals(DataTypes.StringType)
        || !schema.apply("last_modified").dataType().equals(DataTypes.TimestampType)) {
      throw args.invalid(
          FILE_LIST_VIEW,
          "must have columns file_path STRING and last_modified TIMESTAMP, not "
              + schema.simpleString());
    }
    return files;
  }

  private static PrefixMismatchMode mode(ProcedureArgs args) {
    String text = args.optionalString(PREFIX_MISMATCH_MODE);
    if (text == null) {
      return PrefixMismatchMode.ERROR;
    }
    try {
      return PrefixMismatchMode.valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw args.invalid(
          PREFIX_MISMATCH_MODE, "must be 'error', 'ignore' or 'delete', not '" + text + "'");
    }
  }

  /** The official runtime's form: a key may list several comma-separated equal values. */
  private static Map<String, String> flatten(Map<String, String> map) {
    Map<String, String> flat = new HashMap<>();
    map.forEach(
        (keys, value) -> {
          for (String key : keys.split(",")) {
            flat.put(key.trim(), value.trim());
          }
        });
    return flat;
  }

  private void delete(org.apache.iceberg.io.FileIO io, List<String> files, Integer threads) {
    if (files.isEmpty()) {
      return;
    }
    if (io instanceof SupportsBulkOperations) {
      try {
        ((SupportsBulkOperations) io).deleteFiles(files);
      } catch (BulkDeletionFailureException e) {
        LOG.warn("{}: {} of {} orphan files could not be deleted", qualifiedName(),
            e.numberFailedObjects(), files.size(), e);
      }
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads == null ? 1 : threads);
    try {
      for (String file : files) {
        pool.submit(
            () -> {
              try {
                io.deleteFile(file);
              } catch (RuntimeException e) {
                LOG.warn("{}: cannot delete orphan file {}", qualifiedName(), file, e);
              }
            });
      }
    } finally {
      pool.shutdown();
      try {
        pool.awaitTermination(Long.MAX_VALUE, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
