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
