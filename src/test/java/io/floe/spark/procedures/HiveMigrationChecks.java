package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeSessionCatalog;
import io.floe.spark.catalog.TestCatalog;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.Catalog;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import scala.Option;

/**
 * {@code migrate} and {@code snapshot} of Hive tables: a Spark session with Hive support (an
 * embedded Derby metastore in a folder of its own) whose {@code spark_catalog} is {@link
 * FloeSessionCatalog} over a JDBC catalog, and Hive tables ({@code STORED AS PARQUET}, partitioned,
 * written by Spark's Hive insert) turned into Iceberg tables.
 *
 * <p>Runs in a JVM of its own ({@link HiveMigrateTest} starts it), so that Hive's classes and its
 * metastore never start in the shared test JVM. Each check runs on its own; the JVM prints {@code
 * PASS <check>} or {@code FAIL <check>: <stack trace>} for each, and the test asserts on those lines.
 */
public final class HiveMigrationChecks {
  /** The prefix of a passed check's line. */
  static final String PASS = "PASS ";

  /** The prefix of a failed check's line. */
  static final String FAIL = "FAIL ";

  /** The checks, in the order they run. */
  static final List<String> CHECKS =
      List.of("migrate", "failedMigrate", "snapshot");

  private static final String COLUMNS = "id, data, ts, cat";

  private final SparkSession spark;

  private HiveMigrationChecks(SparkSession spark) {
    this.spark = spark;
  }

  public static void main(String[] args) throws IOException {
    Path root = Path.of(args[0]);
    Path icebergWarehouse = Files.createDirectories(root.resolve("iceberg"));
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName("floe-hive-migration")
            .enableHiveSupport()
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.warehouse.dir", root.resolve("hive-warehouse").toUri().toString())
            .config(
                "spark.hadoop.javax.jdo.option.ConnectionURL",
                "jdbc:derby:;databaseName=" + root.resolve("metastore_db") + ";create=true")
            .config("spark.hadoop.datanucleus.schema.autoCreateAll", "true")
            .config("spark.hadoop.hive.metastore.schema.verification", "false")
            .config("spark.sql.catalog.spark_catalog", FloeSessionCatalog.class.getName());
    TestCatalog.JDBC.options(icebergWarehouse)
        .forEach((key, value) -> builder.config("spark.sql.catalog.spark_catalog." + key, value));
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    int failed = 0;
    try {
      HiveMigrationChecks checks = new HiveMigrationChecks(spark);
      for (String check : CHECKS) {
        try {
          checks.run(check);
          System.out.println(PASS + check);
        } catch (Throwable e) {
          failed++;
          System.out.println(FAIL + check + ": " + stackTrace(e));
        }
      }
    } finally {
      spark.stop();
    }
    System.exit(failed == 0 ? 0 : 1);
  }

  private static String stackTrace(Throwable e) {
    java.io.StringWriter text = new java.io.StringWriter();
    e.printStackTrace(new java.io.PrintWriter(text));
    return text.toString();
  }

  private void run(String check) throws IOException {
    sql("CREATE DATABASE IF NOT EXISTS db");
    try {
      switch (check) {
        case "migrate" -> migrateReplacesAHiveTableByAnIcebergTableOverItsFiles();
        case "failedMigrate" -> aFailedMigrationRestoresTheHiveTable();
        case "snapshot" -> aSnapshotOfAHiveTableLeavesItAsItWas();
        default -> throw new IllegalArgumentException("Unknown check " + check);
      }
    } finally {
      spark.catalog().dropTempView("expected");
      sql("DROP DATABASE IF EXISTS db CASCADE");
    }
  }

  private void migrateReplacesAHiveTableByAnIcebergTableOverItsFiles() throws IOException {
    createHiveSource("src");
    CatalogTable before = hiveTable("src");
    assertThat(before.provider().get()).isEqualTo("hive");
    assertThat(before.tableType()).isEqualTo(CatalogTableType.MANAGED());
    Set<Path> files = dataFiles(before.location());

    assertThat(sql("CALL spark_catalog.system.migrate('db.src')"))
        .containsExactly(RowFactory.create((long) files.size()));

    assertThat(iceberg().tableExists(org.apache.iceberg.catalog.TableIdentifier.of("db", "src")))
        .isTrue();
    assertThat(sql("SELECT operation, summary['added-data-files'] FROM db.src.snapshots"))
        .containsExactly(RowFactory.create("append", String.valueOf(files.size())));
    assertThat(sql("SELECT %s FROM db.src", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected"))
        .hasSize(90);
    assertThat(sql("SELECT %s FROM db.src WHERE cat = 'b' AND id > 40", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected WHERE cat = 'b' AND id > 40"));
    assertThat(sql("SELECT count(*) FROM db.src.files").get(0).getLong(0)).isEqualTo(files.size());
    // the Hive table is kept as an external backup over the same files, as Hive still reads them
    CatalogTable backup = hiveTable("src_BACKUP_");
    assertThat(backup.tableType()).isEqualTo(CatalogTableType.EXTERNAL());
    assertThat(backup.location()).isEqualTo(before.location());
    assertThat(sql("SELECT %s FROM db.src_BACKUP_", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected"));
    assertThat(dataFiles(before.location())).isEqualTo(files);

    // the Iceberg table takes new rows beside the imported files
    sql("INSERT INTO db.src SELECT * FROM expected WHERE id < 5");
    assertThat(sql("SELECT %s FROM db.src", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(
            sql("SELECT * FROM expected UNION ALL SELECT * FROM expected WHERE id < 5"));
  }

  private void aFailedMigrationRestoresTheHiveTable() throws IOException {
    createHiveSource("f");
    CatalogTable before = hiveTable("f");
    Set<Path> files = dataFiles(before.location());
    Path junk = Path.of(before.location()).resolve("cat=a").resolve("junk.parquet");
    Files.writeString(junk, "not a parquet file");

    assertThatThrownBy(() -> sql("CALL spark_catalog.system.migrate('db.f')"))
        .hasStackTraceContaining("Cannot add file")
        .hasStackTraceContaining("junk.parquet: it is not a readable Parquet file");

    Files.delete(junk);
    assertThat(iceberg().tableExists(org.apache.iceberg.catalog.TableIdentifier.of("db", "f")))
        .isFalse();
    assertThat(hiveHas("f_BACKUP_")).isFalse();
    CatalogTable after = hiveTable("f");
    assertThat(after.tableType()).isEqualTo(before.tableType());
    assertThat(after.provider()).isEqualTo(before.provider());
    assertThat(after.storage().serde()).isEqualTo(before.storage().serde());
    assertThat(after.location()).isEqualTo(before.location());
    assertThat(after.partitionColumnNames()).isEqualTo(before.partitionColumnNames());
    assertThat(Files.exists(Path.of(before.location()).resolve("metadata"))).isFalse();
    assertThat(dataFiles(before.location())).isEqualTo(files);
    assertThat(sql("SELECT %s FROM db.f", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected"));
    // nothing is left in the way: the migration now takes every file
    assertThat(sql("CALL spark_catalog.system.migrate('db.f')"))
        .containsExactly(RowFactory.create((long) files.size()));
    assertThat(sql("SELECT %s FROM db.f", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected"));
  }

  private void aSnapshotOfAHiveTableLeavesItAsItWas() throws IOException {
    createHiveSource("s");
    CatalogTable before = hiveTable("s");
    Set<Path> files = dataFiles(before.location());

    assertThat(sql("CALL spark_catalog.system.snapshot('db.s', 'db.s_snap')"))
        .containsExactly(RowFactory.create((long) files.size()));

    assertThat(sql("SELECT %s FROM db.s_snap", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected"));
    sql("INSERT INTO db.s_snap SELECT * FROM expected WHERE id < 5");
    assertThat(sql("SELECT count(*) FROM db.s_snap").get(0).getLong(0)).isEqualTo(95L);
    // the Hive table keeps its definition, files and rows
    CatalogTable after = hiveTable("s");
    assertThat(after.provider().get()).isEqualTo("hive");
    assertThat(after.tableType()).isEqualTo(CatalogTableType.MANAGED());
    assertThat(dataFiles(before.location())).isEqualTo(files);
    assertThat(sql("SELECT %s FROM db.s", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected"));
  }

  /**
   * Creates the Hive table {@code db.<name>} STORED AS PARQUET, partitioned by cat, written by
   * Spark's Hive insert (one insert per partition, one more into the first), and keeps the rows
   * Spark reads from it in the view {@code expected}.
   */
  private void createHiveSource(String name) {
    sql(
        "CREATE TABLE db.%s (id BIGINT, data STRING, ts TIMESTAMP) PARTITIONED BY (cat STRING) "
            + "STORED AS PARQUET",
        name);
    Map<String, String> parts = new LinkedHashMap<>();
    parts.put("a", "range(0, 30, 1, 2)");
    parts.put("b", "range(30, 60, 1, 2)");
    parts.put("c", "range(60, 80, 1, 2)");
    parts.forEach(
        (cat, range) ->
            sql(
                "INSERT INTO db.%s PARTITION (cat = '%s') SELECT id, "
                    + "CASE WHEN id %% 7 = 0 THEN NULL ELSE concat('v', id) END, "
                    + "TIMESTAMP'2024-03-10 01:30:00' + make_interval(0, 0, 0, 0, CAST(id AS INT), 0, 0) "
                    + "FROM %s",
                name, cat, range));
    sql(
        "INSERT INTO db.%s PARTITION (cat = 'a') SELECT id, 'again', CAST(NULL AS TIMESTAMP) "
            + "FROM range(80, 90, 1, 1)",
        name);
    Dataset<Row> rows = spark.sql("SELECT " + COLUMNS + " FROM db." + name);
    spark.createDataFrame(rows.collectAsList(), rows.schema()).createOrReplaceTempView("expected");
  }

  private List<Row> sql(String text, Object... args) {
    return spark.sql(String.format(text, args)).collectAsList();
  }

  private Catalog iceberg() {
    return ((FloeSessionCatalog) spark.sessionState().catalogManager().v2SessionCatalog())
        .icebergCatalog();
  }

  private CatalogTable hiveTable(String name) {
    try {
      return spark.sessionState().catalog()
          .getTableMetadata(new TableIdentifier(name, Option.apply("db")));
    } catch (Exception e) {
      throw new IllegalStateException("Cannot read the Hive table db." + name, e);
    }
  }

  private boolean hiveHas(String name) {
    return spark.sessionState().catalog().tableExists(new TableIdentifier(name, Option.apply("db")));
  }

  /** The Parquet data files under a table's folder, Spark's hidden files left out. */
  private static Set<Path> dataFiles(URI location) throws IOException {
    try (Stream<Path> files = Files.walk(Path.of(location))) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> !p.getFileName().toString().startsWith("."))
          .filter(p -> !p.getFileName().toString().startsWith("_"))
          .filter(p -> !p.toString().contains("/metadata/"))
          .collect(Collectors.toSet());
    }
  }
}
