package io.floe.spark.commit;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.write.exec.WriteMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.logging.log4j.Level;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.CommandResultExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SQLPlanMetric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Idempotent commits as a user of one catalog type sees them: a commit id is committed once,
 * whether the write is rerun, raced by another writer, an overwrite, a branch write, or CTAS/RTAS;
 * a skip is logged and counted in the write's metrics; other failures are not mistaken for skips.
 */
abstract class CommitSuite extends CatalogTestBase {

  @BeforeAll
  void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
  }

  @AfterEach
  void clearSessionConf() {
    spark.conf().unset("spark.floe.write.commit-id");
    spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
  }

  @Test
  void appendTwiceWithSameCommitIdAddsOneSnapshot() {
    createTable("same_id", false);

    append("same_id", 0, 5, "job-1");
    append("same_id", 0, 5, "job-1");

    Table table = icebergTable("db.same_id");
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(1);
    assertThat(TableFiles.snapshotsWithId(table, "job-1")).hasSize(1);
    assertThat(ids("same_id")).isEqualTo(range(0, 5));
    assertThat(TableFiles.unreferencedDataFiles(table)).as("files of the skipped run").isEmpty();

    append("same_id", 5, 8, "job-2");

    table = icebergTable("db.same_id");
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(2);
    assertThat(TableFiles.snapshotsWithId(table, "job-2")).hasSize(1);
    assertThat(ids("same_id")).isEqualTo(range(0, 8));
  }

  @Test
  void sqlInsertWithSessionCommitIdIsAddedOnce() {
    createTable("sql_id", false);
    spark.conf().set("spark.floe.write.commit-id", "nightly-2024-01-01");

    sql("INSERT INTO floe.db.sql_id VALUES (1, 'a', 1), (2, 'b', 1)");
    sql("INSERT INTO floe.db.sql_id VALUES (1, 'a', 1), (2, 'b', 1)");

    assertThat(TableFiles.snapshotsWithId(icebergTable("db.sql_id"), "nightly-2024-01-01")).hasSize(1);
    assertThat(TableFiles.snapshotCount(icebergTable("db.sql_id"))).isEqualTo(1);
    assertThat(ids("sql_id")).containsExactly(1L, 2L);

    spark.conf().set("spark.floe.write.commit-id", "nightly-2024-01-02");
    sql("INSERT INTO floe.db.sql_id VALUES (3, 'c', 1)");

    assertThat(TableFiles.snapshotCount(icebergTable("db.sql_id"))).isEqualTo(2);
    assertThat(ids("sql_id")).containsExactly(1L, 2L, 3L);
  }

  @Test
  void writesWithoutCommitIdEachRecordTheirOwnId() {
    createTable("own_id", false);

    append("own_id", 0, 2, null);
    append("own_id", 0, 2, null);

    assertThat(commitIds(icebergTable("db.own_id"))).hasSize(2).doesNotContainNull().doesNotHaveDuplicates();
    assertThat(ids("own_id")).containsExactly(0L, 0L, 1L, 1L);
  }

  @Test
  void concurrentWritersWithSameCommitIdAddOneSnapshot() throws Exception {
    createTable("race", false);
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int i = 0; i < 2; i += 1) {
        writers.add(
            pool.submit(
                () -> {
                  start.await();
                  append("race", 0, 20, "race-1");
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> writer : writers) {
        writer.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }

    Table table = icebergTable("db.race");
    assertThat(TableFiles.snapshotsWithId(table, "race-1")).hasSize(1);
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(1);
    assertThat(ids("race")).isEqualTo(range(0, 20));
    assertThat(TableFiles.missingDataFiles(table)).isEmpty();
    assertThat(TableFiles.unreferencedDataFiles(table)).isEmpty();
  }

  @Test
  void eightConcurrentWritersWithDistinctIdsCommitEveryRowOnce() throws Exception {
    createTable("eight", false);
    sql(
        "ALTER TABLE floe.db.eight SET TBLPROPERTIES ('commit.retry.num-retries' = '100',"
            + " 'commit.retry.min-wait-ms' = '5', 'commit.retry.max-wait-ms' = '100')");
    int writers = 8;
    int commitsEach = 10;
    int rowsEach = 3;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> results = new ArrayList<>();
      for (int w = 0; w < writers; w += 1) {
        int writer = w;
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int c = 0; c < commitsEach; c += 1) {
                    long first = (long) (writer * commitsEach + c) * rowsEach;
                    append("eight", first, first + rowsEach, "w" + writer + "-c" + c);
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> result : results) {
        result.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }

    Table table = icebergTable("db.eight");
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(writers * commitsEach);
    assertThat(commitIds(table)).hasSize(writers * commitsEach).doesNotHaveDuplicates();
    assertThat(ids("eight")).isEqualTo(range(0, writers * commitsEach * rowsEach));
    assertThat(TableFiles.missingDataFiles(table)).isEmpty();
  }

  @Test
  void overwriteRerunWithSameCommitIdLeavesTableUnchanged() throws Exception {
    createTable("overwrite", true);
    append("overwrite", 0, 6, "load");

    rows(100, 103, 0).writeTo("floe.db.overwrite").option("commit-id", "ow-1").overwrite(col("part").equalTo(0));
    List<Long> afterFirst = ids("overwrite");
    int snapshots = TableFiles.snapshotCount(icebergTable("db.overwrite"));
    assertThat(afterFirst).containsExactly(1L, 3L, 5L, 100L, 101L, 102L);

    // the rerun brings other rows: had it not been skipped, the table would change
    rows(200, 203, 0).writeTo("floe.db.overwrite").option("commit-id", "ow-1").overwrite(col("part").equalTo(0));

    assertThat(ids("overwrite")).isEqualTo(afterFirst);
    assertThat(TableFiles.snapshotCount(icebergTable("db.overwrite"))).isEqualTo(snapshots);
    assertThat(TableFiles.unreferencedDataFiles(icebergTable("db.overwrite"))).isEmpty();

    spark.conf().set("spark.floe.write.commit-id", "sql-ow-1");
    sql("INSERT OVERWRITE floe.db.overwrite SELECT id, data, part FROM floe.db.overwrite WHERE id < 100");
    List<Long> afterSql = ids("overwrite");
    assertThat(afterSql).containsExactly(1L, 3L, 5L);

    sql("INSERT OVERWRITE floe.db.overwrite VALUES (7, 'x', 1)");

    assertThat(ids("overwrite")).isEqualTo(afterSql);
    assertThat(TableFiles.snapshotCount(icebergTable("db.overwrite"))).isEqualTo(snapshots + 1);
  }

  @Test
  void dynamicOverwriteRerunWithSameCommitIdLeavesTableUnchanged() throws Exception {
    createTable("dynamic", true);
    append("dynamic", 0, 6, "load");

    rows(100, 102, 1).writeTo("floe.db.dynamic").option("commit-id", "dyn-1").overwritePartitions();
    List<Long> afterFirst = ids("dynamic");
    int snapshots = TableFiles.snapshotCount(icebergTable("db.dynamic"));
    assertThat(afterFirst).containsExactly(0L, 2L, 4L, 100L, 101L);

    rows(200, 202, 1).writeTo("floe.db.dynamic").option("commit-id", "dyn-1").overwritePartitions();

    assertThat(ids("dynamic")).isEqualTo(afterFirst);
    assertThat(TableFiles.snapshotCount(icebergTable("db.dynamic"))).isEqualTo(snapshots);

    spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
    spark.conf().set("spark.floe.write.commit-id", "sql-dyn-1");
    sql("INSERT OVERWRITE floe.db.dynamic VALUES (300, 'x', 0)");
    List<Long> afterSql = ids("dynamic");
    assertThat(afterSql).containsExactly(100L, 101L, 300L);

    sql("INSERT OVERWRITE floe.db.dynamic VALUES (400, 'y', 0)");

    assertThat(ids("dynamic")).isEqualTo(afterSql);
    assertThat(TableFiles.snapshotCount(icebergTable("db.dynamic"))).isEqualTo(snapshots + 1);
    assertThat(TableFiles.unreferencedDataFiles(icebergTable("db.dynamic"))).isEmpty();
  }

  @Test
  void branchWriteChecksTheBranchAncestry() {
    createTable("branches", false);
    append("branches", 0, 2, "base");
    Table table = icebergTable("db.branches");
    table.manageSnapshots().createBranch("audit", table.currentSnapshot().snapshotId()).commit();
    append("branches", 10, 12, "shared-id");

    // main carries shared-id, but the audit branch forked before it: the branch write commits
    appendToBranch("branches", "audit", 20, 22, "shared-id");
    appendToBranch("branches", "audit", 30, 32, "shared-id");

    table = icebergTable("db.branches");
    assertThat(TableFiles.snapshotsWithId(table, "shared-id")).hasSize(2);
    assertThat(ids("branches")).containsExactly(0L, 1L, 10L, 11L);
    assertThat(idsOf("SELECT id FROM floe.db.branches VERSION AS OF 'audit' ORDER BY id"))
        .containsExactly(0L, 1L, 20L, 21L);

    // a branch that does not exist yet starts from main, whose ancestry already has the id
    appendToBranch("branches", "fresh", 40, 42, "shared-id");
    assertThat(icebergTable("db.branches").refs()).doesNotContainKey("fresh");
  }

  @Test
  void ctasAndRtasRecordTheCommitIdAndRtasRerunKeepsItsRows() {
    spark.conf().set("spark.floe.write.commit-id", "ctas-1");
    sql("CREATE TABLE floe.db.ctas USING iceberg AS SELECT id, CAST(id AS STRING) AS data FROM range(0, 3)");

    assertThat(TableFiles.snapshotsWithId(icebergTable("db.ctas"), "ctas-1")).hasSize(1);
    assertThat(ids("ctas")).containsExactly(0L, 1L, 2L);

    // the replacement has a history of its own, so the same id must not empty it by a skip
    sql("REPLACE TABLE floe.db.ctas USING iceberg AS SELECT id, CAST(id AS STRING) AS data FROM range(5, 7)");

    Table replaced = icebergTable("db.ctas");
    assertThat(replaced.currentSnapshot().summary()).containsEntry(Committer.COMMIT_ID_KEY, "ctas-1");
    assertThat(ids("ctas")).containsExactly(5L, 6L);

    sql("INSERT INTO floe.db.ctas VALUES (9, 'z')");

    assertThat(ids("ctas")).as("the insert with the replacement's id is skipped").containsExactly(5L, 6L);
  }

  @Test
  void skippedWriteIsLoggedAndCountedInTheWriteMetrics() throws Exception {
    createTable("metrics", false);
    spark.conf().set("spark.floe.write.commit-id", "metrics-1");

    SparkPlan first = executedPlan(spark.sql("INSERT INTO floe.db.metrics VALUES (1, 'a', 0), (2, 'b', 0)"));
    assertThat(metricValue(first, WriteMetrics.COMMITS_SKIPPED)).isZero();
    assertThat(metricValue(first, WriteMetrics.COMMIT_ATTEMPTS)).isEqualTo(1);
    assertThat(metricValue(first, WriteMetrics.ROWS_WRITTEN)).isEqualTo(2);
    assertThat(metricValue(first, WriteMetrics.FILES_WRITTEN)).isPositive();
    assertThat(metricValue(first, WriteMetrics.BYTES_WRITTEN)).isPositive();

    SparkPlan rerun;
    try (LogCapture log = new LogCapture(Committer.class)) {
      rerun = executedPlan(spark.sql("INSERT INTO floe.db.metrics VALUES (1, 'a', 0), (2, 'b', 0)"));
      assertThat(log.at(Level.INFO))
          .anySatisfy(
              line ->
                  assertThat(line)
                      .startsWith("Skipped commit to floe.db.metrics: snapshot")
                      .contains("already carries commit id metrics-1; nothing was added"));
    }
    assertThat(metricValue(rerun, WriteMetrics.COMMITS_SKIPPED)).isEqualTo(1);
    assertThat(metricValue(rerun, WriteMetrics.COMMIT_ATTEMPTS)).isZero();
    assertThat(uiValue(metric(rerun, WriteMetrics.COMMITS_SKIPPED))).isEqualTo("1");
    assertThat(ids("metrics")).containsExactly(1L, 2L);
  }

  @Test
  void overwriteFailingIcebergValidationIsReportedNotSkipped() {
    createTable("split", false);
    append("split", 0, 10, "load");

    // the filter matches some rows of the one data file: Iceberg refuses, and that is not a skip
    assertThatThrownBy(
            () ->
                rows(50, 52, 0)
                    .coalesce(1)
                    .writeTo("floe.db.split")
                    .option("commit-id", "split-1")
                    .overwrite(col("id").gt(4)))
        .hasStackTraceContaining("Cannot delete file where some, but not all, rows match filter");

    Table table = icebergTable("db.split");
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(1);
    assertThat(TableFiles.snapshotsWithId(table, "split-1")).isEmpty();
    assertThat(ids("split")).isEqualTo(range(0, 10));
    assertThat(TableFiles.unreferencedDataFiles(table)).as("files of the failed write").isEmpty();
  }

  // helpers

  private static void createTable(String name, boolean partitioned) {
    sql(
        "CREATE TABLE floe.db.%s (id BIGINT, data STRING, part INT) USING iceberg %s",
        name, partitioned ? "PARTITIONED BY (part)" : "");
  }

  /** Rows [from, to) in one task; part is id % 2 unless fixed. */
  private static Dataset<Row> rows(long from, long to, Integer part) {
    return spark
        .range(from, to, 1, 1)
        .selectExpr(
            "id", "CAST(id AS STRING) AS data", part == null ? "CAST(id % 2 AS INT) AS part" : "CAST(" + part + " AS INT) AS part");
  }

  static void append(String table, long from, long to, String commitId) {
    var writer = rows(from, to, null).writeTo("floe.db." + table);
    if (commitId != null) {
      writer = writer.option("commit-id", commitId);
    }
    try {
      writer.append();
    } catch (Exception e) {
      throw new IllegalStateException("append to " + table + " failed", e);
    }
  }

  private static void appendToBranch(String table, String branch, long from, long to, String commitId) {
    try {
      rows(from, to, null)
          .writeTo("floe.db." + table)
          .option("branch", branch)
          .option("commit-id", commitId)
          .append();
    } catch (Exception e) {
      throw new IllegalStateException("append to " + table + " branch " + branch + " failed", e);
    }
  }

  private static List<Long> ids(String table) {
    return idsOf("SELECT id FROM floe.db." + table + " ORDER BY id");
  }

  private static List<Long> idsOf(String query) {
    return sql(query).stream().map(row -> row.getLong(0)).collect(Collectors.toList());
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().collect(Collectors.toList());
  }

  private static List<String> commitIds(Table table) {
    List<String> recorded = new ArrayList<>();
    for (Snapshot snapshot : table.snapshots()) {
      recorded.add(snapshot.summary().get(Committer.COMMIT_ID_KEY));
    }
    return recorded;
  }

  private static SparkPlan executedPlan(Dataset<Row> result) {
    return ((org.apache.spark.sql.classic.Dataset<Row>) result).queryExecution().executedPlan();
  }

  private static long metricValue(SparkPlan plan, String name) {
    return metric(plan, name).value();
  }

  private static SQLMetric metric(SparkPlan plan, String name) {
    return find(plan, name)
        .orElseThrow(() -> new AssertionError("no metric " + name + " in plan\n" + plan.treeString()));
  }

  private static Optional<SQLMetric> find(SparkPlan plan, String name) {
    if (plan instanceof CommandResultExec) {
      return find(((CommandResultExec) plan).commandPhysicalPlan(), name);
    }
    scala.Option<SQLMetric> metric = plan.metrics().get(name);
    if (metric.isDefined()) {
      return Optional.of(metric.get());
    }
    for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
      Optional<SQLMetric> found = find(child, name);
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  /** The value the Spark UI's SQL tab shows for the metric, once its listener has caught up. */
  private static String uiValue(SQLMetric metric) throws InterruptedException {
    SQLAppStatusStore store = ((org.apache.spark.sql.classic.SparkSession) spark).sharedState().statusStore();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      for (SQLExecutionUIData execution : CollectionConverters.asJava(store.executionsList())) {
        for (SQLPlanMetric planMetric : CollectionConverters.asJava(execution.metrics())) {
          if (planMetric.accumulatorId() == metric.id() && execution.completionTime().isDefined()) {
            Map<Object, String> values = CollectionConverters.asJava(store.executionMetrics(execution.executionId()));
            String shown = values.get(metric.id());
            if (shown != null) {
              return shown;
            }
          }
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the Spark UI never showed metric " + metric.name());
  }
}
