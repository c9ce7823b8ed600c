package io.floe.spark.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.distributed.RecordingCatalog.Call;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A streaming query from one Floe table into another on a cluster whose executors are separate
 * JVMs (strict Kryo, see {@link Cluster}), losing an executor JVM while a micro-batch runs: the
 * sink ends with every source row exactly once, one snapshot per micro-batch, each recording its
 * own epoch, and only the driver calls the catalog. On the same cluster, a stream with {@code
 * streaming-overwrite-mode=added-rows} over a merge-on-read UPDATE copies each added row once.
 */
@Tag("distributed")
class StreamingOnClusterTest {
  private static final long ROWS_PER_APPEND = Long.getLong("floe.cluster.rows", 120_000L) / 4;
  private static final int APPENDS = 4;
  private static final int TASKS = 3;
  private static final long ROWS_PER_PAUSE = Math.max(1, ROWS_PER_APPEND / TASKS / 2000);

  private static Path root;
  private static Path calls;
  private static SparkSession spark;

  @BeforeAll
  static void startCluster() throws IOException {
    root = Files.createTempDirectory("floe-streaming-cluster");
    calls = root.resolve("calls.log");
    spark = Cluster.start(Cluster.master(), root, calls);
    Cluster.registerThrottle(spark, ROWS_PER_PAUSE);
    Cluster.awaitExecutors(spark, 2, Duration.ofMinutes(3));
  }

  @AfterAll
  static void stopCluster() {
    Cluster.stop(spark);
    spark = null;
    Cluster.deleteRecursively(root);
  }

  @Test
  void aStreamThatLosesAnExecutorMidBatchWritesEverySourceRowOnce() throws Exception {
    spark.sql("CREATE NAMESPACE floe.stream");
    spark.sql("CREATE TABLE floe.stream.source (id BIGINT, payload STRING, part INT) USING iceberg");
    spark.sql("CREATE TABLE floe.stream.sink (id BIGINT, payload STRING, part INT) USING iceberg"
        + " PARTITIONED BY (part)");
    for (int append = 0; append < APPENDS; append += 1) {
      spark.sql(String.format(
          "INSERT INTO floe.stream.source SELECT id, concat('payload-', CAST(id AS STRING)),"
              + " CAST(id %% 4 AS INT) FROM range(%d, %d, 1, %d)",
          append * ROWS_PER_APPEND, (append + 1) * ROWS_PER_APPEND, TASKS));
    }

    TaskWatcher watcher = new TaskWatcher();
    spark.sparkContext().addSparkListener(watcher);
    StreamingQuery query;
    try {
      query =
          spark.readStream()
              .option("streaming-max-files-per-micro-batch", String.valueOf(TASKS))
              .table("floe.stream.source")
              .selectExpr("throttle(id) AS id", "payload", "part")
              .writeStream()
              .outputMode("append")
              .trigger(Trigger.AvailableNow())
              .option("checkpointLocation", root.resolve("checkpoint").toString())
              .toTable("floe.stream.sink");
      StreamingQuery running = query;
      CompletableFuture<Void> done =
          CompletableFuture.runAsync(
              () -> {
                try {
                  running.awaitTermination();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      Cluster.killOneExecutorWhileTasksRun(spark, watcher, done, Duration.ofMillis(500));
      done.get(5, TimeUnit.MINUTES);
    } finally {
      spark.sparkContext().removeSparkListener(watcher);
    }
    assertThat(query.exception().isDefined()).as("the query failed").isFalse();
    assertThat(watcher.lostWithExecutor()).as("tasks lost with the killed executor").isPositive();

    String fingerprint = "SELECT count(*), count(DISTINCT id), sum(id), sum(crc32(payload)), sum(part * id) FROM ";
    assertThat(Cluster.rows(spark, fingerprint + "floe.stream.sink"))
        .isEqualTo(Cluster.rows(spark, fingerprint + "floe.stream.source"));
    List<List<Object>> epochs =
        Cluster.rows(
            spark,
            "SELECT summary['spark.sql.streaming.epochId'], summary['spark.sql.streaming.queryId']"
                + " FROM floe.stream.sink.snapshots ORDER BY committed_at");
    // each micro-batch reads at most TASKS files, and the source has one file per task and append
    assertThat(epochs).hasSizeGreaterThanOrEqualTo(APPENDS);
    assertThat(epochs.stream().map(row -> row.get(0)).distinct()).hasSameSizeAs(epochs);
    assertThat(epochs).allSatisfy(row -> assertThat(row.get(1)).isEqualTo(query.id().toString()));

    long driver = ProcessHandle.current().pid();
    List<Call> recorded = RecordingCatalog.calls(calls);
    assertThat(recorded).isNotEmpty().allSatisfy(call -> assertThat(call.pid()).isEqualTo(driver));
  }

  @Test
  void anAddedRowsStreamOverAMergeOnReadUpdateCopiesEachAddedRowOnce() throws Exception {
    spark.sql("CREATE NAMESPACE floe.addedrows");
    spark.sql("CREATE TABLE floe.addedrows.source (id BIGINT, payload STRING, part INT) USING iceberg"
        + " PARTITIONED BY (part) TBLPROPERTIES ('format-version'='2', 'write.update.mode'='merge-on-read')");
    spark.sql("CREATE TABLE floe.addedrows.sink (id BIGINT, payload STRING, part INT) USING iceberg");
    String rows = "SELECT id, concat('payload-', CAST(id AS STRING)), CAST(id %% 4 AS INT) FROM range(%d, %d, 1, %d)";
    spark.sql("INSERT INTO floe.addedrows.source " + String.format(rows, 0, 3000, TASKS));
    spark.sql("UPDATE floe.addedrows.source SET payload = concat('updated-', payload), part = (part + 1) % 4"
        + " WHERE id % 7 = 0");
    spark.sql("INSERT INTO floe.addedrows.source " + String.format(rows, 3000, 4500, TASKS));

    spark.readStream()
        .option("streaming-overwrite-mode", "added-rows")
        .option("streaming-max-files-per-micro-batch", String.valueOf(TASKS))
        .table("floe.addedrows.source")
        .writeStream()
        .outputMode("append")
        .trigger(Trigger.AvailableNow())
        .option("checkpointLocation", root.resolve("overwrite-checkpoint").toString())
        .toTable("floe.addedrows.sink")
        .awaitTermination();

    // Spark's rows each snapshot added: merge-on-read writes only the new and updated rows
    List<List<Object>> snapshots =
        Cluster.rows(spark, "SELECT snapshot_id, parent_id, operation FROM floe.addedrows.source.snapshots"
            + " ORDER BY committed_at");
    assertThat(snapshots).extracting(row -> row.get(2)).containsExactly("append", "overwrite", "append");
    StringBuilder added = new StringBuilder("SELECT * FROM floe.addedrows.source VERSION AS OF " + snapshots.get(0).get(0));
    for (List<Object> snapshot : snapshots.subList(1, snapshots.size())) {
      added.append(" UNION ALL (SELECT * FROM floe.addedrows.source VERSION AS OF ").append(snapshot.get(0))
          .append(" EXCEPT ALL SELECT * FROM floe.addedrows.source VERSION AS OF ").append(snapshot.get(1)).append(")");
    }
    String fingerprint = "SELECT count(*), count(DISTINCT id), sum(id), sum(crc32(payload)), sum(part * id) FROM ";
    assertThat(Cluster.rows(spark, fingerprint + "floe.addedrows.sink"))
        .isEqualTo(Cluster.rows(spark, fingerprint + "(" + added + ")"));
    assertThat(Cluster.rows(spark, "SELECT count(*) FROM floe.addedrows.sink WHERE payload LIKE 'updated-%'"))
        .isEqualTo(List.of(List.of(3000L / 7 + 1)));
  }
}
