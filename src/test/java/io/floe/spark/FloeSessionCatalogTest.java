package io.floe.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FloeSessionCatalog} as {@code spark_catalog}, over a hadoop warehouse: Iceberg and parquet
 * tables side by side under unqualified names in one namespace.
 */
class FloeSessionCatalogTest {
  private static SparkSession spark;
  private static Path warehouse;
  private static Path sparkWarehouse;

  @BeforeAll
  static void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-session-warehouse");
    sparkWarehouse = Files.createTempDirectory("floe-session-spark-warehouse");
    spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("floe-session-catalog-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.warehouse.dir", sparkWarehouse.toUri().toString())
            .config("spark.sql.catalog.spark_catalog", FloeSessionCatalog.class.getName())
            .config("spark.sql.catalog.spark_catalog.type", "hadoop")
            .config("spark.sql.catalog.spark_catalog.warehouse", warehouse.toUri().toString())
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
  }

  @AfterAll
  static void stopSpark() throws IOException {
    if (spark != null) {
      spark.stop();
      spark = null;
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
    SparkTestBase.deleteRecursively(warehouse);
    SparkTestBase.deleteRecursively(sparkWarehouse);
  }

  @BeforeEach
  void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS db");
    sql("USE db");
  }

  @AfterEach
  void dropNamespace() {
    sql("USE default");
    sql("DROP NAMESPACE IF EXISTS db CASCADE");
  }

  @Test
  void explore() {
    sql("CREATE TABLE ice (id BIGINT, data STRING) USING iceberg");
    sql("CREATE TABLE par (id BIGINT, kind STRING) USING parquet");
    sql("INSERT INTO ice VALUES (1, 'a'), (2, 'b')");
    sql("INSERT INTO par VALUES (1, 'x'), (3, 'y')");
    print("SELECT * FROM ice");
    print("SELECT * FROM par");
    print("SELECT i.id, data, kind FROM ice i JOIN par p ON i.id = p.id");
    print("SHOW TABLES");
    print("DESCRIBE EXTENDED ice");
    print("DESCRIBE EXTENDED par");
    print("SELECT snapshot_id, operation FROM db.ice.snapshots");
    print("SELECT system.bucket(4, id) FROM ice");
  }

  private static void print(String query) {
    try {
      System.out.println("=== " + query);
      spark.sql(query).show(100, false);
    } catch (RuntimeException e) {
      System.out.println("FAILED: " + e);
    }
  }

  private static List<Row> sql(String query, Object... args) {
    return spark.sql(String.format(query, args)).collectAsList();
  }
}
