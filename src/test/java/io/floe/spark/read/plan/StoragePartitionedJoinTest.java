package io.floe.spark.read.plan;

import static io.floe.spark.read.ReadTestSupport.floeScan;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ReadTestSupport;
import io.floe.spark.read.ScanPlans;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.connector.read.partitioning.KeyGroupedPartitioning;
import org.apache.spark.sql.connector.read.partitioning.UnknownPartitioning;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tables partitioned the same way join without a shuffle: each scan reports a key-grouped
 * partitioning when every task group holds one partition key, so Spark's storage-partitioned join
 * lines the groups of both sides up. Turned off by a read option, the same join shuffles and gives
 * the same rows.
 */
class StoragePartitionedJoinTest extends SparkTestBase {
  private static final String JOIN_BY_ID =
      "SELECT o.id, o.amount, c.name FROM floe.spj.orders o JOIN floe.spj.customers c ON o.id = c.id";

  @BeforeAll
  static void createTables() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.spj");
    sql(
        "CREATE TABLE floe.spj.orders (id BIGINT, amount BIGINT) USING iceberg"
            + " PARTITIONED BY (bucket(4, id))");
    sql(
        "CREATE TABLE floe.spj.customers (id BIGINT, name STRING) USING iceberg"
            + " PARTITIONED BY (bucket(4, id))");
    sql("INSERT INTO floe.spj.orders SELECT id %% 50, id FROM range(0, 400)");
    sql("INSERT INTO floe.spj.orders SELECT id %% 50, id FROM range(400, 600)");
    sql("INSERT INTO floe.spj.customers SELECT id, concat('c', id) FROM range(0, 40)");
    sql(
        "CREATE TABLE floe.spj.sales (region STRING, amount BIGINT) USING iceberg"
            + " PARTITIONED BY (region)");
    sql(
        "CREATE TABLE floe.spj.regions (region STRING, manager STRING) USING iceberg"
            + " PARTITIONED BY (region)");
    sql("INSERT INTO floe.spj.sales SELECT element_at(array('n', 's', 'e'), CAST(id %% 3 + 1 AS INT)), id"
        + " FROM range(0, 300)");
    sql("INSERT INTO floe.spj.regions VALUES ('n', 'ann'), ('s', 'sam'), ('w', 'wes')");
  }

  @BeforeEach
  void preferSortMergeJoins() {
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
  }

  @AfterEach
  void resetConf() {
    spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
    spark.conf().unset("spark.floe.read.report-partitioning");
  }

  @Test
  void bucketedTablesJoinOnTheBucketColumnWithoutAShuffle() {
    Dataset<Row> joined = spark.sql(JOIN_BY_ID);
    List<Row> rows = joined.collectAsList();

    assertThat(ScanPlans.nodeNames(joined)).contains("SortMergeJoinExec").doesNotContain("ShuffleExchangeExec");
    assertThat(rows).hasSize(40 * 12);
    assertThat(ReadTestSupport.canonicalRows(rows)).isEqualTo(expectedJoinRows());
    FloeScan orders = floeScan(spark.table("floe.spj.orders"));
    assertThat(orders.outputPartitioning()).isInstanceOf(KeyGroupedPartitioning.class);
    assertThat(((KeyGroupedPartitioning) orders.outputPartitioning()).keys()[0].describe())
        .isEqualTo("bucket(4, id)");
    assertThat(orders.partitions()).allSatisfy(group -> assertThat(group.partitionKey()).isNotNull());
    assertThat(orders.description()).contains("partitioning=[bucket(4, id)]");
  }

  @Test
  void turnedOffTheSameJoinShufflesAndGivesTheSameRows() {
    spark.conf().set("spark.floe.read.report-partitioning", "false");
    Dataset<Row> joined = spark.sql(JOIN_BY_ID);
    List<Row> rows = joined.collectAsList();

    assertThat(ScanPlans.nodeNames(joined)).contains("SortMergeJoinExec", "ShuffleExchangeExec");
    assertThat(ReadTestSupport.canonicalRows(rows)).isEqualTo(expectedJoinRows());
    FloeScan orders = floeScan(spark.table("floe.spj.orders"));
    assertThat(orders.outputPartitioning()).isInstanceOf(UnknownPartitioning.class);
    assertThat(orders.partitions()).allSatisfy(group -> assertThat(group.partitionKey()).isNull());
  }

  @Test
  void theReadOptionTurnsItOffForOneScan() {
    Dataset<Row> orders = spark.read().option("report-partitioning", "false").table("floe.spj.orders");
    Dataset<Row> customers = spark.table("floe.spj.customers");
    Dataset<Row> joined = orders.join(customers, "id");
    List<Row> rows = joined.collectAsList();

    assertThat(ScanPlans.nodeNames(joined)).contains("ShuffleExchangeExec");
    assertThat(rows).hasSize(40 * 12);
  }

  @Test
  void identityPartitionedTablesJoinWithoutAShuffleEvenWithKeysMissingOnOneSide() {
    Dataset<Row> joined =
        spark.sql(
            "SELECT s.region, count(*), max(r.manager) FROM floe.spj.sales s"
                + " JOIN floe.spj.regions r ON s.region = r.region GROUP BY s.region");
    List<Row> rows = joined.collectAsList();

    assertThat(ScanPlans.nodeNames(joined)).doesNotContain("ShuffleExchangeExec");
    assertThat(ReadTestSupport.canonicalRows(rows)).containsExactly("[n, 100, ann]", "[s, 100, sam]");
  }

  @Test
  void aBucketedTableReadWholeStillReturnsEveryRowOnce() {
    assertThat(sql("SELECT count(*), count(DISTINCT amount), sum(amount) FROM floe.spj.orders"))
        .containsExactly(RowFactory.create(600L, 600L, 599L * 600 / 2));
  }

  @Test
  void tablesPartitionedByDaysJoinOnTheTimestampWithoutAShuffle() {
    sql("CREATE TABLE floe.spj.visits (ts TIMESTAMP, page STRING) USING iceberg PARTITIONED BY (days(ts))");
    sql("CREATE TABLE floe.spj.clicks (ts TIMESTAMP, button STRING) USING iceberg PARTITIONED BY (days(ts))");
    String visits =
        "SELECT timestamp_seconds(1704067200 + (id %% 8) * 43200) AS ts, concat('p', id) AS page"
            + " FROM range(0, 60)";
    String clicks =
        "SELECT timestamp_seconds(1704067200 + (id %% 6) * 43200) AS ts, concat('b', id) AS button"
            + " FROM range(0, 45)";
    sql("INSERT INTO floe.spj.visits " + visits);
    sql("INSERT INTO floe.spj.clicks " + clicks);
    spark.sql(visits.replace("%%", "%")).createOrReplaceTempView("visits_view");
    spark.sql(clicks.replace("%%", "%")).createOrReplaceTempView("clicks_view");

    Dataset<Row> joined =
        spark.sql(
            "SELECT v.ts, v.page, c.button FROM floe.spj.visits v JOIN floe.spj.clicks c ON v.ts = c.ts");
    List<Row> rows = joined.collectAsList();

    assertThat(exchanges(joined)).isZero();
    assertThat(((KeyGroupedPartitioning) floeScan(spark.table("floe.spj.visits")).outputPartitioning())
            .keys()[0].describe())
        .isEqualTo("days(ts)");
    assertThat(ReadTestSupport.canonicalRows(rows))
        .isNotEmpty()
        .isEqualTo(
            ReadTestSupport.canonicalRows(
                spark.sql(
                        "SELECT v.ts, v.page, c.button FROM visits_view v JOIN clicks_view c ON v.ts = c.ts")
                    .collectAsList()));
  }

  /**
   * Spark 4.1 cannot cluster by {@code truncate(width, c)} (two leaves), so such a table reports no
   * key grouping, and its join shuffles and gives the right rows.
   */
  @Test
  void tablesPartitionedByTruncateReportNoKeysAndJoinCorrectly() {
    sql("CREATE TABLE floe.spj.words (w STRING, n BIGINT) USING iceberg PARTITIONED BY (truncate(2, w))");
    sql("CREATE TABLE floe.spj.glosses (w STRING, g STRING) USING iceberg PARTITIONED BY (truncate(2, w))");
    // three prefixes of two characters, so three partition keys on each side
    String words =
        "SELECT concat(element_at(array('aa', 'ab', 'ba'), CAST(id %% 3 + 1 AS INT)), CAST(id %% 7 AS STRING))"
            + " AS w, id AS n FROM range(0, 100)";
    String glosses =
        "SELECT concat(element_at(array('aa', 'ab', 'bb'), CAST(id %% 3 + 1 AS INT)), CAST(id %% 5 AS STRING))"
            + " AS w, concat('g', id) AS g FROM range(0, 15)";
    sql("INSERT INTO floe.spj.words " + words);
    sql("INSERT INTO floe.spj.glosses " + glosses);

    Dataset<Row> joined =
        spark.sql("SELECT a.w, a.n, b.g FROM floe.spj.words a JOIN floe.spj.glosses b ON a.w = b.w");
    List<Row> rows = joined.collectAsList();

    assertThat(floeScan(spark.table("floe.spj.words")).outputPartitioning())
        .isInstanceOf(UnknownPartitioning.class);
    assertThat(ReadTestSupport.canonicalRows(rows))
        .isNotEmpty()
        .isEqualTo(
            ReadTestSupport.canonicalRows(
                spark.sql(
                        "SELECT a.w, a.n, b.g FROM (" + words.replace("%%", "%") + ") a JOIN ("
                            + glosses.replace("%%", "%") + ") b ON a.w = b.w")
                    .collectAsList()));
  }

  @Test
  void bucketsOfDifferentCountsJoinWithoutAShuffleWhenSparkMayReduceThem() {
    sql("CREATE TABLE floe.spj.orders8 (id BIGINT, amount BIGINT) USING iceberg PARTITIONED BY (bucket(8, id))");
    sql("INSERT INTO floe.spj.orders8 SELECT id %% 50, id FROM range(0, 600)");
    String query =
        "SELECT o.id, o.amount, c.name FROM floe.spj.orders8 o JOIN floe.spj.customers c ON o.id = c.id";
    try {
      // eight key groups on one side: let a join use as many partitions
      spark.conf().set("spark.sql.shuffle.partitions", "8");
      spark.conf().set("spark.sql.sources.v2.bucketing.allowCompatibleTransforms.enabled", "true");
      Dataset<Row> joined = spark.sql(query);
      List<Row> rows = joined.collectAsList();

      assertThat(exchanges(joined)).isZero();
      assertThat(ReadTestSupport.canonicalRows(rows)).isEqualTo(expectedJoinRows());
    } finally {
      spark.conf().set("spark.sql.shuffle.partitions", "4");
      spark.conf().unset("spark.sql.sources.v2.bucketing.allowCompatibleTransforms.enabled");
    }
    Dataset<Row> shuffled = spark.sql(query);
    assertThat(ReadTestSupport.canonicalRows(shuffled.collectAsList())).isEqualTo(expectedJoinRows());
  }

  @Test
  void aTableWhoseSpecEvolvedStillGroupsByWhatItsSpecsShare() {
    sql("CREATE TABLE floe.spj.evolved (id BIGINT, amount BIGINT, ts TIMESTAMP) USING iceberg"
        + " PARTITIONED BY (bucket(4, id))");
    sql("INSERT INTO floe.spj.evolved SELECT id %% 50, id, timestamp_seconds(1704067200 + id * 3600)"
        + " FROM range(0, 300)");
    ReadTestSupport.icebergTable(spark, "spj.evolved").updateSpec().addField(
        org.apache.iceberg.expressions.Expressions.day("ts")).commit();
    sql("INSERT INTO floe.spj.evolved SELECT id %% 50, id, timestamp_seconds(1704067200 + id * 3600)"
        + " FROM range(300, 600)");

    Dataset<Row> joined =
        spark.sql(
            "SELECT o.id, o.amount, c.name FROM floe.spj.evolved o JOIN floe.spj.customers c ON o.id = c.id");
    List<Row> rows = joined.collectAsList();

    assertThat(exchanges(joined)).isZero();
    assertThat(ReadTestSupport.canonicalRows(rows)).isEqualTo(expectedJoinRows());
  }

  @Test
  void anAggregateGroupedByTheBucketColumnNeedsNoShuffle() {
    Dataset<Row> grouped =
        spark.sql("SELECT id, count(*), sum(amount) FROM floe.spj.orders GROUP BY id");
    List<Row> rows = grouped.collectAsList();

    assertThat(exchanges(grouped)).isZero();
    List<Row> expected = new ArrayList<>();
    for (long id = 0; id < 50; id++) {
      long count = 0;
      long sum = 0;
      for (long amount = id; amount < 600; amount += 50) {
        count++;
        sum += amount;
      }
      expected.add(RowFactory.create(id, count, sum));
    }
    assertThat(ReadTestSupport.canonicalRows(rows)).isEqualTo(ReadTestSupport.canonicalRows(expected));
  }

  private static long exchanges(Dataset<Row> df) {
    return ScanPlans.nodeNames(df).stream().filter(name -> name.endsWith("ExchangeExec")).count();
  }

  private static List<String> expectedJoinRows() {
    List<Row> rows = new ArrayList<>();
    for (long amount = 0; amount < 600; amount++) {
      long id = amount % 50;
      if (id < 40) {
        rows.add(RowFactory.create(id, amount, "c" + id));
      }
    }
    return ReadTestSupport.canonicalRows(rows);
  }
}
