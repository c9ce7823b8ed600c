package io.floe.spark.write.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.CommandResultExec;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SQLPlanMetric;
import org.apache.spark.sql.util.QueryExecutionListener;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The metrics a Floe write shows on its node in the Spark UI's SQL tab, read from the executed
 * plan and from the UI's status store: data files and bytes written (equal to what the table's
 * {@code files} metadata table lists), rows written, commit attempts, commit time, and commits
 * skipped because their id was already committed.
 */
class WriteMetricsTest extends SparkTestBase {
  private static final List<String> METRICS =
      List.of(
          WriteMetrics.FILES_WRITTEN,
          WriteMetrics.BYTES_WRITTEN,
          WriteMetrics.ROWS_WRITTEN,
          WriteMetrics.COMMIT_ATTEMPTS,
          WriteMetrics.COMMIT_DURATION_MS,
          WriteMetrics.COMMITS_SKIPPED);

  private static final PlanCapture PLANS = new PlanCapture();

  @BeforeAll
  static void createTable() {
    spark.listenerManager().register(PLANS);
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.inserted (id BIGINT, kind STRING) USING iceberg PARTITIONED BY (kind)");
    sql("CREATE TABLE floe.db.rerun (id BIGINT, kind STRING) USING iceberg PARTITIONED BY (kind)");
  }

  @AfterAll
  static void unregister() {
    if (spark != null) {
      spark.listenerManager().unregister(PLANS);
    }
  }

  @Test
  void sqlInsertShowsFilesBytesRowsAndOneCommitAttempt() throws Exception {
    long before = System.nanoTime();
    SparkPlan plan =
        executedPlan(
            spark.sql(
                "INSERT INTO floe.db.inserted VALUES (1, 'click'), (2, 'view'), (3, 'click'), (4, 'buy')"));
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);

    Row files =
        sql("SELECT count(*), sum(file_size_in_bytes), sum(record_count) FROM floe.db.inserted.files").get(0);
    assertThat(files.getLong(0)).as("data files of the table").isEqualTo(3);
    Map<String, Long> values = values(plan);
    assertThat(values)
        .containsEntry(WriteMetrics.FILES_WRITTEN, 3L)
        .containsEntry(WriteMetrics.BYTES_WRITTEN, files.getLong(1))
        .containsEntry(WriteMetrics.ROWS_WRITTEN, 4L)
        .containsEntry(WriteMetrics.COMMIT_ATTEMPTS, 1L)
        .containsEntry(WriteMetrics.COMMITS_SKIPPED, 0L);
    assertThat(values.get(WriteMetrics.COMMIT_DURATION_MS)).isBetween(0L, elapsedMs);

    Map<String, String> shown = shownInUi(plan);
    assertThat(shown)
        .containsEntry("data files written", "3")
        .containsEntry("data bytes written", String.valueOf(files.getLong(1)))
        .containsEntry("rows written", "4")
        .containsEntry("commit attempts", "1")
        .containsEntry("commits skipped (commit id already in the table)", "0")
        .containsEntry("commit time (ms)", String.valueOf(values.get(WriteMetrics.COMMIT_DURATION_MS)));
  }

  @Test
  void rerunWithCommittedIdShowsASkippedCommitAndNoAttempt() throws Exception {
    Dataset<Row> rows = spark.sql("SELECT CAST(id AS BIGINT) AS id, 'rerun' AS kind FROM range(10, 15)");
    PLANS.clear();
    rows.coalesce(1).writeTo("floe.db.rerun").option("commit-id", "metrics-rerun").append();
    Map<String, Long> first = values(PLANS.next());

    rows.coalesce(1).writeTo("floe.db.rerun").option("commit-id", "metrics-rerun").append();
    SparkPlan rerun = PLANS.next();
    Map<String, Long> second = values(rerun);

    assertThat(first)
        .containsEntry(WriteMetrics.COMMITS_SKIPPED, 0L)
        .containsEntry(WriteMetrics.COMMIT_ATTEMPTS, 1L)
        .containsEntry(WriteMetrics.ROWS_WRITTEN, 5L)
        .containsEntry(WriteMetrics.FILES_WRITTEN, 1L);
    // the rerun wrote its rows and file again, then found the id and committed nothing
    assertThat(second)
        .containsEntry(WriteMetrics.COMMITS_SKIPPED, 1L)
        .containsEntry(WriteMetrics.COMMIT_ATTEMPTS, 0L)
        .containsEntry(WriteMetrics.ROWS_WRITTEN, 5L)
        .containsEntry(WriteMetrics.FILES_WRITTEN, 1L);
    assertThat(shownInUi(rerun))
        .containsEntry("commits skipped (commit id already in the table)", "1")
        .containsEntry("commit attempts", "0");
    assertThat(sql("SELECT count(*) FROM floe.db.rerun").get(0).getLong(0))
        .isEqualTo(5);
  }

  // helpers

  private static SparkPlan executedPlan(Dataset<Row> result) {
    return ((org.apache.spark.sql.classic.Dataset<Row>) result).queryExecution().executedPlan();
  }

  /** The write's metric values by name, from the node of the executed plan that reports them. */
  private static Map<String, Long> values(SparkPlan plan) {
    Map<String, Long> values = new TreeMap<>();
    for (String name : METRICS) {
      values.put(name, metric(plan, name).value());
    }
    return values;
  }

  /** What the Spark UI's SQL tab shows for each metric, by the metric's description. */
  private static Map<String, String> shownInUi(SparkPlan plan) throws InterruptedException {
    Map<String, String> shown = new TreeMap<>();
    for (String name : METRICS) {
      SQLMetric metric = metric(plan, name);
      shown.put(metric.name().get(), uiValue(metric));
    }
    return shown;
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

  private static String uiValue(SQLMetric metric) throws InterruptedException {
    SQLAppStatusStore store =
        ((org.apache.spark.sql.classic.SparkSession) spark).sharedState().statusStore();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      for (SQLExecutionUIData execution : CollectionConverters.asJava(store.executionsList())) {
        if (!execution.completionTime().isDefined()) {
          continue;
        }
        for (SQLPlanMetric planMetric : CollectionConverters.asJava(execution.metrics())) {
          if (planMetric.accumulatorId() == metric.id()) {
            String shown =
                CollectionConverters.asJava(store.executionMetrics(execution.executionId())).get(metric.id());
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

  /** The executed plans of successful writes, in order (Spark reports them on its listener bus). */
  private static final class PlanCapture implements QueryExecutionListener {
    private final BlockingQueue<SparkPlan> writes = new LinkedBlockingQueue<>();

    @Override
    public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
      SparkPlan plan = qe.executedPlan();
      if (find(plan, WriteMetrics.FILES_WRITTEN).isPresent()) {
        writes.add(plan);
      }
    }

    @Override
    public void onFailure(String funcName, QueryExecution qe, Exception exception) {}

    void clear() {
      writes.clear();
    }

    SparkPlan next() throws InterruptedException {
      SparkPlan plan = writes.poll(20, TimeUnit.SECONDS);
      if (plan == null) {
        throw new AssertionError("no Floe write was reported to the query execution listener");
      }
      return plan;
    }
  }
}
