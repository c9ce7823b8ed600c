package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.catalog.TestCatalog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;

/**
 * How often a copy-on-write DELETE or UPDATE plans the table's manifests, as the table's metrics
 * reporter sees it (one scan report per planning pass): once, for the operation's scan, planned
 * with the condition; the regular scan of Spark's group filter, which finds the files holding a
 * matching row, reads the same snapshot with the same condition and takes that plan instead of
 * planning again. The pass reads no manifest the condition rules out, the group filter still
 * narrows the rewrite to the files holding a matching row, and the rows left are Spark's answer
 * over a view of the same rows.
 */
class CopyOnWritePlanningTest extends RowLevelTestBase {

  @Override
  protected Map<String, String> catalogOptions(Path warehouse) {
    Map<String, String> options = new HashMap<>(TestCatalog.HADOOP.options(warehouse));
    options.put("metrics-reporter-impl", Reports.class.getName());
    return options;
  }

  /** Four inserts, one partition each: four manifests, which partition summaries tell apart. */
  private static void createFourManifests() {
    create(
        "id INT, p INT, data STRING",
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version'='2')",
        "(1, 0, 'a'), (2, 0, 'b'), (3, 0, 'c')",
        "(4, 1, 'd'), (5, 1, 'e'), (6, 1, 'f')",
        "(7, 2, 'g'), (8, 2, 'h'), (9, 2, 'i')",
        "(10, 3, 'j'), (11, 3, 'k'), (12, 3, 'l')");
  }

  @Test
  void aDeletePlansOnceForItsScanAndItsGroupFilterReadingOnlyMatchingManifests() {
    createFourManifests();
    long readSnapshot = current().snapshotId();

    List<ScanReport> scans = scansOf("DELETE FROM " + TABLE + " WHERE p = 1 AND id % 2 = 0");

    assertTableIs("SELECT * FROM v WHERE NOT (p = 1 AND id % 2 = 0)");
    assertThat(scans).hasSize(1);
    assertThat(scans).allSatisfy(scan -> assertThat(scan.snapshotId()).isEqualTo(readSnapshot));
    assertThat(scans)
        .allSatisfy(
            scan -> {
              assertThat(scan.scanMetrics().totalDataManifests().value()).isEqualTo(4);
              assertThat(scan.scanMetrics().scannedDataManifests().value()).isEqualTo(1);
              assertThat(scan.scanMetrics().resultDataFiles().value()).isEqualTo(1);
            });
  }

  @Test
  void anUpdatePlansOnceAndRewritesOnlyTheMatchingFile() {
    createFourManifests();
    Table before = icebergTable("db.t");
    int filesBefore = liveDataFiles().size();

    List<ScanReport> scans = scansOf("UPDATE " + TABLE + " SET data = 'z' WHERE p = 2 AND id > 7");

    assertTableIs(
        "SELECT id, p, CASE WHEN p = 2 AND id > 7 THEN 'z' ELSE data END FROM v");
    assertThat(scans).hasSize(1);
    assertThat(scans)
        .allSatisfy(scan -> assertThat(scan.scanMetrics().scannedDataManifests().value()).isEqualTo(1));
    assertThat(current().parentId()).isEqualTo(before.currentSnapshot().snapshotId());
    assertThat(current().summary()).containsEntry("deleted-data-files", "1").containsEntry("added-data-files", "1");
    assertThat(liveDataFiles()).hasSize(filesBefore);
  }

  @Test
  void theGroupFilterNarrowsTheRewriteToTheFilesWithAMatchingRow() {
    // two files in partition 1; only one holds a row the condition matches, which the file
    // metrics of the shared plan cannot tell apart from the other (id % 2 = 0)
    createFourManifests();
    sql("INSERT INTO " + TABLE + " VALUES (13, 1, 'm'), (15, 1, 'o')");
    view("v", TABLE);

    List<ScanReport> scans = scansOf("DELETE FROM " + TABLE + " WHERE p = 1 AND id % 2 = 0");

    assertTableIs("SELECT * FROM v WHERE NOT (p = 1 AND id % 2 = 0)");
    assertThat(scans).hasSize(1);
    assertThat(scans.get(0).scanMetrics().resultDataFiles().value()).isEqualTo(2);
    // the file of 13 and 15 stays: only the file holding 4 and 6 is rewritten
    assertThat(current().summary())
        .containsEntry("deleted-data-files", "1")
        .containsEntry("added-data-files", "1");
  }

  @Test
  void withoutTheGroupFilterTheOperationStillPlansOnceAndRewritesEveryCandidateFile() {
    createFourManifests();
    sql("INSERT INTO " + TABLE + " VALUES (13, 1, 'm'), (15, 1, 'o')");
    view("v", TABLE);
    spark.conf().set("spark.sql.optimizer.runtime.rowLevelOperationGroupFilter.enabled", "false");
    List<ScanReport> scans;
    try {
      scans = scansOf("DELETE FROM " + TABLE + " WHERE p = 1 AND id % 2 = 0");
    } finally {
      spark.conf().unset("spark.sql.optimizer.runtime.rowLevelOperationGroupFilter.enabled");
    }

    assertTableIs("SELECT * FROM v WHERE NOT (p = 1 AND id % 2 = 0)");
    assertThat(scans).hasSize(1);
    assertThat(current().summary()).containsEntry("deleted-data-files", "2");
  }

  @Test
  void rowGroupsAreNotSkippedInTheFilesTheScanCopies() throws IOException {
    // one file of many row groups: the condition matches rows of the last one only, and the rows
    // of every other row group must be copied into the new file
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE " + TABLE + " (id BIGINT, data STRING) USING iceberg TBLPROPERTIES ("
        + "'format-version'='2', 'write.parquet.row-group-size-bytes'='1024', "
        + "'write.parquet.page-size-bytes'='512')");
    sql("INSERT INTO " + TABLE + " SELECT /*+ COALESCE(1) */ id, repeat('x', 40) FROM range(0, 5000) ORDER BY id");
    view("v", TABLE);
    assertThat(liveDataFiles()).hasSize(1);
    assertThat(rowGroups(liveDataFiles().get(0).location())).isGreaterThan(3);

    sql("DELETE FROM " + TABLE + " WHERE id >= 4990");

    assertTableIs("SELECT * FROM v WHERE id < 4990");
  }

  private static int rowGroups(String location) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(location), new Configuration()))) {
      return reader.getFooter().getBlocks().size();
    }
  }

  /** The scan reports of {@code db.t} while the statement runs. */
  private static List<ScanReport> scansOf(String statement) {
    Reports.RECEIVED.clear();
    sql(statement);
    return Reports.RECEIVED.stream()
        .filter(ScanReport.class::isInstance)
        .map(ScanReport.class::cast)
        .filter(scan -> scan.tableName().endsWith("db.t"))
        .toList();
  }

  /** Collects the reports of the catalog's tables (Iceberg creates it by name, once per catalog). */
  public static class Reports implements MetricsReporter {
    static final List<MetricsReport> RECEIVED = new CopyOnWriteArrayList<>();

    @Override
    public void report(MetricsReport report) {
      RECEIVED.add(report);
    }
  }
}
