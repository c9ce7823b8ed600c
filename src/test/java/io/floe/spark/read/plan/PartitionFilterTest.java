package io.floe.spark.read.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.ReadTestSupport;
import io.floe.spark.read.ScanPlans;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Predicates that select whole partitions are not evaluated again by Spark after the scan: the rows
 * must still be exactly those the predicate accepts (NULL partitions included), also when Spark does
 * not add its own IS NOT NULL, and a predicate that does not select whole partitions in every spec
 * stays with Spark. With no predicate left for Spark, aggregates and limits are pushed too.
 */
class PartitionFilterTest extends SparkTestBase {
  private static final String TABLE = "floe.pfilter.t";
  private static final String EVOLVED = "floe.pfilter.evolved";
  private static final String ROWS =
      "SELECT id, CASE WHEN pmod(id, 7) = 0 THEN NULL ELSE CAST(pmod(id, 5) AS INT) END AS p,"
          + " CASE WHEN pmod(id, 11) = 0 THEN NULL"
          + "  ELSE TIMESTAMP'2024-03-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(pmod(id, 96) AS INT), 0, 0)"
          + " END AS ts,"
          + " CAST(id * 3 AS DOUBLE) AS v"
          + " FROM range(0, 600)";

  @BeforeAll
  static void createTables() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.pfilter");
    sql(
        "CREATE TABLE " + TABLE + " (id BIGINT, p INT, ts TIMESTAMP, v DOUBLE) USING iceberg"
            + " PARTITIONED BY (p, days(ts))");
    spark.sql("INSERT INTO " + TABLE + " " + ROWS);
    spark.sql(ROWS).createOrReplaceTempView("pfilter_expected");

    // the first files are unpartitioned: p alone never selects whole partitions of that spec
    sql("CREATE TABLE " + EVOLVED + " (id BIGINT, p INT, ts TIMESTAMP, v DOUBLE) USING iceberg");
    spark.sql("INSERT INTO " + EVOLVED + " " + ROWS + " WHERE id < 300");
    ReadTestSupport.icebergTable(spark, "pfilter.evolved").updateSpec().addField("p").commit();
    spark.sql("INSERT INTO " + EVOLVED + " " + ROWS + " WHERE id >= 300");
  }

  @AfterAll
  static void dropTables() {
    sql("DROP TABLE IF EXISTS " + TABLE + " PURGE");
    sql("DROP TABLE IF EXISTS " + EVOLVED + " PURGE");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "p = 1",
        "p IN (1, 3)",
        "p < 3",
        "p >= 2",
        "p <> 2",
        "NOT (p = 1)",
        "p NOT IN (0, 4)",
        "p IS NULL",
        "p IS NOT NULL",
        "p = 1 OR p IS NULL",
        "ts >= TIMESTAMP'2024-03-02 00:00:00' AND ts < TIMESTAMP'2024-03-04 00:00:00'",
        "p = 4 AND ts < TIMESTAMP'2024-03-03 00:00:00'"
      })
  void partitionPredicatesAreLeftToTheScanAndKeepExactlyTheirRows(String predicate) {
    Dataset<Row> df = spark.sql("SELECT * FROM " + TABLE + " WHERE " + predicate);
    List<Row> actual = df.collectAsList();

    assertThat(actual)
        .as(predicate)
        .isNotEmpty()
        .containsExactlyInAnyOrderElementsOf(
            sql("SELECT * FROM pfilter_expected WHERE " + predicate));
    assertThat(ScanPlans.nodeNames(df)).as(predicate).doesNotContain("FilterExec");
  }

  @ParameterizedTest
  @ValueSource(strings = {"p < 3", "p <> 2", "NOT (p IN (1, 2))", "p <= 1 OR p > 3"})
  void nullPartitionsStayOutWithoutSparksInferredNotNull(String predicate) {
    String rule = "spark.sql.optimizer.excludedRules";
    spark
        .conf()
        .set(rule, "org.apache.spark.sql.catalyst.optimizer.InferFiltersFromConstraints");
    try {
      Dataset<Row> df = spark.sql("SELECT * FROM " + TABLE + " WHERE " + predicate);
      assertThat(df.collectAsList())
          .as(predicate)
          .isNotEmpty()
          .allSatisfy(row -> assertThat(row.isNullAt(1)).isFalse())
          .containsExactlyInAnyOrderElementsOf(
              sql("SELECT * FROM pfilter_expected WHERE " + predicate));
    } finally {
      spark.conf().unset(rule);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "v > 30.0",
        "p = 1 AND v > 30.0",
        "ts < TIMESTAMP'2024-03-02 12:00:00'",
        "p = 1 OR v > 1500.0"
      })
  void predicatesThatDoNotSelectWholePartitionsStayWithSpark(String predicate) {
    Dataset<Row> df = spark.sql("SELECT * FROM " + TABLE + " WHERE " + predicate);
    List<Row> actual = df.collectAsList();

    assertThat(actual)
        .as(predicate)
        .containsExactlyInAnyOrderElementsOf(
            sql("SELECT * FROM pfilter_expected WHERE " + predicate));
    assertThat(ScanPlans.nodeNames(df)).as(predicate).contains("FilterExec");
  }

  @Test
  void aPartitionOfOneSpecOnlyStaysWithSpark() {
    Dataset<Row> df = spark.sql("SELECT * FROM " + EVOLVED + " WHERE p = 1");

    assertThat(df.collectAsList())
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM pfilter_expected WHERE p = 1"));
    assertThat(ScanPlans.nodeNames(df)).contains("FilterExec");
  }

  @Test
  void aggregatesOverSelectedPartitionsComeFromMetadata() {
    String query = "SELECT count(*), min(id), max(id), max(ts) FROM %s WHERE p IN (2, 4)";
    Dataset<Row> df = spark.sql(String.format(query, TABLE));

    assertThat(df.collectAsList())
        .containsExactlyElementsOf(sql(String.format(query, "pfilter_expected")));
    assertThat(ScanPlans.nodeNames(df))
        .contains("LocalTableScanExec")
        .doesNotContain("BatchScanExec");
  }

  @Test
  void aLimitOverSelectedPartitionsReadsOnlyMatchingRows() {
    Dataset<Row> df = spark.sql("SELECT id, p FROM " + TABLE + " WHERE p = 3 LIMIT 4");

    List<Row> rows = df.collectAsList();
    assertThat(rows).hasSize(4).allSatisfy(row -> assertThat(row.getInt(1)).isEqualTo(3));
  }
}
