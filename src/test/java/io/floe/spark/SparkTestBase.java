package io.floe.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * One local SparkSession per test class, with a Floe catalog named {@code floe} over a hadoop
 * warehouse in a fresh temporary folder. Subclasses may add catalog options by overriding nothing:
 * they configure extra catalogs with {@link #spark} conf calls before use.
 */
public abstract class SparkTestBase {
  protected static SparkSession spark;
  protected static Path warehouse;

  @BeforeAll
  static void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-warehouse");
    spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("floe-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.default.parallelism", "2")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.catalog.floe", FloeCatalog.class.getName())
            .config("spark.sql.catalog.floe.type", "hadoop")
            .config("spark.sql.catalog.floe.warehouse", warehouse.toUri().toString())
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
    deleteRecursively(warehouse);
  }

  protected static List<Row> sql(String query, Object... args) {
    return spark.sql(String.format(query, args)).collectAsList();
  }

  protected static void deleteRecursively(Path path) throws IOException {
    if (path == null || !Files.exists(path)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
