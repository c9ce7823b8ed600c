package io.floe.spark.read.plan;

import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.ScanPlans;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.ColumnStat;
import org.apache.spark.sql.connector.read.Statistics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * Distinct counts from the statistics file {@code compute_table_stats} writes, as Spark's
 * optimizer sees them: reported for the snapshot the file was computed for when the cost-based
 * optimizer is on, none from a stale file, scaled to a pruned scan, and a join the counts plan
 * better, with the rows Spark computes over temp views of the same data.
 */
class DistinctCountStatisticsTest extends SparkTestBase {
  private static final String EVENTS = "floe.ndv.events";
  private static final String EVENT_ROWS =
      "SELECT id, CASE WHEN id % 13 = 0 THEN NULL ELSE CAST(id % 97 AS INT) END AS grp,"
          + " concat('n', CAST(id % 211 AS STRING)) AS name,"
          + " element_at(array('a', 'b', 'c'), CAST(id % 3 + 1 AS INT)) AS category"
          + " FROM range(0, 3000)";

  @BeforeAll
  static void createTables() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.ndv");
    spark.sql(EVENT_ROWS).createOrReplaceTempView("event_rows");
    sql("CREATE TABLE %s (id BIGINT, grp INT, name STRING, category STRING) USING iceberg"
        + " PARTITIONED BY (category)", EVENTS);
    sql("INSERT INTO %s SELECT * FROM event_rows", EVENTS);
  }

  @AfterEach
  void resetConf() {
    spark.conf().unset("spark.sql.cbo.enabled");
    spark.conf().unset("spark.sql.cbo.planStats.enabled");
    spark.conf().unset(DistinctCounts.REPORT_COLUMN_STATS);
    spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
    spark.conf().unset("spark.sql.adaptive.enabled");
  }

  @Test
  void distinctCountsOfTheStatisticsFileReachTheOptimizedPlan() {
    sql("CALL floe.system.compute_table_stats('ndv.events')");
    spark.conf().set("spark.sql.cbo.enabled", "true");

    Map<String, ColumnStat> stats = attributeStats(spark.table(EVENTS));

    Row truth =
        sql("SELECT count(DISTINCT id), count(DISTINCT grp), count(DISTINCT name),"
            + " count(DISTINCT category), count_if(grp IS NULL) FROM event_rows").get(0);
    assertThat(distinct(stats, "id")).isEqualTo(truth.getLong(0));
    assertThat(distinct(stats, "grp")).isEqualTo(truth.getLong(1));
    assertThat(distinct(stats, "name")).isEqualTo(truth.getLong(2));
    assertThat(distinct(stats, "category")).isEqualTo(truth.getLong(3));
    // with the null count, which Spark's join and filter estimates need next to the distinct count
    assertThat(stats.get("grp").nullCount().get().longValue()).isEqualTo(truth.getLong(4));
    assertThat(stats.get("grp").hasCountStats()).isTrue();
  }

  @Test
  void withoutTheCostBasedOptimizerOrWithColumnStatsOffNoDistinctCountIsReported() {
    sql("CALL floe.system.compute_table_stats('ndv.events')");

    // plan statistics without the cost-based optimizer use file metadata, but not distinct counts
    spark.conf().set("spark.sql.cbo.planStats.enabled", "true");
    assertThat(floeScan(spark.table(EVENTS)).estimateStatistics().columnStats().values())
        .isNotEmpty()
        .allSatisfy(column -> assertThat(column.distinctCount()).isEmpty());
    spark.conf().unset("spark.sql.cbo.planStats.enabled");

    spark.conf().set("spark.sql.cbo.enabled", "true");
    spark.conf().set(DistinctCounts.REPORT_COLUMN_STATS, "false");
    assertThat(floeScan(spark.table(EVENTS)).estimateStatistics().columnStats()).isEmpty();

    spark.conf().set(DistinctCounts.REPORT_COLUMN_STATS, "maybe");
    assertThatThrownBy(() -> spark.table(EVENTS).queryExecution().optimizedPlan())
        .hasMessageContaining("spark.sql.iceberg.report-column-stats must be true or false, not 'maybe'");
  }

  @Test
  void aStaleStatisticsFileGivesNoCountsButTimeTravelToItsSnapshotDoes() {
    sql("CREATE TABLE floe.ndv.growing (id BIGINT, grp INT) USING iceberg");
    sql("INSERT INTO floe.ndv.growing SELECT id, CAST(id %% 50 AS INT) FROM range(0, 500)");
    sql("CALL floe.system.compute_table_stats('ndv.growing')");
    long computed = icebergTable(spark, "ndv.growing").currentSnapshot().snapshotId();
    sql("INSERT INTO floe.ndv.growing SELECT id, CAST(id %% 80 AS INT) FROM range(500, 900)");
    spark.conf().set("spark.sql.cbo.enabled", "true");

    Table table = icebergTable(spark, "ndv.growing");
    assertThat(table.statisticsFiles()).singleElement()
        .satisfies(file -> assertThat(file.snapshotId()).isEqualTo(computed));
    Map<String, ColumnStat> current = attributeStats(spark.table("floe.ndv.growing"));
    assertThat(current.get("grp").distinctCount().isEmpty()).isTrue();
    assertThat(current.get("id").distinctCount().isEmpty()).isTrue();
    // the file-metadata statistics of the current snapshot are still there
    assertThat(current.get("id").max().get()).isEqualTo(899L);

    Dataset<Row> old =
        spark.read().option("snapshot-id", String.valueOf(computed)).table("floe.ndv.growing");
    Map<String, ColumnStat> atComputed = attributeStats(old);
    Row truth = old.selectExpr("count(DISTINCT id)", "count(DISTINCT grp)").collectAsList().get(0);
    assertThat(distinct(atComputed, "id")).isEqualTo(truth.getLong(0)).isEqualTo(500);
    assertThat(distinct(atComputed, "grp")).isEqualTo(truth.getLong(1)).isEqualTo(50);
  }

  @Test
  void aPrunedScanScalesItsCountsToTheRowsItReads() {
    sql("CALL floe.system.compute_table_stats('ndv.events')");
    spark.conf().set("spark.sql.cbo.enabled", "true");

    Statistics pruned =
        floeScan(spark.sql("SELECT * FROM " + EVENTS + " WHERE category = 'b'")).estimateStatistics();

    Row truth =
        sql("SELECT count(*), count(DISTINCT id), count(DISTINCT grp), count(DISTINCT name),"
            + " count(DISTINCT category) FROM event_rows WHERE category = 'b'").get(0);
    assertThat(pruned.numRows().getAsLong()).isEqualTo(truth.getLong(0));
    Map<String, Long> counts = new HashMap<>();
    pruned.columnStats().forEach(
        (ref, column) -> column.distinctCount().ifPresent(ndv -> counts.put(ref.describe(), ndv)));
    // a key keeps one value per row read; columns of few values keep them all
    assertThat(counts.get("id")).isEqualTo(truth.getLong(1));
    assertThat(counts.get("grp")).isEqualTo(truth.getLong(2));
    assertThat(counts.get("name")).isEqualTo(truth.getLong(3));
    // the partition column counts the partitions read
    assertThat(counts.get("category")).isEqualTo(truth.getLong(4)).isEqualTo(1);
    assertThat(counts.values()).allSatisfy(ndv -> assertThat(ndv).isLessThanOrEqualTo(truth.getLong(0)));
  }

  @Test
  void distinctCountsLetTheOptimizerBroadcastASmallJoinResult() {
    spark.range(0, 1000).selectExpr("id AS a", "id * 3 AS x").createOrReplaceTempView("left_rows");
    spark.range(0, 1000).selectExpr("id AS a", "id * 7 AS y").createOrReplaceTempView("right_rows");
    spark.range(0, 20000)
        .selectExpr("id % 1500 AS a", "sha2(CAST(id AS STRING), 512) AS payload")
        .createOrReplaceTempView("big_rows");
    sql("CREATE TABLE floe.ndv.l (a BIGINT, x BIGINT) USING iceberg");
    sql("CREATE TABLE floe.ndv.r (a BIGINT, y BIGINT) USING iceberg");
    sql("CREATE TABLE floe.ndv.big (a BIGINT, payload STRING) USING iceberg");
    sql("INSERT INTO floe.ndv.l SELECT * FROM left_rows");
    sql("INSERT INTO floe.ndv.r SELECT * FROM right_rows");
    sql("INSERT INTO floe.ndv.big SELECT * FROM big_rows");
    String query =
        "SELECT l.a, l.x, r.y, substr(b.payload, 1, 8) AS p FROM %s l JOIN %s r ON l.a = r.a"
            + " JOIN %s b ON b.a = l.a";
    List<Row> expected =
        sorted(spark.sql(String.format(query, "left_rows", "right_rows", "big_rows")).collectAsList());
    spark.conf().set("spark.sql.cbo.enabled", "true");
    spark.conf().set("spark.sql.adaptive.enabled", "false");
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", String.valueOf(200 * 1024));
    String floeQuery = String.format(query, "floe.ndv.l", "floe.ndv.r", "floe.ndv.big");

    // without distinct counts Spark estimates the first join as a cross product, too big to
    // broadcast, and sorts and shuffles the big table for the second
    Dataset<Row> before = spark.sql(floeQuery);
    assertThat(ScanPlans.nodeNames(before)).contains("SortMergeJoinExec");
    assertThat(sorted(before.collectAsList())).isEqualTo(expected);

    sql("CALL floe.system.compute_table_stats('ndv.l')");
    sql("CALL floe.system.compute_table_stats('ndv.r')");
    sql("CALL floe.system.compute_table_stats('ndv.big')");
    Dataset<Row> after = spark.sql(floeQuery);

    assertThat(ScanPlans.nodeNames(after)).doesNotContain("SortMergeJoinExec");
    assertThat(ScanPlans.nodeNames(after).stream().filter("BroadcastHashJoinExec"::equals).count())
        .isEqualTo(2);
    assertThat(sorted(after.collectAsList())).isEqualTo(expected);
  }

  private static Map<String, ColumnStat> attributeStats(Dataset<Row> df) {
    Map<String, ColumnStat> byName = new HashMap<>();
    scala.collection.Iterator<Tuple2<Attribute, ColumnStat>> entries =
        df.queryExecution().optimizedPlan().stats().attributeStats().iterator();
    while (entries.hasNext()) {
      Tuple2<Attribute, ColumnStat> entry = entries.next();
      byName.put(entry._1().name(), entry._2());
    }
    return byName;
  }

  private static long distinct(Map<String, ColumnStat> stats, String column) {
    assertThat(stats).containsKey(column);
    assertThat(stats.get(column).distinctCount().isDefined()).as("distinct count of %s", column).isTrue();
    return stats.get(column).distinctCount().get().longValue();
  }

  private static List<Row> sorted(List<Row> rows) {
    List<Row> copy = new ArrayList<>(rows);
    copy.sort((a, b) -> a.toString().compareTo(b.toString()));
    return copy;
  }
}
