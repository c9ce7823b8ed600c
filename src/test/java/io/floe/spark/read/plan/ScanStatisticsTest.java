package io.floe.spark.read.plan;

import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static io.floe.spark.read.ReadTestSupport.positionDeletes;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.ReadTestSupport;
import io.floe.spark.read.ScanPlans;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.colstats.ColumnStatistics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a scan tells Spark's optimizer about its size, from file metadata: rows and bytes after
 * pruning, never fewer rows than there are when delete files hide some, and column statistics when
 * the optimizer uses them.
 */
class ScanStatisticsTest extends SparkTestBase {
  private static final String EVENTS = "floe.stats.events";

  @BeforeAll
  static void createTables() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.stats");
    sql(
        "CREATE TABLE %s (id BIGINT, score INT, category STRING) USING iceberg"
            + " PARTITIONED BY (category)",
        EVENTS);
    sql(
        "INSERT INTO %s SELECT id, CASE WHEN id %% 10 = 0 THEN NULL ELSE CAST(id AS INT) END,"
            + " element_at(array('a', 'b', 'c'), CAST(id %% 3 + 1 AS INT)) FROM range(0, 300)",
        EVENTS);
  }

  @AfterEach
  void resetConf() {
    spark.conf().unset("spark.sql.cbo.enabled");
    spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
  }

  @Test
  void rowCountAndSizeMatchTheTableAndFollowPruning() {
    Table table = icebergTable(spark, "stats.events");
    List<DataFile> files = dataFiles(table);
    long bytes = files.stream().mapToLong(DataFile::fileSizeInBytes).sum();

    Dataset<Row> all = spark.table(EVENTS);
    assertThat(all.queryExecution().optimizedPlan().stats().rowCount().get().longValue()).isEqualTo(300);
    // the default sizes of (BIGINT, INT, STRING) add up to 8 + 4 + 20: these small files hold less
    assertThat(bytes).isLessThan(300 * 32);
    assertThat(all.queryExecution().optimizedPlan().stats().sizeInBytes().longValue())
        .isEqualTo(300 * 32);

    Statistics pruned = floeScan(spark.sql("SELECT * FROM " + EVENTS + " WHERE category = 'b'")).estimateStatistics();
    DataFile categoryB =
        files.stream().filter(file -> "b".equals(file.partition().get(0, String.class))).findFirst().orElseThrow();
    assertThat(pruned.numRows().getAsLong()).isEqualTo(100).isEqualTo(categoryB.recordCount());
    assertThat(pruned.sizeInBytes().getAsLong()).isEqualTo(100 * 32);
  }

  @Test
  void aSmallTableIsBroadcastInAJoin() {
    sql("CREATE TABLE floe.stats.big (id BIGINT, payload STRING) USING iceberg");
    sql("INSERT INTO floe.stats.big SELECT id, sha2(CAST(id AS STRING), 512) FROM range(0, 2000)");
    sql("CREATE TABLE floe.stats.small (id BIGINT, name STRING) USING iceberg");
    sql("INSERT INTO floe.stats.small VALUES (1, 'one'), (2, 'two'), (3, 'three')");
    long threshold = 16 * 1024;
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", String.valueOf(threshold));
    assertThat(floeScan(spark.table("floe.stats.big")).estimateStatistics().sizeInBytes().getAsLong())
        .isGreaterThan(threshold);

    Dataset<Row> joined =
        spark.sql("SELECT b.id, s.name FROM floe.stats.big b JOIN floe.stats.small s ON b.id = s.id");
    List<Row> rows = joined.collectAsList();

    assertThat(ScanPlans.nodeNames(joined)).contains("BroadcastHashJoinExec", "BroadcastExchangeExec");
    assertThat(ReadTestSupport.canonicalRows(rows)).containsExactly("[1, one]", "[2, two]", "[3, three]");
  }

  @Test
  void aProjectionIsSizedByTheShareOfTheRowItReads() {
    sql("CREATE TABLE floe.stats.wide (id BIGINT, a STRING, b STRING, c STRING) USING iceberg");
    sql(
        "INSERT INTO floe.stats.wide SELECT id, sha2(CAST(id AS STRING), 512),"
            + " sha2(CAST(id AS STRING), 384), sha2(CAST(id AS STRING), 256) FROM range(0, 2000)");
    long bytes = fileBytes("stats.wide");

    Dataset<Row> narrow = spark.sql("SELECT id FROM floe.stats.wide");
    Dataset<Row> two = spark.sql("SELECT id, a FROM floe.stats.wide");

    // Spark's row sizes: 8 of overhead, 8 for a bigint, 20 for a string, so a row of id is 16 of
    // a 76-byte row; these hashes compress so little that the file bytes give the larger estimate
    assertThat(floeScan(spark.table("floe.stats.wide")).estimateStatistics().sizeInBytes().getAsLong())
        .isEqualTo(bytes);
    assertThat(narrow.queryExecution().optimizedPlan().stats().sizeInBytes().longValue())
        .isEqualTo((long) Math.ceil(bytes * 16.0 / 76))
        .isGreaterThan(2000 * 16);
    assertThat(floeScan(two).estimateStatistics().sizeInBytes().getAsLong())
        .isEqualTo((long) Math.ceil(bytes * 36.0 / 76));
    assertThat(floeScan(narrow).estimateStatistics().numRows().getAsLong()).isEqualTo(2000);
  }

  @Test
  void manyRowsInSmallFilesAreSizedByTheirRowsAndNotBroadcast() {
    // 200,000 rows of a repeated value compress to a few kilobytes per column; sized by file bytes
    // the projection would look small enough to broadcast, sized as rows it is 200,000 * (8 + 20)
    sql("CREATE TABLE floe.stats.tall (id BIGINT, kind STRING, other STRING) USING iceberg");
    sql(
        "INSERT INTO floe.stats.tall SELECT id, CASE WHEN id %% 2 = 0 THEN 'even' ELSE 'odd' END,"
            + " 'x' FROM range(0, 200000)");
    long bytes = fileBytes("stats.tall");
    long threshold = 1024 * 1024;
    assertThat(bytes).isLessThan(threshold);
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", String.valueOf(threshold));
    spark.conf().set("spark.sql.adaptive.enabled", "false");
    try {
      Dataset<Row> joined =
          spark.sql(
              "SELECT count(*) FROM floe.stats.tall t JOIN floe.stats.tall u"
                  + " ON t.id = u.id AND t.kind = u.kind");

      assertThat(
              floeScan(spark.sql("SELECT id, kind FROM floe.stats.tall"))
                  .estimateStatistics()
                  .sizeInBytes()
                  .getAsLong())
          .isEqualTo(200000L * 28);
      assertThat(joined.collectAsList().get(0).getLong(0)).isEqualTo(200000L);
      assertThat(ScanPlans.nodeNames(joined))
          .contains("SortMergeJoinExec")
          .doesNotContain("BroadcastHashJoinExec");
    } finally {
      spark.conf().unset("spark.sql.adaptive.enabled");
    }
  }

  @Test
  void withPositionDeletesTheRowCountIsNeverBelowTheRowsThereAre() {
    sql(
        "CREATE TABLE floe.stats.deleted (id BIGINT) USING iceberg TBLPROPERTIES ('format-version' = '2')");
    sql("INSERT INTO floe.stats.deleted SELECT /*+ COALESCE(1) */ id FROM range(0, 100)");
    Table table = icebergTable(spark, "stats.deleted");
    DataFile file = dataFiles(table).get(0);
    table.newRowDelta()
        .addDeletes(positionDeletes(table, file, LongStream.range(0, 30).boxed().toList()))
        .commit();

    Dataset<Row> df = spark.table("floe.stats.deleted");
    assertThat(df.count()).isEqualTo(70);
    long reported = df.queryExecution().optimizedPlan().stats().rowCount().get().longValue();
    assertThat(reported).isGreaterThanOrEqualTo(70).isEqualTo(100);
  }

  @Test
  void columnStatisticsComeFromFileMetadataWhenTheOptimizerUsesThem() {
    spark.conf().set("spark.sql.cbo.enabled", "true");
    Dataset<Row> df = spark.table(EVENTS);
    Map<NamedReference, ColumnStatistics> columns = floeScan(df).estimateStatistics().columnStats();

    ColumnStatistics score = columns.get(Expressions.column("score"));
    assertThat(score.nullCount().getAsLong()).isEqualTo(30);
    assertThat(score.min()).contains(1);
    assertThat(score.max()).contains(299);
    ColumnStatistics id = columns.get(Expressions.column("id"));
    assertThat(id.nullCount().getAsLong()).isZero();
    assertThat(id.min()).contains(0L);
    assertThat(id.max()).contains(299L);
    assertThat(columns.get(Expressions.column("category")).nullCount().getAsLong()).isZero();
    assertThat(df.queryExecution().optimizedPlan().stats().attributeStats().isEmpty()).isFalse();
    assertThat(sql("SELECT count(*) FROM %s WHERE score > 250", EVENTS)).containsExactly(RowFactory.create(45L));
  }

  /** The bytes of the data files of {@code table} (namespace.name in catalog floe). */
  private static long fileBytes(String table) {
    return dataFiles(icebergTable(spark, table)).stream().mapToLong(DataFile::fileSizeInBytes).sum();
  }
}
