package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.read.FloeScanBuilder;
import io.floe.spark.read.ScanPlans;
import io.floe.spark.read.exec.ReaderMetrics;
import io.floe.spark.rowlevel.DeltaPlanCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An updating merge-on-read MERGE with Floe's session extensions ({@link MergeTargetPruning}): the
 * target files whose key bounds hold none of the source's keys are not read, and the table after
 * the MERGE equals the same change computed over temp views of the same rows. Where skipping could
 * change the result (a MERGE that also acts on unmatched target rows) or the source is not
 * broadcast, every file is read and the rows are still right.
 */
class MergeTargetPruningTest {
  private static final int FILES = 6;
  private static final String TARGET_ROWS =
      "SELECT id AS k, id * 3 AS v, CAST(id %% 5 AS STRING) AS note FROM range(%d, %d, 1, 1)";
  private static final String SOURCE_ROWS =
      "SELECT k, k * 7 AS v, 'new' AS note, tag FROM VALUES"
          + " (1500L, 'hot'), (1501L, 'hot'), (4200L, 'hot'), (99999L, 'hot'), (CAST(NULL AS BIGINT), 'hot'),"
          + " (10L, 'cold'), (2500L, 'cold'), (5999L, 'cold') AS s(k, tag)";
  private static final String HOT = "(SELECT k, v, note FROM %s WHERE tag = 'hot')";
  private static final String UPSERT =
      "MERGE INTO floe.mtp.target t USING " + HOT + " s ON t.k = s.k"
          + " WHEN MATCHED THEN UPDATE SET v = s.v, note = s.note"
          + " WHEN NOT MATCHED THEN INSERT (k, v, note) VALUES (s.k, s.v, s.note)";
  private static final String UPDATE =
      "MERGE INTO floe.mtp.target t USING " + HOT + " s ON t.k = s.k"
          + " WHEN MATCHED THEN UPDATE SET v = s.v, note = s.note";
  /** The update over the temp views, by Spark's own semantics. */
  private static final String UPDATE_EXPECTED =
      "SELECT t.k, coalesce(s.v, t.v) AS v, coalesce(s.note, t.note) AS note"
          + " FROM target_view t LEFT JOIN " + HOT + " s ON t.k = s.k";
  private static final String REUSE_BROADCAST_ONLY =
      "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly";
  /** The upsert over the temp views, by Spark's own semantics. */
  private static final String UPSERT_EXPECTED =
      "SELECT t.k, coalesce(s.v, t.v) AS v, coalesce(s.note, t.note) AS note"
          + " FROM target_view t LEFT JOIN " + HOT + " s ON t.k = s.k"
          + " UNION ALL SELECT s.k, s.v, s.note FROM " + HOT + " s"
          + " LEFT ANTI JOIN target_view t ON s.k = t.k";

  private static Path warehouse;
  private static SparkSession spark;
  private final DeltaPlanCapture capture = new DeltaPlanCapture("mtp.target");

  @BeforeAll
  static void start() throws IOException {
    warehouse = Files.createTempDirectory("floe-merge-pruning");
    spark =
        ExtensionSessions.start(
            "merge-target-pruning",
            Map.of(
                "spark.sql.catalog.floe", FloeCatalog.class.getName(),
                "spark.sql.catalog.floe.type", "hadoop",
                "spark.sql.catalog.floe.warehouse", warehouse.toUri().toString(),
                FloeScanBuilder.DATA_COLUMN_RUNTIME_FILTERS, "true"));
    spark.sql("CREATE NAMESPACE floe.mtp");
    spark.sql(String.format(TARGET_ROWS, 0, FILES * 1000)).createOrReplaceTempView("target_view");
    spark.sql(SOURCE_ROWS).createOrReplaceTempView("source_view");
  }

  @AfterAll
  static void stop() throws IOException {
    ExtensionSessions.stop(spark, warehouse);
    spark = null;
  }

  @BeforeEach
  void createTables() {
    spark.sql(
        "CREATE TABLE floe.mtp.target (k BIGINT, v BIGINT, note STRING) USING iceberg"
            + " TBLPROPERTIES ('format-version'='2', 'write.merge.mode'='merge-on-read')");
    for (int file = 0; file < FILES; file++) {
      spark.sql(
          "INSERT INTO floe.mtp.target "
              + String.format(TARGET_ROWS, file * 1000, (file + 1) * 1000));
    }
    spark.sql("CREATE TABLE floe.mtp.source USING iceberg AS " + SOURCE_ROWS);
    spark.listenerManager().register(capture);
  }

  @AfterEach
  void dropTables() {
    spark.listenerManager().unregister(capture);
    spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
    spark.conf().unset(REUSE_BROADCAST_ONLY);
    spark.sql("DROP TABLE IF EXISTS floe.mtp.target PURGE");
    spark.sql("DROP TABLE IF EXISTS floe.mtp.source PURGE");
  }

  @Test
  void anUpdatingMergeReadsOnlyTheTargetFilesHoldingTheSourceKeys() throws Exception {
    List<Row> expected = rows(String.format(UPDATE_EXPECTED, "source_view"));

    spark.sql(String.format(UPDATE, "floe.mtp.source"));

    assertThat(rows("SELECT k, v, note FROM floe.mtp.target"))
        .containsExactlyInAnyOrderElementsOf(expected);
    BatchScanExec target = targetScan();
    assertThat(target.runtimeFilters().isEmpty()).isFalse();
    // keys 1500, 1501 and 4200 lie in two of the six files; 99999 and NULL in none
    assertThat(ScanPlans.metrics(target).get(ReaderMetrics.FILES_READ)).isEqualTo(2);
  }

  @Test
  void anUpsertReadsOnlyTheTargetFilesHoldingTheSourceKeysWhenSparkMayRunTheSourceTwice()
      throws Exception {
    // an upsert's outer join cannot broadcast the source (the target side must stream), so only
    // a filter that runs the source itself can prune, which Spark allows with this conf
    spark.conf().set(REUSE_BROADCAST_ONLY, "false");
    List<Row> expected = rows(String.format(UPSERT_EXPECTED, "source_view", "source_view"));

    spark.sql(String.format(UPSERT, "floe.mtp.source"));

    assertThat(rows("SELECT k, v, note FROM floe.mtp.target"))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(ScanPlans.metrics(targetScan()).get(ReaderMetrics.FILES_READ)).isEqualTo(2);
  }

  @Test
  void anUpsertWithSparksDefaultsReadsEveryFileAndGivesTheSameRows() throws Exception {
    List<Row> expected = rows(String.format(UPSERT_EXPECTED, "source_view", "source_view"));

    spark.sql(String.format(UPSERT, "floe.mtp.source"));

    assertThat(rows("SELECT k, v, note FROM floe.mtp.target"))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(ScanPlans.metrics(targetScan()).get(ReaderMetrics.FILES_READ)).isEqualTo(FILES);
  }

  @Test
  void aSourceThatIsNotBroadcastReadsEveryFileAndGivesTheSameRows() throws Exception {
    List<Row> expected = rows(String.format(UPDATE_EXPECTED, "source_view"));
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");

    spark.sql(String.format(UPDATE, "floe.mtp.source"));

    assertThat(rows("SELECT k, v, note FROM floe.mtp.target"))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(ScanPlans.metrics(targetScan()).get(ReaderMetrics.FILES_READ)).isEqualTo(FILES);
  }

  @Test
  void aMergeThatActsOnUnmatchedTargetRowsReadsEveryFile() throws Exception {
    spark.conf().set(REUSE_BROADCAST_ONLY, "false");
    List<Row> expected =
        rows(
            "SELECT t.k, coalesce(s.v, t.v + 1) AS v, coalesce(s.note, t.note) AS note"
                + " FROM target_view t LEFT JOIN (SELECT k, v, note FROM source_view WHERE tag = 'hot') s"
                + " ON t.k = s.k");

    spark.sql(
        "MERGE INTO floe.mtp.target t USING (SELECT k, v, note FROM floe.mtp.source WHERE tag = 'hot') s"
            + " ON t.k = s.k"
            + " WHEN MATCHED THEN UPDATE SET v = s.v, note = s.note"
            + " WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = t.v + 1");

    assertThat(rows("SELECT k, v, note FROM floe.mtp.target"))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(ScanPlans.metrics(targetScan()).get(ReaderMetrics.FILES_READ)).isEqualTo(FILES);
  }

  @Test
  void aTargetRowMatchedTwiceStillFailsAndChangesNothing() {
    List<Row> before = rows("SELECT k, v, note FROM floe.mtp.target");
    long snapshots = spark.sql("SELECT * FROM floe.mtp.target.snapshots").count();

    assertThatThrownBy(
            () ->
                spark.sql(
                    "MERGE INTO floe.mtp.target t USING"
                        + " (SELECT 1500L AS k, 1L AS v UNION ALL SELECT 1500L, 2L) s ON t.k = s.k"
                        + " WHEN MATCHED THEN UPDATE SET v = s.v"))
        .hasMessageContaining("MERGE_CARDINALITY_VIOLATION");

    assertThat(rows("SELECT k, v, note FROM floe.mtp.target"))
        .containsExactlyInAnyOrderElementsOf(before);
    assertThat(spark.sql("SELECT * FROM floe.mtp.target.snapshots").count()).isEqualTo(snapshots);
  }

  private BatchScanExec targetScan() throws Exception {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    return capture.targetScan();
  }

  private static List<Row> rows(String query) {
    return spark.sql(query).collectAsList();
  }
}
