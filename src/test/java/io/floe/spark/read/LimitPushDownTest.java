package io.floe.spark.read;

import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static io.floe.spark.read.ReadTestSupport.positionDeletes;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.exec.ReaderMetrics;
import io.floe.spark.read.plan.DriverMetrics;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A plain {@code LIMIT n} plans only the files that surely hold n rows, so it reads fewer files
 * than a full scan and still returns exactly n rows; files with deletes count no rows toward the
 * limit, and a limit over a filter is left to Spark.
 */
class LimitPushDownTest extends SparkTestBase {
  private static final String TABLE = "floe.limits.t";
  private static final int FILES = 10;

  @BeforeAll
  static void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.limits");
    sql("CREATE TABLE %s (id BIGINT, data STRING) USING iceberg TBLPROPERTIES ('format-version' = '2')", TABLE);
    sql(
        "INSERT INTO %s SELECT /*+ REPARTITION(%d) */ id, CAST(id AS STRING) FROM range(0, 1000)",
        TABLE, FILES);
  }

  @Test
  void limitFiveReturnsFiveRowsAndReadsFewerFilesThanAFullScan() {
    Dataset<Row> limited = spark.sql("SELECT * FROM " + TABLE + " LIMIT 5");
    assertThat(limited.collectAsList()).hasSize(5);
    Dataset<Row> full = spark.sql("SELECT * FROM " + TABLE);
    assertThat(full.collectAsList()).hasSize(1000);

    Map<String, Long> limitedMetrics = scanMetrics(limited);
    Map<String, Long> fullMetrics = scanMetrics(full);
    assertThat(fullMetrics.get(ReaderMetrics.FILES_READ)).isEqualTo(FILES);
    assertThat(limitedMetrics.get(ReaderMetrics.FILES_READ)).isEqualTo(1);
    assertThat(limitedMetrics.get(DriverMetrics.SKIPPED_DATA_FILES)).isEqualTo(FILES - 1);
    assertThat(fullMetrics.get(DriverMetrics.SKIPPED_DATA_FILES)).isZero();
  }

  @Test
  void aLimitBeyondOneFilePlansAsManyFilesAsItNeeds() {
    Dataset<Row> limited = spark.sql("SELECT id FROM " + TABLE + " LIMIT 250");
    assertThat(limited.collectAsList()).hasSize(250);
    assertThat(scanMetrics(limited).get(ReaderMetrics.FILES_READ)).isEqualTo(3);
  }

  @Test
  void aLimitOverAFilterIsLeftToSpark() {
    Dataset<Row> limited = spark.sql("SELECT id FROM " + TABLE + " WHERE id >= 990 LIMIT 5");
    List<Row> rows = limited.collectAsList();
    assertThat(rows).hasSize(5).allSatisfy(row -> assertThat(row.getLong(0)).isGreaterThanOrEqualTo(990));
  }

  @Test
  void filesWithDeletesCountNoRowsTowardTheLimit() {
    sql("CREATE TABLE floe.limits.deleted (id BIGINT) USING iceberg TBLPROPERTIES ('format-version' = '2')");
    sql("INSERT INTO floe.limits.deleted SELECT /*+ REPARTITION(3) */ id FROM range(0, 300)");
    Table table = icebergTable(spark, "limits.deleted");
    DataFile first = dataFiles(table).get(0);
    table.newRowDelta()
        .addDeletes(positionDeletes(table, first, LongStream.range(0, first.recordCount() - 2).boxed().toList()))
        .commit();

    Dataset<Row> limited = spark.sql("SELECT id FROM floe.limits.deleted LIMIT 50");
    assertThat(limited.collectAsList()).hasSize(50);
    assertThat(scanMetrics(limited).get(ReaderMetrics.FILES_READ)).isEqualTo(2);
  }

  private static Map<String, Long> scanMetrics(Dataset<Row> df) {
    List<BatchScanExec> scans = ScanPlans.floeScanNodes(df);
    assertThat(scans).hasSize(1);
    return ScanPlans.metrics(scans.get(0));
  }
}
