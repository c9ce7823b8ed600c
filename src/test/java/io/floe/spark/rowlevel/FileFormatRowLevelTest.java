package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.catalog.TestCatalog;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * DELETE and UPDATE, copy-on-write and merge-on-read, on tables whose data files are ORC or Avro:
 * the rows left are those Spark computes over a view of the same rows, every data file the table
 * keeps is in the table's format, and merge-on-read position-delete files are in the delete format
 * ({@code write.delete.format.default}, else the data format).
 */
class FileFormatRowLevelTest extends CatalogTestBase {

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  @BeforeAll
  void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
  }

  @AfterEach
  void dropTable() {
    sql("DROP TABLE IF EXISTS floe.db.dml");
  }

  @ParameterizedTest(name = "data {0}, deletes {1}, {2}")
  @CsvSource({
    "orc, orc, copy-on-write",
    "avro, avro, copy-on-write",
    "orc, orc, merge-on-read",
    "avro, avro, merge-on-read",
    "orc, avro, merge-on-read",
    "avro, parquet, merge-on-read"
  })
  void deleteAndUpdateLeaveTheRowsSparkComputes(String data, String deletes, String mode) {
    sql(
        "CREATE TABLE floe.db.dml (id BIGINT, cat STRING, v DOUBLE) USING iceberg PARTITIONED BY (cat)"
            + " TBLPROPERTIES ('format-version' = '2', 'write.format.default' = '%s',"
            + " 'write.delete.format.default' = '%s', 'write.delete.mode' = '%s',"
            + " 'write.update.mode' = '%s')",
        data, deletes, mode, mode);
    String source =
        "SELECT id, CASE id %% 3 WHEN 0 THEN 'a' WHEN 1 THEN 'b' ELSE 'c' END AS cat,"
            + " CAST(id AS DOUBLE) / 4 AS v FROM range(60)";
    spark.sql(String.format(source)).createOrReplaceTempView("dml_rows");
    sql("INSERT INTO floe.db.dml SELECT * FROM dml_rows");

    sql("DELETE FROM floe.db.dml WHERE id %% 4 = 0 OR (cat = 'b' AND v > 10)");
    sql("UPDATE floe.db.dml SET v = v + 100, cat = 'a' WHERE id > 40 AND cat <> 'a'");

    String expected =
        "SELECT id, IF(id > 40 AND cat <> 'a', 'a', cat) AS cat,"
            + " IF(id > 40 AND cat <> 'a', v + 100, v) AS v FROM dml_rows"
            + " WHERE NOT (id %% 4 = 0 OR (cat = 'b' AND v > 10))";
    assertThat(sql("SELECT * FROM floe.db.dml ORDER BY id"))
        .containsExactlyElementsOf(sql("SELECT * FROM (" + expected + ") ORDER BY id"));
    assertThat(sql("SELECT id, v FROM floe.db.dml WHERE cat = 'a' AND v > 5 ORDER BY id"))
        .containsExactlyElementsOf(
            sql("SELECT id, v FROM (" + expected + ") WHERE cat = 'a' AND v > 5 ORDER BY id"));

    Table table = icebergTable("db.dml");
    List<FileFormat> dataFormats = new ArrayList<>();
    List<DeleteFile> deleteFiles = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        dataFormats.add(task.file().format());
        deleteFiles.addAll(task.deletes());
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(dataFormats).isNotEmpty().containsOnly(FileFormat.fromString(data));
    if (mode.equals("merge-on-read")) {
      assertThat(deleteFiles)
          .isNotEmpty()
          .allSatisfy(file -> assertThat(file.format()).isEqualTo(FileFormat.fromString(deletes)));
    } else {
      assertThat(deleteFiles).isEmpty();
    }
  }
}
