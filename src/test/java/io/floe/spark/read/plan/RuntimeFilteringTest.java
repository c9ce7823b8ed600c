package io.floe.spark.read.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.FloeScanBuilder;
import io.floe.spark.read.ScanPlans;
import io.floe.spark.read.exec.ReaderMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Dynamic partition pruning: when a join's other side is filtered, Spark hands the fact table's
 * scan a runtime filter on its partition column, and the scan drops the file tasks whose
 * partitions cannot match before it runs, for identity and transform partitions alike.
 */
class RuntimeFilteringTest extends SparkTestBase {
  private static final String BY_DAY =
      "SELECT sum(s.amount), count(*) FROM floe.dpp.sales s JOIN floe.dpp.calendar c"
          + " ON s.day = c.day WHERE c.kind = 'holiday'";
  private static final String BY_CUSTOMER =
      "SELECT sum(o.amount), count(*) FROM floe.dpp.orders o JOIN floe.dpp.customers c"
          + " ON o.customer = c.customer WHERE c.tier = 'vip'";

  @BeforeAll
  static void createTables() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.dpp");
    sql("CREATE TABLE floe.dpp.sales (id BIGINT, day DATE, amount BIGINT) USING iceberg PARTITIONED BY (day)");
    sql(
        "INSERT INTO floe.dpp.sales SELECT id, date_add(DATE'2026-01-01', CAST(id %% 10 AS INT)), id"
            + " FROM range(0, 1000)");
    sql("CREATE TABLE floe.dpp.calendar (day DATE, kind STRING) USING iceberg");
    sql(
        "INSERT INTO floe.dpp.calendar SELECT date_add(DATE'2026-01-01', CAST(id AS INT)),"
            + " CASE WHEN id IN (2, 7) THEN 'holiday' ELSE 'workday' END"
            + " FROM range(0, 10)");
    sql(
        "CREATE TABLE floe.dpp.orders (id BIGINT, customer BIGINT, amount BIGINT) USING iceberg"
            + " PARTITIONED BY (bucket(8, customer))");
    sql("INSERT INTO floe.dpp.orders SELECT id, id %% 64, id FROM range(0, 2000)");
    sql("CREATE TABLE floe.dpp.customers (customer BIGINT, tier STRING) USING iceberg");
    sql(
        "INSERT INTO floe.dpp.customers SELECT id, CASE WHEN id = 5 THEN 'vip' ELSE 'basic' END"
            + " FROM range(0, 64)");
  }

  @AfterEach
  void resetConf() {
    spark.conf().set("spark.sql.shuffle.partitions", "4");
  }

  @Test
  void aJoinFilterOnAnIdentityPartitionColumnPrunesFileTasksAtRunTime() {
    Dataset<Row> df = spark.sql(BY_DAY);
    List<Row> rows = df.collectAsList();

    long expectedSum = 0;
    for (long id = 0; id < 1000; id++) {
      if (id % 10 == 2 || id % 10 == 7) {
        expectedSum += id;
      }
    }
    assertThat(rows).containsExactly(RowFactory.create(expectedSum, 200L));
    BatchScanExec sales = factScan(df, "sales");
    assertThat(sales.runtimeFilters().isEmpty()).isFalse();
    Map<String, Long> metrics = ScanPlans.metrics(sales);
    assertThat(metrics.get(DriverMetrics.SKIPPED_DATA_FILES)).isEqualTo(8);
    assertThat(metrics.get(ReaderMetrics.FILES_READ)).isEqualTo(2);
    // ten days are more keys than groups worth reporting, so the groups are balanced ones, and
    // the two remaining files are packed again into one
    FloeScan scan = (FloeScan) sales.scan();
    assertThat(scan.layout().keyGrouped()).isFalse();
    assertThat(scan.partitions()).hasSize(2);
    assertThat(scan.readPartitions()).hasSize(1);
    assertThat(scan.readPartitions().get(0).tasks()).hasSize(2);
    assertThat(metrics.get(DriverMetrics.TASK_GROUPS)).isEqualTo(1);
  }

  @Test
  void aJoinOnAnotherColumnWorksWhenThePartitionColumnIsNotRead() {
    // Spark resolves the scan's runtime-filter columns against what the scan reads: offering the
    // unread partition column "day" failed the query before it ran
    spark.conf().set(FloeScanBuilder.DATA_COLUMN_RUNTIME_FILTERS, "true");
    Dataset<Row> df =
        spark.sql(
            "SELECT sum(s.amount), count(*) FROM floe.dpp.sales s JOIN floe.dpp.calendar c"
                + " ON s.id = datediff(c.day, DATE'2026-01-01') WHERE c.kind = 'holiday'");

    try {
      assertThat(df.collectAsList()).containsExactly(RowFactory.create(9L, 2L));
    } finally {
      spark.conf().unset(FloeScanBuilder.DATA_COLUMN_RUNTIME_FILTERS);
    }
    // the runtime filter, now offered on the data column id, never names the unread column day
    List<String> named = new ArrayList<>();
    for (Expression filter : CollectionConverters.asJava(factScan(df, "sales").runtimeFilters())) {
      for (Attribute attribute : CollectionConverters.asJava(filter.references().toSeq())) {
        named.add(attribute.name());
      }
    }
    assertThat(named).containsOnly("id");
  }

  @Test
  void aJoinFilterOnABucketedColumnPrunesTheOtherBuckets() {
    Dataset<Row> df = spark.sql(BY_CUSTOMER);
    List<Row> rows = df.collectAsList();

    long expectedSum = 0;
    long expectedCount = 0;
    for (long id = 0; id < 2000; id++) {
      if (id % 64 == 5) {
        expectedSum += id;
        expectedCount++;
      }
    }
    assertThat(rows).containsExactly(RowFactory.create(expectedSum, expectedCount));
    BatchScanExec orders = factScan(df, "orders");
    assertThat(orders.runtimeFilters().isEmpty()).isFalse();
    Map<String, Long> metrics = ScanPlans.metrics(orders);
    assertThat(metrics.get(ReaderMetrics.FILES_READ)).isEqualTo(1);
    assertThat(metrics.get(DriverMetrics.SKIPPED_DATA_FILES)).isEqualTo(7);
  }

  @Test
  void keyGroupedScansKeepOneKeyPerGroupAfterPruning() {
    // as many shuffle partitions as days make one group per day worth reporting
    spark.conf().set("spark.sql.shuffle.partitions", "16");
    Dataset<Row> df = spark.sql(BY_DAY);
    assertThat(df.collectAsList()).hasSize(1);

    BatchScanExec sales = factScan(df, "sales");
    FloeScan scan = (FloeScan) sales.scan();
    assertThat(scan.layout().keyGrouped()).isTrue();
    assertThat(scan.partitions()).hasSize(10);
    assertThat(scan.readPartitions()).hasSize(2);
    assertThat(scan.readPartitions()).allSatisfy(group -> assertThat(group.partitionKey()).isNotNull());
    Map<String, Long> metrics = ScanPlans.metrics(sales);
    assertThat(metrics.get(DriverMetrics.TASK_GROUPS)).isEqualTo(2);
    assertThat(metrics.get(ReaderMetrics.FILES_READ)).isEqualTo(2);
    assertThat(metrics.get(DriverMetrics.SKIPPED_DATA_FILES)).isEqualTo(8);
  }

  private static BatchScanExec factScan(Dataset<Row> df, String table) {
    return ScanPlans.floeScanNodes(df).stream()
        .filter(scan -> ((FloeScan) scan.scan()).tableName().endsWith("dpp." + table))
        .findFirst()
        .orElseThrow();
  }
}
