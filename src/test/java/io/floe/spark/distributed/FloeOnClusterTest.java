package io.floe.spark.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.distributed.RecordingCatalog.Call;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Floe on a real cluster whose executors are separate JVMs ({@code local-cluster[2,1,1024]} by
 * default, see {@link Cluster}), with strict Kryo: the scenario gives the results it gives in local
 * mode, only the driver process calls the catalog, and a write or scan that loses an executor JVM
 * mid-flight ends with every row exactly once.
 */
@Tag("distributed")
class FloeOnClusterTest {
  /** Rows of the large write and scan. */
  private static final long ROWS = Long.getLong("floe.cluster.rows", 240_000L);
  private static final int TASKS = 6;
  /**
   * The throttled tasks pause 1 ms every this many rows, so that each runs for at least two seconds
   * however fast the machine is, and an executor can be killed while it works.
   */
  private static final long ROWS_PER_PAUSE = Math.max(1, ROWS / TASKS / 2000);
  private static final Duration TASK_AGE_BEFORE_KILL = Duration.ofMillis(500);

  private static Path root;
  private static Map<String, List<List<Object>>> localResults;
  private static SparkSession spark;
  private static Path calls;

  @BeforeAll
  static void runScenarioLocallyThenStartCluster() throws IOException {
    root = Files.createTempDirectory("floe-distributed");
    SparkSession local = Cluster.start("local[2]", root.resolve("local"), root.resolve("local-calls.log"));
    try {
      localResults = Scenario.run(local);
    } finally {
      Cluster.stop(local);
    }
    calls = root.resolve("cluster-calls.log");
    spark = Cluster.start(Cluster.master(), root.resolve("cluster"), calls);
    Cluster.registerThrottle(spark, ROWS_PER_PAUSE);
  }

  @AfterAll
  static void stopCluster() {
    Cluster.stop(spark);
    spark = null;
    Cluster.deleteRecursively(root);
  }

  @BeforeEach
  void twoExecutorsAreUp() {
    // a killed executor is replaced by its worker; each test starts with two
    Cluster.awaitExecutors(spark, 2, Duration.ofMinutes(3));
  }

  @Test
  void scenarioOnSeparateExecutorJvmsGivesLocalModeResultsWithoutExecutorCatalogCalls() {
    long driver = ProcessHandle.current().pid();
    Collection<Long> executors = Cluster.executorPids(spark.sparkContext().applicationId()).values();
    assertThat(executors).hasSizeGreaterThanOrEqualTo(2).doesNotContain(driver);
    assertThat(taskPids()).isNotEmpty().doesNotContain(driver).isSubsetOf(executors);

    Map<String, List<List<Object>>> results = Scenario.run(spark);

    assertThat(results.get("grouped by partition")).hasSize(3);
    assertThat(results.get("partition filter")).hasSize(21);
    assertThat(results.get("snapshots")).extracting(row -> row.get(0))
        .containsExactly("append", "append", "overwrite");
    assertThat(results).isEqualTo(localResults);

    List<Call> recorded = RecordingCatalog.calls(calls);
    assertThat(recorded).extracting(Call::call)
        .contains("initialize", "loadTable db.events", "commit floe.db.events",
            "createTransaction db.daily", "loadTable db.events.snapshots");
    assertThat(recorded).allSatisfy(call -> assertThat(call.pid()).isEqualTo(driver));
    assertThat(recorded).noneSatisfy(call -> assertThat(call.thread()).startsWith("Executor task launch worker"));
  }

  @Test
  void insertThatLosesAnExecutorCommitsEveryRowExactlyOnceInOneSnapshot() throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.loss");
    // no shuffle before the write (fanout writers, no distribution), so the writer tasks are the
    // ones that run long and lose their executor
    spark.sql("CREATE TABLE floe.loss.written (id BIGINT, payload STRING, part INT) USING iceberg"
        + " PARTITIONED BY (part) TBLPROPERTIES ('write.distribution-mode' = 'none',"
        + " 'write.spark.fanout.enabled' = 'true')");

    TaskWatcher watcher = new TaskWatcher();
    spark.sparkContext().addSparkListener(watcher);
    try {
      CompletableFuture<Void> insert =
          CompletableFuture.runAsync(
              () -> spark.sql("INSERT INTO floe.loss.written " + generated("throttle(id)")).collectAsList());
      Cluster.killOneExecutorWhileTasksRun(spark, watcher, insert, TASK_AGE_BEFORE_KILL);
      insert.get(5, TimeUnit.MINUTES);
    } finally {
      spark.sparkContext().removeSparkListener(watcher);
    }

    assertThat(watcher.lostWithExecutor()).as("tasks lost with the killed executor").isPositive();
    assertEveryRowExactlyOnce(spark.table("floe.loss.written"));
    assertThat(Cluster.rows(spark, "SELECT operation, summary['added-records'], summary['total-records']"
        + " FROM floe.loss.written.snapshots"))
        .containsExactly(List.of("append", String.valueOf(ROWS), String.valueOf(ROWS)));
    assertThat(Cluster.rows(spark, "SELECT count(*), count(DISTINCT file_path), sum(record_count)"
        + " FROM floe.loss.written.files"))
        .singleElement()
        .satisfies(row -> {
          assertThat(row.get(0)).isEqualTo(row.get(1));
          assertThat(row.get(2)).isEqualTo(ROWS);
        });
  }

  @Test
  void scanThatLosesAnExecutorReturnsEveryRowExactlyOnce() throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.loss");
    spark.sql("CREATE TABLE floe.loss.scanned USING iceberg AS " + generated("id"));
    List<List<Object>> snapshotsBefore = Cluster.rows(spark, "SELECT snapshot_id FROM floe.loss.scanned.snapshots");
    Dataset<Row> table =
        spark.read().option("split-size", String.valueOf(1L << 20)).table("floe.loss.scanned");
    List<List<Object>> expected = Cluster.rows(spark, "SELECT count(*), sum(crc32(payload)) FROM ("
        + generated("id") + ")");

    TaskWatcher watcher = new TaskWatcher();
    spark.sparkContext().addSparkListener(watcher);
    List<Row> scanned;
    try {
      CompletableFuture<List<Row>> scan =
          CompletableFuture.supplyAsync(
              () -> table.selectExpr("count(*)", "sum(crc32(payload) + throttle(id) - id)").collectAsList());
      Cluster.killOneExecutorWhileTasksRun(spark, watcher, scan, TASK_AGE_BEFORE_KILL);
      scanned = scan.get(5, TimeUnit.MINUTES);
    } finally {
      spark.sparkContext().removeSparkListener(watcher);
    }

    assertThat(watcher.lostWithExecutor()).as("tasks lost with the killed executor").isPositive();
    assertThat(List.of(scanned.get(0).get(0), scanned.get(0).get(1))).isEqualTo(expected.get(0));
    assertEveryRowExactlyOnce(table);
    assertThat(Cluster.rows(spark, "SELECT snapshot_id FROM floe.loss.scanned.snapshots")).isEqualTo(snapshotsBefore);
  }

  /** The generated rows of the large write: ids 0 until ROWS, in TASKS slices. */
  private static String generated(String id) {
    return String.format(
        "SELECT %s AS id, concat('payload-', CAST(id AS STRING)) AS payload, CAST(id %% 4 AS INT) AS part"
            + " FROM range(0, %d, 1, %d)",
        id, ROWS, TASKS);
  }

  private static void assertEveryRowExactlyOnce(Dataset<Row> table) {
    Row summary = table.selectExpr("count(*)", "count(DISTINCT id)", "min(id)", "max(id)", "sum(id)").first();
    assertThat(summary.getLong(0)).as("rows").isEqualTo(ROWS);
    assertThat(summary.getLong(1)).as("distinct ids").isEqualTo(ROWS);
    assertThat(summary.getLong(2)).isZero();
    assertThat(summary.getLong(3)).isEqualTo(ROWS - 1);
    assertThat(summary.getLong(4)).isEqualTo(ROWS * (ROWS - 1) / 2);
  }

  /** The process ids of the JVMs that ran a small job's tasks. */
  private static List<Long> taskPids() {
    MapPartitionsFunction<Long, Long> pid = rows -> List.of(ProcessHandle.current().pid()).iterator();
    return spark.range(0, 8, 1, 8).mapPartitions(pid, Encoders.LONG()).distinct().collectAsList();
  }
}
