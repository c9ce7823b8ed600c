package io.floe.spark.read;

import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.exec.ReaderMetrics;
import io.floe.spark.read.plan.DriverMetrics;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * After a query, the scan node's metrics show what the driver planned (planning time, task groups,
 * data files skipped by pruning) and what the readers read (files, bytes, row groups); EXPLAIN
 * shows the snapshot, the pushed filters and the number of groups.
 */
class ScanMetricsTest extends SparkTestBase {
  private static final String TABLE = "floe.metrics.t";

  @BeforeAll
  static void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.metrics");
    sql("CREATE TABLE %s (id BIGINT, category STRING) USING iceberg PARTITIONED BY (category)", TABLE);
    sql(
        "INSERT INTO %s SELECT id, element_at(array('a', 'b', 'c', 'd'), CAST(id %% 4 + 1 AS INT))"
            + " FROM range(0, 400)",
        TABLE);
  }

  @Test
  void theScanNodeShowsDriverAndReaderMetricsAfterAQuery() {
    Dataset<Row> df = spark.sql("SELECT id FROM " + TABLE + " WHERE category IN ('a', 'b')");
    assertThat(df.collectAsList()).hasSize(200);

    List<BatchScanExec> scans = ScanPlans.floeScanNodes(df);
    assertThat(scans).hasSize(1);
    Map<String, Long> metrics = ScanPlans.metrics(scans.get(0));
    FloeScan scan = (FloeScan) scans.get(0).scan();
    assertThat(metrics.get(DriverMetrics.PLANNING_TIME)).isGreaterThanOrEqualTo(0);
    assertThat(metrics.get(DriverMetrics.TASK_GROUPS)).isEqualTo(scan.readPartitions().size()).isPositive();
    assertThat(metrics.get(DriverMetrics.SKIPPED_DATA_FILES)).isEqualTo(2);
    assertThat(metrics.get(ReaderMetrics.FILES_READ)).isEqualTo(2);
    assertThat(metrics).containsKey(ReaderMetrics.ROW_GROUPS_READ);
    long bytes =
        ReadTestSupport.dataFiles(icebergTable(spark, "metrics.t")).stream()
            .filter(file -> List.of("a", "b").contains(file.partition().get(0, String.class)))
            .mapToLong(file -> file.fileSizeInBytes())
            .sum();
    assertThat(metrics.get(ReaderMetrics.BYTES_READ)).isPositive().isLessThanOrEqualTo(bytes);
  }

  @Test
  void explainShowsTheSnapshotThePushedFiltersAndTheNumberOfGroups() {
    long snapshot = icebergTable(spark, "metrics.t").currentSnapshot().snapshotId();
    String plan =
        sql("EXPLAIN SELECT id FROM %s WHERE category = 'c' AND id > 10", TABLE).get(0).getString(0);

    assertThat(plan)
        .contains("snapshot=" + snapshot)
        .contains("filters=")
        .contains("category")
        .contains("groups=1");
  }
}
