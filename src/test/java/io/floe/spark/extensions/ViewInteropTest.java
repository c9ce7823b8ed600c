package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.catalog.TestCatalog;
import io.floe.spark.read.OfficialRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    assertThat(OfficialRuntime.RUNTIME_JAR).as("the official runtime jar the build copies").exists();
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
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put(
        "spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
    conf.put("spark.sql.catalog.floe", "org.apache.iceberg.spark.SparkCatalog");
    catalogOptions.forEach((key, value) -> conf.put("spark.sql.catalog.floe." + key, value));
    return OfficialRuntime.printedRows(conf, statements);
  }
}
