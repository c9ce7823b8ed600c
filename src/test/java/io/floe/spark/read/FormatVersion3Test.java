package io.floe.spark.read;

import static io.floe.spark.read.ReadPaths.bothPaths;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Creating format v3 tables and upgrading v2 tables to v3 with {@code ALTER TABLE ... SET
 * TBLPROPERTIES ('format-version'='3')}: the format version Iceberg's core API reports, rows that
 * stay what Spark computes over a temporary view of the same rows, and deletes after the upgrade
 * written as deletion vectors.
 */
class FormatVersion3Test extends SparkTestBase {

  @BeforeAll
  static void setUp() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.fv");
    spark.range(0, 40).selectExpr("CAST(id AS INT) AS id", "CAST(id % 4 AS STRING) AS cat")
        .createOrReplaceTempView("fv_rows");
  }

  @Test
  void createAndCreateAsSelectMakeVersion3Tables() {
    sql("CREATE TABLE floe.fv.created (id INT, cat STRING) USING iceberg "
        + "TBLPROPERTIES ('format-version'='3')");
    sql("CREATE TABLE floe.fv.ctas USING iceberg TBLPROPERTIES ('format-version'='3') "
        + "AS SELECT * FROM fv_rows");
    sql("INSERT INTO floe.fv.created SELECT * FROM fv_rows");

    for (String name : List.of("fv.created", "fv.ctas")) {
      assertThat(TableUtil.formatVersion(icebergTable(spark, name))).as(name).isEqualTo(3);
      assertThat(sql("SHOW TBLPROPERTIES floe.%s ('format-version')", name).get(0).getString(1))
          .isEqualTo("3");
      assertThat(bothPaths(spark, "SELECT * FROM floe." + name))
          .isEqualTo(canonicalRows(sql("SELECT * FROM fv_rows")));
    }
  }

  @Test
  void upgradeKeepsRowsAndLaterDeletesWriteDeletionVectors() {
    sql("CREATE TABLE floe.fv.upgraded (id INT, cat STRING) USING iceberg PARTITIONED BY (cat) "
        + "TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')");
    sql("INSERT INTO floe.fv.upgraded SELECT * FROM fv_rows");
    sql("DELETE FROM floe.fv.upgraded WHERE id %% 5 = 0");
    Table table = icebergTable(spark, "fv.upgraded");
    long snapshotBefore = table.currentSnapshot().snapshotId();
    assertThat(deleteFormats(table)).containsOnly(FileFormat.PARQUET);

    sql("ALTER TABLE floe.fv.upgraded SET TBLPROPERTIES ('format-version'='3')");

    table.refresh();
    assertThat(TableUtil.formatVersion(table)).isEqualTo(3);
    assertThat(table.currentSnapshot().snapshotId()).as("an upgrade adds no snapshot")
        .isEqualTo(snapshotBefore);
    assertThat(bothPaths(spark, "SELECT * FROM floe.fv.upgraded"))
        .isEqualTo(canonicalRows(sql("SELECT * FROM fv_rows WHERE id %% 5 <> 0")));

    sql("DELETE FROM floe.fv.upgraded WHERE id %% 3 = 0");
    table.refresh();
    assertThat(deleteFormats(table)).contains(FileFormat.PUFFIN);
    assertThat(bothPaths(spark, "SELECT * FROM floe.fv.upgraded"))
        .isEqualTo(canonicalRows(sql("SELECT * FROM fv_rows WHERE id %% 5 <> 0 AND id %% 3 <> 0")));
  }

  @Test
  void downgradeIsRefusedAndChangesNothing() {
    sql("CREATE TABLE floe.fv.nodown (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')");
    assertThatThrownBy(
            () -> sql("ALTER TABLE floe.fv.nodown SET TBLPROPERTIES ('format-version'='2')"))
        .hasStackTraceContaining("Cannot downgrade v3 table to v2");
    assertThat(TableUtil.formatVersion(icebergTable(spark, "fv.nodown"))).isEqualTo(3);
  }

  private static List<FileFormat> deleteFormats(Table table) {
    List<FileFormat> formats = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          assertThat(delete.content()).isEqualTo(FileContent.POSITION_DELETES);
          formats.add(delete.format());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return formats;
  }
}
