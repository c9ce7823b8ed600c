package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.catalog.TestCatalog;
import io.floe.spark.packaging.SqlApp;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Views shared with the official runtime ({@code iceberg-spark-runtime-4.1_2.13} and its session
 * extensions), run in its own JVM over the same JDBC catalog (a SQLite file; both sides name the
 * catalog {@code floe}, since a JDBC catalog scopes its entries by catalog name): a view Floe
 * creates reads on the official runtime, and a view the official runtime creates reads on Floe,
 * with its column names and comments.
 */
class ViewInteropTest {
  /** Copied into the build folder by the build (maven-dependency-plugin, execution official-runtime). */
  private static final Path RUNTIME_JAR =
      Paths.get(
          Objects.requireNonNull(
              System.getProperty("floe.officialRuntimeJar"),
              "system property floe.officialRuntimeJar (set by the build) is missing"));

  private static SparkSession spark;
  private static Path warehouse;
  private static Map<String, String> catalogOptions;

  @BeforeAll
  static void startSpark() throws Exception {
    warehouse = Files.createTempDirectory("floe-view-interop");
    catalogOptions = TestCatalog.JDBC.options(warehouse);
    Map<String, String> conf = new HashMap<>();
    conf.put("spark.sql.catalog.floe", FloeCatalog.class.getName());
    catalogOptions.forEach((key, value) -> conf.put("spark.sql.catalog.floe." + key, value));
    spark = ExtensionSessions.start("floe-view-interop", conf);
    spark.sql("CREATE NAMESPACE floe.db");
    spark.sql("CREATE TABLE floe.db.t (id BIGINT, data STRING) USING iceberg");
    spark.sql("INSERT INTO floe.db.t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, NULL)");
    spark.sql("SELECT * FROM VALUES (1L, 'a'), (2L, 'b'), (3L, 'c'), (4L, CAST(NULL AS STRING)) AS x(id, data)")
        .createOrReplaceTempView("src");
  }

  @AfterAll
  static void stopSpark() throws Exception {
    ExtensionSessions.stop(spark, warehouse);
  }

  @Test
  void eachRuntimeReadsTheOthersViews() throws Exception {
    assertThat(RUNTIME_JAR).as("the official runtime jar the build copies").exists();
    spark.sql("USE floe.db");
    spark.sql("CREATE VIEW fv (a COMMENT 'the id', b) COMMENT 'by floe' AS SELECT id, data FROM t WHERE id > 1");
    spark.sql("USE spark_catalog.default");

    List<String> officialRows =
        official(
            "SELECT * FROM floe.db.fv",
            "USE floe.db",
            "CREATE VIEW ov (x COMMENT 'the key', y) COMMENT 'by the official runtime'"
                + " AS SELECT id, upper(data) FROM t WHERE id < 4");
    assertThat(officialRows)
        .as("the official runtime reads Floe's view")
        .containsExactlyInAnyOrderElementsOf(
            printed(spark.sql("SELECT id, data FROM src WHERE id > 1").collectAsList()));

    assertThat(spark.sql("SELECT * FROM floe.db.ov").schema().fieldNames()).containsExactly("x", "y");
    assertThat(spark.sql("SELECT * FROM floe.db.ov").collectAsList())
        .as("Floe reads the official runtime's view")
        .containsExactlyInAnyOrderElementsOf(
            spark.sql("SELECT id AS x, upper(data) AS y FROM src WHERE id < 4").collectAsList());
    assertThat(spark.sql("DESCRIBE floe.db.ov").collectAsList())
        .startsWith(RowFactory.create("x", "bigint", "the key"));
    assertThat(spark.sql("DESCRIBE EXTENDED floe.db.ov").collectAsList())
        .contains(RowFactory.create("Comment", "by the official runtime", ""));
  }

  private static List<String> printed(List<Row> rows) {
    return rows.stream().map(row -> row.mkString("|")).toList();
  }

  /**
   * Runs statements in a JVM of Spark and the official runtime with its extensions only (no Floe,
   * no other Iceberg jar), with catalog {@code floe} over this test's JDBC catalog; returns every
   * printed row, as {@code v1|v2|...}.
   */
  private static List<String> official(String... statements) throws Exception {
    List<String> classpath = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      boolean iceberg = entry.contains(File.separator + "iceberg" + File.separator)
          || entry.contains("org" + File.separator + "apache" + File.separator + "iceberg");
      boolean floeMain = entry.endsWith("classes") && !entry.endsWith("test-classes");
      if (!iceberg && !floeMain) {
        classpath.add(entry);
      }
    }
    classpath.add(RUNTIME_JAR.toString());
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-") || argument.startsWith("-XX:+IgnoreUnrecognized")
          || argument.startsWith("-Djdk.reflect") || argument.startsWith("-Dio.netty")) {
        command.add(argument);
      }
    }
    command.add("-Xmx1g");
    command.add("-Dspark.master=local[1]");
    command.add("-Dspark.ui.enabled=false");
    command.add("-Dspark.driver.host=127.0.0.1");
    command.add("-Dspark.sql.shuffle.partitions=2");
    command.add(
        "-Dspark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
    command.add("-Dspark.sql.catalog.floe=org.apache.iceberg.spark.SparkCatalog");
    catalogOptions.forEach((key, value) -> command.add("-Dspark.sql.catalog.floe." + key + "=" + value));
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classpath));
    command.add(SqlApp.class.getName());
    command.addAll(List.of(statements));
    Path log = Files.createTempFile("official-runtime-views", ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean finished = process.waitFor(300, TimeUnit.SECONDS);
    if (!finished) {
      process.destroyForcibly();
    }
    List<String> output = Files.readAllLines(log, StandardCharsets.UTF_8);
    Files.delete(log);
    assertThat(finished && process.exitValue() == 0)
        .as(
            "the official runtime's JVM succeeded:\n%s",
            String.join("\n", output.subList(Math.max(0, output.size() - 40), output.size())))
        .isTrue();
    return output.stream()
        .filter(line -> line.startsWith("row> "))
        .map(line -> line.substring("row> ".length()))
        .toList();
  }
}
