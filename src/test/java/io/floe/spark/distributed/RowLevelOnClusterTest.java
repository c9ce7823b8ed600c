package io.floe.spark.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.distributed.RecordingCatalog.Call;
import io.floe.spark.read.EqualityDeleteCommits;
import io.floe.spark.read.SnapshotHistory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * DELETE, UPDATE and MERGE on a cluster whose executors are separate JVMs (strict Kryo, see {@link
 * Cluster}), each losing an executor JVM while its tasks run: the table ends with exactly the rows
 * Spark's own semantics give for the statement over the same rows, in exactly one new snapshot,
 * and only the driver calls the catalog.
 */
@Tag("distributed")
class RowLevelOnClusterTest {
  private static final long ROWS = Long.getLong("floe.cluster.rows", 120_000L);
  private static final int TASKS = 6;
  private static final long ROWS_PER_PAUSE = Math.max(1, ROWS / TASKS / 2000);
  private static final Duration TASK_AGE_BEFORE_KILL = Duration.ofMillis(500);
  /** What the checks compare: the row count, the distinct ids and checksums over every column. */
  private static final String FINGERPRINT =
      "SELECT count(*), count(DISTINCT id), sum(id), sum(crc32(payload)), sum(part * id) FROM %s";

  private static Path root;
  private static Path calls;
  private static SparkSession spark;

  @BeforeAll
  static void startCluster() throws IOException {
    root = Files.createTempDirectory("floe-rowlevel-cluster");
    calls = root.resolve("calls.log");
    spark = Cluster.start(Cluster.master(), root, calls);
    Cluster.registerThrottle(spark, ROWS_PER_PAUSE);
    spark.sql("CREATE NAMESPACE floe.dml");
    spark.sql(
        String.format(
            "CREATE OR REPLACE TEMPORARY VIEW generated AS SELECT id,"
                + " concat('payload-', CAST(id AS STRING)) AS payload, CAST(id %% 4 AS INT) AS part"
                + " FROM range(0, %d, 1, %d)",
            ROWS, TASKS));
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
  void copyOnWriteDeleteThatLosesAnExecutorRemovesExactlyTheMatchingRows() throws Exception {
    String table = createTable("cow_delete", "'format-version' = '2'");

    runLosingAnExecutor("DELETE FROM " + table + " WHERE throttle(id) % 3 = 0");

    assertThat(fingerprint(table))
        .isEqualTo(fingerprint("(SELECT * FROM generated WHERE NOT (id % 3 = 0))"));
    assertThat(newSnapshots(table)).containsExactly(List.of("overwrite"));
  }

  @Test
  void mergeOnReadUpdateThatLosesAnExecutorWritesEachDeleteOnce() throws Exception {
    String table =
        createTable(
            "mor_update", "'format-version' = '2', 'write.update.mode' = 'merge-on-read'");

    runLosingAnExecutor(
        "UPDATE " + table + " SET payload = concat('updated-', CAST(throttle(id) AS STRING))"
            + " WHERE throttle(id) % 5 = 1");

    assertThat(fingerprint(table))
        .isEqualTo(
            fingerprint(
                "(SELECT id, IF(id % 5 = 1, concat('updated-', CAST(id AS STRING)), payload) AS payload,"
                    + " part FROM generated)"));
    assertThat(newSnapshots(table)).containsExactly(List.of("overwrite"));
    // each rewritten data file has one position delete file, not one per lost attempt
    assertThat(
            Cluster.rows(
                spark,
                "SELECT count(*), count(DISTINCT delete_file_path) FROM " + table
                    + ".position_deletes"))
        .singleElement()
        .satisfies(row -> assertThat(row.get(0)).isEqualTo(ROWS / 5));
  }

  @Test
  void mergeOnReadMergeIntoAVersion3TableThatLosesAnExecutorAppliesEverySourceRowOnce()
      throws Exception {
    String table =
        createTable("mor_merge", "'format-version' = '3', 'write.merge.mode' = 'merge-on-read'");
    String source =
        String.format(
            "SELECT id, concat('merged-', CAST(id AS STRING)) AS payload, CAST(id %% 4 AS INT) AS part"
                + " FROM range(%d, %d, 3, %d)",
            ROWS / 2, ROWS + ROWS / 2, TASKS);
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW source AS " + source);

    runLosingAnExecutor(
        "MERGE INTO " + table + " t USING source s ON t.id = s.id"
            + " WHEN MATCHED THEN UPDATE SET t.payload = concat(s.payload, '-', CAST(throttle(s.id) AS STRING))"
            + " WHEN NOT MATCHED THEN INSERT (id, payload, part)"
            + " VALUES (throttle(s.id), s.payload, s.part)");

    String expected =
        "(SELECT coalesce(s.id, t.id) AS id,"
            + " CASE WHEN s.id IS NULL THEN t.payload WHEN t.id IS NULL THEN s.payload"
            + " ELSE concat(s.payload, '-', CAST(s.id AS STRING)) END AS payload,"
            + " coalesce(t.part, s.part) AS part"
            + " FROM generated t FULL OUTER JOIN source s ON t.id = s.id)";
    assertThat(fingerprint(table)).isEqualTo(fingerprint(expected));
    assertThat(newSnapshots(table)).containsExactly(List.of("overwrite"));
  }

  @Test
  void theChangelogOfEqualityDeletesReadOnExecutorsIsSparksDifferenceOfEverySnapshot() {
    String table = "floe.dml.eq_changes";
    spark.sql("CREATE TABLE " + table + " (id BIGINT, payload STRING, part INT) USING iceberg"
        + " PARTITIONED BY (part) TBLPROPERTIES ('format-version' = '2')");
    spark.sql("INSERT INTO " + table + " SELECT * FROM generated WHERE id < 2000");
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    Table iceberg = catalog.icebergCatalog().loadTable(TableIdentifier.of("dml", "eq_changes"));
    PartitionSpec spec = iceberg.spec();
    // as another engine upserts: ids deleted by key in partition 1, new rows for some of them in the same snapshot
    List<List<Object>> keys = new ArrayList<>();
    List<List<Object>> upserted = new ArrayList<>();
    for (long id = 1; id < 2000; id += 4 * 7) {
      keys.add(EqualityDeleteCommits.row(id));
      upserted.add(EqualityDeleteCommits.row(id, "upserted-" + id, 1));
    }
    EqualityDeleteCommits.commit(iceberg,
        List.of(EqualityDeleteCommits.deletes(iceberg, spec, List.of("id"), keys, 1),
            EqualityDeleteCommits.deletes(iceberg, spec, List.of("payload"),
                List.of(EqualityDeleteCommits.row("payload-2"), EqualityDeleteCommits.row((Object) null)), 2)),
        List.of(EqualityDeleteCommits.data(iceberg, spec, upserted, 1)));
    spark.sql("INSERT INTO " + table + " VALUES (2, 'payload-2', 2)");
    iceberg.refresh();
    List<Snapshot> snapshots = SnapshotHistory.ancestry(iceberg);
    List<String> parts = new ArrayList<>();
    for (int ordinal = 0; ordinal < snapshots.size(); ordinal++) {
      Snapshot snapshot = snapshots.get(ordinal);
      parts.add(SnapshotHistory.changesSql(snapshot, ordinal,
          SnapshotHistory.asOf(table, "id, payload, part", snapshot.parentId()),
          SnapshotHistory.asOf(table, "id, payload, part", snapshot.snapshotId())));
    }
    List<Row> expected = spark.sql(String.join(" UNION ALL ", parts)).collectAsList();
    assertThat(expected).hasSize(2000 + 2 * keys.size() + 1 + 1);
    List<Row> changes = spark.sql("SELECT * FROM " + table + ".changes").collectAsList();
    assertThat(SnapshotHistory.sortedText(changes)).isEqualTo(SnapshotHistory.sortedText(expected));
    long driver = ProcessHandle.current().pid();
    assertThat(RecordingCatalog.calls(calls)).isNotEmpty().allSatisfy(call -> assertThat(call.pid()).isEqualTo(driver));
  }

  /** A partitioned copy of the generated rows; the snapshots it starts with are not counted. */
  private static String createTable(String name, String properties) {
    String table = "floe.dml." + name;
    spark.sql(
        "CREATE TABLE " + table + " USING iceberg PARTITIONED BY (part) TBLPROPERTIES ("
            + properties + ") AS SELECT * FROM generated");
    return table;
  }

  /** Runs the statement while one executor JVM is killed, and checks who called the catalog. */
  private static void runLosingAnExecutor(String statement) throws Exception {
    TaskWatcher watcher = new TaskWatcher();
    spark.sparkContext().addSparkListener(watcher);
    try {
      CompletableFuture<Void> job =
          CompletableFuture.runAsync(() -> spark.sql(statement).collectAsList());
      Cluster.killOneExecutorWhileTasksRun(spark, watcher, job, TASK_AGE_BEFORE_KILL);
      job.get(5, TimeUnit.MINUTES);
    } finally {
      spark.sparkContext().removeSparkListener(watcher);
    }
    assertThat(watcher.lostWithExecutor()).as("tasks lost with the killed executor").isPositive();
    long driver = ProcessHandle.current().pid();
    List<Call> recorded = RecordingCatalog.calls(calls);
    assertThat(recorded).isNotEmpty().allSatisfy(call -> assertThat(call.pid()).isEqualTo(driver));
  }

  /** The operations of the snapshots committed since the table was created. */
  private static List<List<Object>> newSnapshots(String table) {
    return Cluster.rows(
        spark,
        "SELECT operation FROM " + table + ".snapshots WHERE parent_id IS NOT NULL ORDER BY committed_at");
  }

  private static List<List<Object>> fingerprint(String relation) {
    return Cluster.rows(spark, String.format(FINGERPRINT, relation));
  }
}
