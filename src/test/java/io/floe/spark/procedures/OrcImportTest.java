package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.FloeSessionCatalog;
import io.floe.spark.catalog.TestCatalog;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.ReadTestSupport;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code snapshot}, {@code migrate} and {@code add_files} of ORC tables of the session catalog
 * ({@code USING orc}, partitioned and not) over files Spark's own ORC data source wrote: the
 * Iceberg table reads the rows Spark's ORC reader reads, holds each of the source's files with the
 * record count Spark counts in it, and prunes files by the ORC metrics Iceberg's {@code OrcMetrics}
 * read; a file that is not ORC fails the migration and leaves the source as it was.
 *
 * <p>Spark's ORC cannot run in this JVM (see {@link SparkOrcSources}), so the files and the oracle
 * (rows, per-file counts and id ranges) come from a child JVM with Spark's ORC; here the source is
 * only declared over them, which reads no file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OrcImportTest {
  private static final String COLUMNS = SparkOrcSources.COLUMNS;

  private SparkSession spark;
  private Path warehouse;
  private Path sparkWarehouse;
  private Path written;

  @BeforeAll
  void startSpark() throws IOException, InterruptedException {
    warehouse = Files.createTempDirectory("floe-orc-import-warehouse");
    sparkWarehouse = Files.createTempDirectory("floe-orc-import-spark-warehouse");
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName("floe-orc-import-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.warehouse.dir", sparkWarehouse.toUri().toString())
            .config("spark.sql.catalog.spark_catalog", FloeSessionCatalog.class.getName())
            .config("spark.sql.catalog.floe", FloeCatalog.class.getName())
            .config("spark.sql.catalog.floe.type", "hadoop")
            .config("spark.sql.catalog.floe.warehouse", warehouse.resolve("floe").toUri().toString());
    Files.createDirectories(warehouse.resolve("session"));
    TestCatalog.JDBC.options(warehouse.resolve("session"))
        .forEach((key, value) -> builder.config("spark.sql.catalog.spark_catalog." + key, value));
    written = warehouse.resolve("spark-orc");
    SparkOrcSources.write(written);
    spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
  }

  @AfterAll
  void stopSpark() throws IOException {
    if (spark != null) {
      spark.stop();
      spark = null;
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
    deleteRecursively(warehouse);
    deleteRecursively(sparkWarehouse);
  }

  private static void deleteRecursively(Path path) throws IOException {
    try (Stream<Path> files = Files.walk(path)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @BeforeEach
  void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS db");
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
  }

  @AfterEach
  void dropNamespace() {
    spark.catalog().dropTempView("expected");
    spark.catalog().dropTempView("source_files");
    sql("USE default");
    sql("DROP NAMESPACE IF EXISTS db CASCADE");
    sql("DROP NAMESPACE IF EXISTS floe.db CASCADE");
  }

  private List<Row> sql(String text, Object... args) {
    return spark.sql(String.format(text, args)).collectAsList();
  }

  private Catalog sessionIceberg() {
    return ((FloeSessionCatalog) spark.sessionState().catalogManager().v2SessionCatalog())
        .icebergCatalog();
  }

  private CatalogTable builtIn(String name) {
    try {
      return spark.sessionState().catalog().getTableMetadata(
          new org.apache.spark.sql.catalyst.TableIdentifier(name, scala.Option.apply("db")));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private boolean builtInHas(String name) {
    return spark.sessionState().catalog().tableExists(
        new org.apache.spark.sql.catalyst.TableIdentifier(name, scala.Option.apply("db")));
  }

  /**
   * Declares {@code db.<name>} USING orc (partitioned by cat or not) over a fresh copy of the files
   * Spark wrote, and keeps the rows Spark's ORC reader read from them in the view {@code expected}
   * and each file's name, record count and id range in the view {@code source_files}.
   */
  private void createOrcSource(String name, boolean partitioned) throws IOException {
    String source = partitioned ? "partitioned" : "flat";
    Path location = sparkWarehouse.resolve("sources").resolve(name + "-" + System.nanoTime());
    copyRecursively(written.resolve(source), location);
    sql(
        "CREATE TABLE db.%s (%s) USING orc %s LOCATION '%s'",
        name, SparkOrcSources.SCHEMA, partitioned ? "PARTITIONED BY (cat)" : "", location.toUri());
    if (partitioned) {
      sql("ALTER TABLE db.%s RECOVER PARTITIONS", name);
    }
    spark.read().parquet(written.resolve(source + "-rows").toUri().toString())
        .createOrReplaceTempView("expected");
    spark.read().parquet(written.resolve(source + "-files").toUri().toString())
        .createOrReplaceTempView("source_files");
  }

  private static void copyRecursively(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : files.toList()) {
        Path target = to.resolve(from.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else {
          Files.copy(file, target);
        }
      }
    }
  }

  private void assertRowsEqualExpected(String table) {
    assertThat(sql("SELECT %s FROM %s EXCEPT ALL SELECT * FROM expected", COLUMNS, table)).isEmpty();
    assertThat(sql("SELECT * FROM expected EXCEPT ALL SELECT %s FROM %s", COLUMNS, table)).isEmpty();
    assertThat(sql("SELECT count(*) FROM %s", table).get(0).getLong(0)).isEqualTo(120L);
  }

  /** The ORC data files under a table folder (Spark's hidden files left out). */
  private static Set<Path> orcFiles(URI location) throws IOException {
    try (Stream<Path> files = Files.walk(Path.of(location))) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> p.getFileName().toString().endsWith(".orc"))
          .filter(p -> !p.getFileName().toString().startsWith("."))
          .collect(Collectors.toSet());
    }
  }

  /** Each source file's name and record count as Spark counted the rows it read from it. */
  private Map<String, Long> sourceRecordCounts() {
    Map<String, Long> counts = new HashMap<>();
    for (Row row : sql("SELECT file, records FROM source_files")) {
      counts.put(fileName(row.getString(0)), row.getLong(1));
    }
    return counts;
  }

  /** Each data file's name, format and record count as the Iceberg table's files table lists them. */
  private Map<String, Long> icebergRecordCounts(String table) {
    Map<String, Long> counts = new HashMap<>();
    for (Row row : sql("SELECT file_path, file_format, record_count FROM %s.files", table)) {
      assertThat(row.getString(1)).isEqualTo("ORC");
      counts.put(fileName(row.getString(0)), row.getLong(2));
    }
    return counts;
  }

  /**
   * A file's partition folder ({@code cat=a}, when it has one) and name, as the file is known
   * under any table root: Spark gives files of different partitions the same name.
   */
  private static String fileName(String location) {
    String name = location.substring(location.lastIndexOf('/') + 1);
    String folder = location.substring(0, location.lastIndexOf('/'));
    folder = folder.substring(folder.lastIndexOf('/') + 1);
    return folder.startsWith("cat=") ? folder + "/" + name : name;
  }

  /** The names of the data files a query's Floe scan plans to read. */
  private Set<String> plannedFiles(String query) {
    Set<String> files = new HashSet<>();
    for (FloeInputPartition partition : ReadTestSupport.floeScan(spark.sql(query)).partitions()) {
      for (ScanTask task : partition.tasks()) {
        files.add(fileName(((FileScanTask) task).file().location()));
      }
    }
    return files;
  }

  /**
   * Asserts that filters on the Iceberg table return Spark's rows of the source under the same
   * filter and read only the files that can hold them: for a data column, the source files whose
   * id range (as Spark computes it) covers the value; for the partition column, the files of that
   * partition.
   */
  private void assertFiltersPrune(String table) {
    for (String filter : List.of("id = 45", "id > 100", "cat = 'a'", "cat IS NULL AND id < 30")) {
      assertThat(sql("SELECT %s FROM %s WHERE %s", COLUMNS, table, filter))
          .containsExactlyInAnyOrderElementsOf(
              sql("SELECT * FROM expected WHERE %s", filter));
    }
    Set<String> holding45 = new HashSet<>();
    Set<String> above100 = new HashSet<>();
    for (Row row : sql("SELECT file, records, min_id, max_id FROM source_files")) {
      if (row.getLong(2) <= 45 && row.getLong(3) >= 45) {
        holding45.add(fileName(row.getString(0)));
      }
      if (row.getLong(3) > 100) {
        above100.add(fileName(row.getString(0)));
      }
    }
    Set<String> all = plannedFiles("SELECT * FROM " + table);
    assertThat(plannedFiles("SELECT * FROM " + table + " WHERE id = 45"))
        .isEqualTo(holding45)
        .hasSizeLessThan(all.size());
    assertThat(plannedFiles("SELECT * FROM " + table + " WHERE id > 100"))
        .isEqualTo(above100)
        .hasSizeLessThan(all.size());
  }

  @Test
  void aSnapshotOfAPartitionedOrcTableReadsItsRowsFromItsFiles() throws IOException {
    createOrcSource("src", true);
    URI sourceLocation = builtIn("src").location();
    Set<Path> sourceFiles = orcFiles(sourceLocation);
    Map<String, Long> sourceCounts = sourceRecordCounts();

    assertThat(sql("CALL spark_catalog.system.snapshot('db.src', 'db.snap')"))
        .containsExactly(RowFactory.create((long) sourceFiles.size()));

    assertRowsEqualExpected("db.snap");
    assertThat(icebergRecordCounts("db.snap")).isEqualTo(sourceCounts).hasSize(sourceFiles.size());
    Table snap = sessionIceberg().loadTable(TableIdentifier.of("db", "snap"));
    assertThat(snap.spec().fields()).singleElement()
        .satisfies(field -> assertThat(field.name()).isEqualTo("cat"));
    assertFiltersPrune("db.snap");
    Set<String> catA =
        sourceFiles.stream()
            .filter(p -> p.getParent().getFileName().toString().equals("cat=a"))
            .map(p -> fileName(p.toString()))
            .collect(Collectors.toSet());
    assertThat(plannedFiles("SELECT * FROM db.snap WHERE cat = 'a'")).isEqualTo(catA).isNotEmpty();

    // the snapshot's own writes go to its folder; the source keeps its files and rows
    sql("INSERT INTO db.snap SELECT * FROM expected WHERE id < 3");
    assertThat(sql("SELECT count(*) FROM db.snap").get(0).getLong(0)).isEqualTo(123L);
    assertThat(orcFiles(sourceLocation)).isEqualTo(sourceFiles);
    assertThat(builtIn("src").provider().get()).isEqualTo("orc");
  }

  @Test
  void migrateOfAnUnpartitionedOrcTableKeepsItsRowsAndFiles() throws IOException {
    createOrcSource("m", false);
    URI location = builtIn("m").location();
    Set<Path> files = orcFiles(location);
    Map<String, Long> sourceCounts = sourceRecordCounts();

    assertThat(sql("CALL spark_catalog.system.migrate('db.m')"))
        .containsExactly(RowFactory.create((long) files.size()));

    Table migrated = sessionIceberg().loadTable(TableIdentifier.of("db", "m"));
    assertThat(migrated.spec().isUnpartitioned()).isTrue();
    assertThat(migrated.properties()).containsEntry("migrated", "true");
    assertRowsEqualExpected("db.m");
    assertThat(icebergRecordCounts("db.m")).isEqualTo(sourceCounts).hasSize(files.size());
    assertThat(builtIn("m_BACKUP_").tableType()).isEqualTo(CatalogTableType.EXTERNAL());
    assertFiltersPrune("db.m");
    assertThat(orcFiles(location)).isEqualTo(files);
  }

  @Test
  void aFailedOrcMigrationRestoresTheSourceAndLeavesNoIcebergTable() throws IOException {
    createOrcSource("f", true);
    CatalogTable before = builtIn("f");
    Set<Path> files = orcFiles(before.location());
    Path junk = Path.of(before.location()).resolve("cat=a").resolve("junk.orc");
    Files.writeString(junk, "not an orc file");

    assertThatThrownBy(() -> sql("CALL spark_catalog.system.migrate('db.f')"))
        .hasStackTraceContaining("Cannot add file")
        .hasStackTraceContaining("junk.orc: it is not a readable ORC file");

    Files.delete(junk);
    assertThat(sessionIceberg().tableExists(TableIdentifier.of("db", "f"))).isFalse();
    assertThat(builtInHas("f_BACKUP_")).isFalse();
    CatalogTable after = builtIn("f");
    assertThat(after.tableType()).isEqualTo(before.tableType());
    assertThat(after.location()).isEqualTo(before.location());
    assertThat(after.provider().get()).isEqualTo("orc");
    assertThat(Files.exists(Path.of(before.location()).resolve("metadata"))).isFalse();
    assertThat(orcFiles(before.location())).isEqualTo(files);
    // the source still holds every row: a migration now takes all of them
    assertThat(sql("CALL spark_catalog.system.migrate('db.f')"))
        .containsExactly(RowFactory.create((long) files.size()));
    assertRowsEqualExpected("db.f");
  }

  @Test
  void anOrcSourceWithATimestampIsRefusedBeforeAnythingIsCreated() {
    sql("CREATE TABLE db.tz (id BIGINT, ts TIMESTAMP) USING orc");
    sql("CREATE TABLE db.ntz (id BIGINT, s STRUCT<ts: TIMESTAMP_NTZ>) USING orc");
    sql("CREATE TABLE floe.db.tz_target (id BIGINT, ts TIMESTAMP) USING iceberg");

    assertThatThrownBy(() -> sql("CALL spark_catalog.system.snapshot('db.tz', 'db.tz_snap')"))
        .hasMessage(
            "Cannot call spark_catalog.system.snapshot: argument 'source_table' 'db.tz' "
                + ImportSource.orcTimestampReason("ts"));
    assertThatThrownBy(() -> sql("CALL spark_catalog.system.migrate('db.ntz')"))
        .hasMessage(
            "Cannot call spark_catalog.system.migrate: argument 'table' 'db.ntz' "
                + ImportSource.orcTimestampReason("s"));
    assertThatThrownBy(
            () -> sql("CALL floe.system.add_files('db.tz_target', 'spark_catalog.db.tz')"))
        .hasMessage(
            "Cannot call floe.system.add_files: argument 'source_table' "
                + ImportSource.orcTimestampReason("ts"));
    assertThat(ImportSource.orcTimestampReason("ts"))
        .contains("timestamp column ts", "import such a table from Parquet files");

    assertThat(sessionIceberg().tableExists(TableIdentifier.of("db", "tz_snap"))).isFalse();
    assertThat(sessionIceberg().tableExists(TableIdentifier.of("db", "ntz"))).isFalse();
    assertThat(builtIn("ntz").provider().get()).isEqualTo("orc");
    assertThat(builtInHas("ntz_BACKUP_")).isFalse();
    assertThat(sql("SELECT count(*) FROM floe.db.tz_target.snapshots").get(0).getLong(0))
        .isEqualTo(0L);
  }

  @Test
  void addFilesTakesAnOrcDirectoryAndAnOrcTable() throws IOException {
    createOrcSource("src", true);
    URI location = builtIn("src").location();
    sql(
        "CREATE TABLE floe.db.target (%s) USING iceberg PARTITIONED BY (cat)",
        SparkOrcSources.SCHEMA);

    List<Row> added =
        sql("CALL floe.system.add_files('db.target', '`orc`.`%s`', map('cat', 'a'))", location);

    long catAFiles =
        orcFiles(location).stream()
            .filter(p -> p.getParent().getFileName().toString().equals("cat=a"))
            .count();
    assertThat(added).containsExactly(RowFactory.create(catAFiles, 1L));
    assertThat(sql("SELECT %s FROM floe.db.target", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected WHERE cat = 'a'"));

    sql("CALL floe.system.add_files('db.target', 'spark_catalog.db.src', map('cat', 'b'))");
    assertThat(sql("SELECT %s FROM floe.db.target", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected WHERE cat IN ('a', 'b')"));
  }
}
