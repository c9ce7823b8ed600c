package io.floe.spark.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How many files a write makes when its writer tasks run in separate executor JVMs (the cluster of
 * {@link Cluster}): 200,000 rows from 8 input partitions, every input partition holding rows of
 * every table partition. Hash distribution, the default for partitioned tables, gives each table
 * partition to one writer task, so the table gets one file per table partition and writer task,
 * as in local mode ({@code write.distribution.FileCountTest}).
 */
@Tag("distributed")
class FileCountOnClusterTest {
  private static final long ROWS = 200_000;
  private static final int INPUT_PARTITIONS = 8;

  private static Path root;
  private static SparkSession spark;

  @BeforeAll
  static void startClusterAndCreateSource() throws IOException {
    root = Files.createTempDirectory("floe-file-count");
    spark = Cluster.start(Cluster.master(), root, root.resolve("calls.log"));
    Cluster.awaitExecutors(spark, 2, Duration.ofMinutes(3));
    spark.sql("CREATE NAMESPACE floe.db");
    spark
        .range(0, ROWS, 1, INPUT_PARTITIONS)
        .selectExpr(
            "id",
            // 5 days, cycling row by row
            "TIMESTAMP '2024-03-01 06:00:00' + make_interval(0, 0, 0, CAST(id % 5 AS INT)) AS ts")
        .createOrReplaceTempView("src");
  }

  @AfterAll
  static void stopCluster() {
    Cluster.stop(spark);
    spark = null;
    Cluster.deleteRecursively(root);
  }

  @Test
  void daysPartitionsGetOneFileEachOnSeparateExecutorJvms() {
    Map<String, Integer> files = insertInto("days_t", "days(ts)");

    assertThat(partitions(files)).containsExactly(
        "ts_day=2024-03-01", "ts_day=2024-03-02", "ts_day=2024-03-03", "ts_day=2024-03-04",
        "ts_day=2024-03-05");
    assertThat(files.values()).as("files per table partition per writer task: %s", files).containsOnly(1);
    assertThat(files).hasSizeLessThanOrEqualTo(5);
  }

  @Test
  void bucketPartitionsGetOneFileEachOnSeparateExecutorJvms() {
    Map<String, Integer> files = insertInto("bucket_t", "bucket(16, id)");

    assertThat(partitions(files)).hasSize(16);
    assertThat(files.values()).as("files per table partition per writer task: %s", files).containsOnly(1);
    assertThat(files).hasSize(16);
  }

  @Test
  void twoFieldPartitionsGetOneFileEachOnSeparateExecutorJvms() {
    Map<String, Integer> files = insertInto("two_field_t", "bucket(4, id), days(ts)");

    assertThat(partitions(files)).hasSize(20);
    assertThat(files.values()).as("files per table partition per writer task: %s", files).containsOnly(1);
    assertThat(files).hasSize(20);
  }

  /**
   * Inserts the source into a new table and returns how many data files each (table partition,
   * writer task) pair got. Iceberg names a data file {@code <spark partition id>-<task id>-...}.
   */
  private static Map<String, Integer> insertInto(String table, String partitioning) {
    spark.sql("CREATE TABLE floe.db." + table + " (id BIGINT, ts TIMESTAMP) USING iceberg PARTITIONED BY ("
        + partitioning + ")");
    spark.sql("INSERT INTO floe.db." + table + " SELECT id, ts FROM src");
    Row counts = spark.sql("SELECT count(*), count(DISTINCT id) FROM floe.db." + table).first();
    assertThat(counts.getLong(0)).isEqualTo(ROWS);
    assertThat(counts.getLong(1)).isEqualTo(ROWS);

    Map<String, Integer> files = new TreeMap<>();
    List<Row> paths = spark.sql("SELECT file_path FROM floe.db." + table + ".files").collectAsList();
    for (Row row : paths) {
      Path file = Paths.get(URI.create(row.getString(0)));
      Path data = Paths.get(URI.create(row.getString(0).replaceFirst("/data/.*", "/data")));
      String partition = data.relativize(file.getParent()).toString();
      String[] name = file.getFileName().toString().split("-");
      files.merge(partition + " @ task " + name[0] + "-" + name[1], 1, Integer::sum);
    }
    return files;
  }

  private static Set<String> partitions(Map<String, Integer> files) {
    Set<String> partitions = new TreeSet<>();
    files.keySet().forEach(key -> partitions.add(key.substring(0, key.indexOf(" @ task "))));
    return partitions;
  }
}
