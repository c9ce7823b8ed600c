package io.floe.spark.read;

import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static io.floe.spark.read.ReadTestSupport.positionDeletes;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.sql.Date;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * COUNT(*), COUNT(col), MIN and MAX without a filter or GROUP BY are answered from file metadata
 * when it is exact for every file, without reading a data file; with delete files, truncatable
 * (string) bounds, NaN, missing statistics or a filter, the rows are scanned, and the answer is the
 * same either way.
 */
class AggregatePushDownTest extends SparkTestBase {
  private static final String TABLE = "floe.aggs.t";
  private static final String AGGREGATES =
      "SELECT count(*), count(score), min(id), max(id), min(score), max(score), min(day), max(day),"
          + " max(ratio) FROM " + TABLE;

  @BeforeAll
  static void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.aggs");
    sql(
        "CREATE TABLE %s (id BIGINT, score INT, day DATE, ratio DOUBLE, name STRING) USING iceberg",
        TABLE);
    sql(
        "INSERT INTO %s SELECT /*+ REPARTITION(3) */ id, CASE WHEN id %% 7 = 0 THEN NULL ELSE"
            + " CAST(id * 2 AS INT) END, date_add(DATE'2026-03-01', CAST(id AS INT)), id / 4.0,"
            + " concat('name-', id) FROM range(1, 301)",
        TABLE);
  }

  @AfterEach
  void resetConf() {
    spark.conf().unset("spark.floe.read.aggregate-pushdown");
  }

  @Test
  void countMinAndMaxComeFromFileMetadataWithoutReadingAFile() {
    Dataset<Row> df = spark.sql(AGGREGATES);
    List<Row> rows = df.collectAsList();

    Row expected =
        RowFactory.create(
            300L, 300L - 42, 1L, 300L, 2, 600, Date.valueOf("2026-03-02"), Date.valueOf("2026-12-26"), 75.0);
    assertThat(rows).containsExactly(expected);
    assertThat(ScanPlans.nodeNames(df)).contains("LocalTableScanExec").doesNotContain("BatchScanExec");

    spark.conf().set("spark.floe.read.aggregate-pushdown", "false");
    Dataset<Row> scanned = spark.sql(AGGREGATES);
    assertThat(scanned.collectAsList()).containsExactly(expected);
    assertThat(ScanPlans.nodeNames(scanned)).contains("BatchScanExec");
  }

  @Test
  void stringBoundsMayBeTruncatedSoTheRowsAreScanned() {
    Dataset<Row> df = spark.sql("SELECT min(name), max(name) FROM " + TABLE);
    assertThat(df.collectAsList()).containsExactly(RowFactory.create("name-1", "name-99"));
    assertThat(ScanPlans.nodeNames(df)).contains("BatchScanExec");
  }

  @Test
  void aFilterLeavesTheAggregateToSpark() {
    Dataset<Row> df = spark.sql("SELECT count(*), max(id) FROM " + TABLE + " WHERE id < 100");
    assertThat(df.collectAsList()).containsExactly(RowFactory.create(99L, 99L));
    assertThat(ScanPlans.nodeNames(df)).contains("BatchScanExec");
  }

  @Test
  void deleteFilesMakeTheCountInexactSoTheRowsAreScanned() {
    sql("CREATE TABLE floe.aggs.deleted (id BIGINT) USING iceberg TBLPROPERTIES ('format-version' = '2')");
    sql("INSERT INTO floe.aggs.deleted SELECT /*+ COALESCE(1) */ id FROM range(0, 100)");
    Table table = icebergTable(spark, "aggs.deleted");
    DataFile file = dataFiles(table).get(0);
    table.newRowDelta().addDeletes(positionDeletes(table, file, List.of(0L, 99L))).commit();

    Dataset<Row> df = spark.sql("SELECT count(*), min(id), max(id) FROM floe.aggs.deleted");
    assertThat(df.collectAsList()).containsExactly(RowFactory.create(98L, 1L, 98L));
    assertThat(ScanPlans.nodeNames(df)).contains("BatchScanExec");
  }

  @Test
  void nanHasNoBoundSoMaxOfADoubleColumnWithNanIsScanned() {
    sql("CREATE TABLE floe.aggs.nan (x DOUBLE) USING iceberg");
    sql("INSERT INTO floe.aggs.nan VALUES (1.5), (CAST('NaN' AS DOUBLE)), (-2.0)");

    Dataset<Row> df = spark.sql("SELECT min(x), max(x), count(*) FROM floe.aggs.nan");
    Row row = df.collectAsList().get(0);
    assertThat(row.getDouble(0)).isEqualTo(-2.0);
    assertThat(row.getDouble(1)).isNaN();
    assertThat(row.getLong(2)).isEqualTo(3);
    assertThat(ScanPlans.nodeNames(df)).contains("BatchScanExec");
  }

  @Test
  void withoutBoundsOnlyTheCountsComeFromMetadata() {
    sql(
        "CREATE TABLE floe.aggs.counts_only (id BIGINT) USING iceberg"
            + " TBLPROPERTIES ('write.metadata.metrics.default' = 'counts')");
    sql("INSERT INTO floe.aggs.counts_only SELECT id FROM range(0, 50)");

    Dataset<Row> counted = spark.sql("SELECT count(*), count(id) FROM floe.aggs.counts_only");
    assertThat(counted.collectAsList()).containsExactly(RowFactory.create(50L, 50L));
    assertThat(ScanPlans.nodeNames(counted)).doesNotContain("BatchScanExec");

    Dataset<Row> max = spark.sql("SELECT max(id) FROM floe.aggs.counts_only");
    assertThat(max.collectAsList()).containsExactly(RowFactory.create(49L));
    assertThat(ScanPlans.nodeNames(max)).contains("BatchScanExec");
  }

  @Test
  void anEmptyTableAndAllNullColumnsGiveSqlAnswers() {
    sql("CREATE TABLE floe.aggs.empty (id BIGINT, v INT) USING iceberg");
    Dataset<Row> empty = spark.sql("SELECT count(*), max(id) FROM floe.aggs.empty");
    assertThat(empty.collectAsList()).containsExactly(RowFactory.create(0L, null));
    assertThat(ScanPlans.nodeNames(empty)).doesNotContain("BatchScanExec");

    sql("INSERT INTO floe.aggs.empty VALUES (1, NULL), (2, NULL)");
    Dataset<Row> nulls = spark.sql("SELECT count(v), min(v), max(id) FROM floe.aggs.empty");
    assertThat(nulls.collectAsList()).containsExactly(RowFactory.create(0L, null, 2L));
    assertThat(ScanPlans.nodeNames(nulls)).doesNotContain("BatchScanExec");
  }

  @Test
  void minAndMaxOfEveryExactTypeInOneQueryComeFromMetadata() {
    String rows =
        "SELECT CAST(id AS INT) AS i, id AS l, CAST(id / 3.0 AS FLOAT) AS f, id / 7.0 AS d,"
            + " CAST(id / 8.0 AS DECIMAL(10, 3)) AS dec, date_add(DATE'2024-02-28', CAST(id AS INT)) AS dt,"
            + " timestamp_seconds(1700000000 + id * 3599) AS ts,"
            + " CAST(timestamp_seconds(1700000000 + id * 61) AS TIMESTAMP_NTZ) AS ntz, id %% 2 = 0 AS b"
            + " FROM range(-20, 80)";
    sql("CREATE TABLE floe.aggs.types USING iceberg AS " + rows);
    spark.sql(rows.replace("%%", "%")).createOrReplaceTempView("types_view");
    String aggregates =
        "SELECT count(*), min(i), max(i), min(l), max(l), min(f), max(f), min(d), max(d), min(dec),"
            + " max(dec), min(dt), max(dt), min(ts), max(ts), min(ntz), max(ntz), min(b), max(b) FROM ";

    Dataset<Row> df = spark.sql(aggregates + "floe.aggs.types");

    assertThat(df.collectAsList()).isEqualTo(spark.sql(aggregates + "types_view").collectAsList());
    assertThat(ScanPlans.nodeNames(df)).contains("LocalTableScanExec").doesNotContain("BatchScanExec");
  }

  @Test
  void groupByIdentityPartitionColumnsUnderAPartitionFilterComesFromMetadata() {
    String rows =
        "SELECT id, CASE WHEN id %% 5 = 0 THEN NULL ELSE concat('r', CAST(id %% 3 AS STRING)) END AS region,"
            + " CAST(id %% 2 AS INT) AS half, id * 1.5 AS amount FROM range(0, 90)";
    sql("CREATE TABLE floe.aggs.grouped (id BIGINT, region STRING, half INT, amount DOUBLE)"
        + " USING iceberg PARTITIONED BY (region, half)");
    sql("INSERT INTO floe.aggs.grouped " + rows);
    spark.sql(rows.replace("%%", "%")).createOrReplaceTempView("grouped_view");
    String query =
        "SELECT region, half, count(*), min(id), max(amount) FROM %s"
            + " WHERE region IS NULL OR region <> 'r2' GROUP BY region, half";

    Dataset<Row> df = spark.sql(String.format(query, "floe.aggs.grouped"));

    assertThat(ReadTestSupport.canonicalRows(df.collectAsList()))
        .hasSize(6)
        .isEqualTo(
            ReadTestSupport.canonicalRows(
                spark.sql(String.format(query, "grouped_view")).collectAsList()));
    assertThat(ScanPlans.nodeNames(df)).contains("LocalTableScanExec").doesNotContain("BatchScanExec");
    assertThat(df.queryExecution().explainString(org.apache.spark.sql.execution.ExplainMode.fromString("simple")))
        .containsPattern("LocalTableScan \\[region#\\d+, half#\\d+, COUNT\\(\\*\\) from metadata#\\d+L,"
            + " MIN\\(id\\) from metadata#\\d+L, MAX\\(amount\\) from metadata#\\d+\\]");

    Dataset<Row> byData =
        spark.sql("SELECT id %% 3, count(*) FROM floe.aggs.grouped GROUP BY id %% 3".replace("%%", "%"));
    assertThat(byData.collectAsList()).hasSize(3);
    assertThat(ScanPlans.nodeNames(byData)).contains("BatchScanExec");
    Dataset<Row> byAmount = spark.sql("SELECT amount, count(*) FROM floe.aggs.grouped GROUP BY amount");
    assertThat(byAmount.collectAsList()).hasSize(90);
    assertThat(ScanPlans.nodeNames(byAmount)).contains("BatchScanExec");
  }

  @Test
  void groupByOverAnEmptyTableGivesNoRows() {
    sql("CREATE TABLE floe.aggs.empty_grouped (id BIGINT, p INT) USING iceberg PARTITIONED BY (p)");
    Dataset<Row> df = spark.sql("SELECT p, count(*), max(id) FROM floe.aggs.empty_grouped GROUP BY p");
    assertThat(df.collectAsList()).isEmpty();
  }
}
