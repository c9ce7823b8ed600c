package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.FloeSessionCatalog;
import io.floe.spark.catalog.TestCatalog;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * What the import tests ({@code snapshot}, {@code migrate}, {@code add_files}) share: one
 * SparkSession per class whose {@code spark_catalog} is {@link FloeSessionCatalog} over a JDBC
 * catalog, beside a FloeCatalog {@code floe} over a hadoop warehouse; the namespace {@code db} in
 * both, fresh for every test; and the look-ups the tests assert with (built-in tables, data files
 * under a folder, the Iceberg table's files and record counts).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ImportTestBase {
  protected SparkSession spark;
  protected Path warehouse;
  protected Path sparkWarehouse;

  /** The application name, and the prefix of the class's temporary folders. */
  protected abstract String name();

  /** Adds settings of the class's own to the session before it starts. */
  protected void configure(SparkSession.Builder builder) {}

  /**
   * Runs before the session starts, once the folders exist: where a class starts work of its own
   * (a child JVM) that can run while the session starts.
   */
  protected void beforeSessionStarts() throws IOException {}

  @BeforeAll
  void startSpark() throws IOException {
    warehouse = Files.createTempDirectory(name() + "-warehouse");
    sparkWarehouse = Files.createTempDirectory(name() + "-spark-warehouse");
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName(name())
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
    configure(builder);
    beforeSessionStarts();
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
    if (path == null || !Files.exists(path)) {
      return;
    }
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

  protected List<Row> sql(String text, Object... args) {
    return spark.sql(String.format(text, args)).collectAsList();
  }

  /** The Iceberg catalog behind {@code spark_catalog}. */
  protected Catalog sessionIceberg() {
    return ((FloeSessionCatalog) spark.sessionState().catalogManager().v2SessionCatalog())
        .icebergCatalog();
  }

  /** The built-in (non-Iceberg) table {@code db.<name>} of the session catalog. */
  protected CatalogTable builtIn(String name) {
    try {
      return spark.sessionState().catalog().getTableMetadata(
          new org.apache.spark.sql.catalyst.TableIdentifier(name, scala.Option.apply("db")));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  protected boolean builtInHas(String name) {
    return spark.sessionState().catalog().tableExists(
        new org.apache.spark.sql.catalyst.TableIdentifier(name, scala.Option.apply("db")));
  }

  /**
   * The data files named {@code *.<extension>} under a table folder: Spark's hidden files and the
   * Iceberg table's own metadata folder (whose manifests are Avro) left out.
   */
  protected static Set<Path> dataFiles(URI location, String extension) throws IOException {
    Path root = Path.of(location);
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> !root.relativize(p).startsWith("metadata"))
          .filter(p -> p.getFileName().toString().endsWith("." + extension))
          .filter(p -> !p.getFileName().toString().startsWith("."))
          .collect(Collectors.toSet());
    }
  }

  /**
   * A file's partition folder ({@code cat=a}, when it has one) and name, as the file is known
   * under any table root: Spark gives files of different partitions the same name.
   */
  protected static String fileName(String location) {
    String name = location.substring(location.lastIndexOf('/') + 1);
    String folder = location.substring(0, location.lastIndexOf('/'));
    folder = folder.substring(folder.lastIndexOf('/') + 1);
    return folder.startsWith("cat=") ? folder + "/" + name : name;
  }

  /**
   * Each data file of the Iceberg table, by {@link #fileName}, with its record count, asserting
   * that every file has the format {@code format} ({@code ORC}, {@code AVRO}).
   */
  protected Map<String, Long> icebergRecordCounts(String table, String format) {
    Map<String, Long> counts = new HashMap<>();
    for (Row row : sql("SELECT file_path, file_format, record_count FROM %s.files", table)) {
      assertThat(row.getString(1)).isEqualTo(format);
      counts.put(fileName(row.getString(0)), row.getLong(2));
    }
    return counts;
  }

  /**
   * Asserts what a failed import of the partitioned source {@code db.<name>} (data files {@code
   * *.<extension>}) leaves: a file that is not {@code formatName} ({@code ORC}, {@code Avro}) in
   * its partition {@code cat=a} fails {@code migrate} and {@code snapshot} naming it; afterwards
   * there is no Iceberg table and no backup, the source has its type, location, provider and
   * files, and no metadata folder; once the file is gone a migration takes every file and the
   * table reads the rows {@code assertRows} expects of it.
   */
  protected void assertAFailedMigrationRestoresTheSource(
      String name, String extension, String formatName, Consumer<String> assertRows)
      throws IOException {
    CatalogTable before = builtIn(name);
    Set<Path> files = dataFiles(before.location(), extension);
    Path junk = Path.of(before.location()).resolve("cat=a").resolve("junk." + extension);
    Files.writeString(junk, "not an " + formatName + " file");
    String reason = "junk." + extension + ": it is not a readable " + formatName + " file";

    assertThatThrownBy(() -> sql("CALL spark_catalog.system.migrate('db.%s')", name))
        .hasStackTraceContaining("Cannot add file")
        .hasStackTraceContaining(reason);
    assertThatThrownBy(
            () -> sql("CALL spark_catalog.system.snapshot('db.%s', 'db.%s_snap')", name, name))
        .hasStackTraceContaining(reason);

    Files.delete(junk);
    assertThat(sessionIceberg().tableExists(TableIdentifier.of("db", name))).isFalse();
    assertThat(sessionIceberg().tableExists(TableIdentifier.of("db", name + "_snap"))).isFalse();
    assertThat(builtInHas(name + "_BACKUP_")).isFalse();
    CatalogTable after = builtIn(name);
    assertThat(after.tableType()).isEqualTo(before.tableType());
    assertThat(after.location()).isEqualTo(before.location());
    assertThat(after.provider().get()).isEqualTo(before.provider().get());
    assertThat(Files.exists(Path.of(before.location()).resolve("metadata"))).isFalse();
    assertThat(dataFiles(before.location(), extension)).isEqualTo(files);
    // the source still holds every row: a migration now takes all of them
    assertThat(sql("CALL spark_catalog.system.migrate('db.%s')", name))
        .containsExactly(RowFactory.create((long) files.size()));
    assertRows.accept("db." + name);
  }
}
