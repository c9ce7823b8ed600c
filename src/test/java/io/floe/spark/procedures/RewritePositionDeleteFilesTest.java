package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.commit.Committer;
import io.floe.spark.read.ReadTestSupport;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code rewrite_position_delete_files} on a format-2 table with many small position delete
 * files: one file afterwards, deletes of removed data files dropped, rows unchanged against a temp
 * view taken before; bad input.
 */
class RewritePositionDeleteFilesTest extends ProcedureTestBase {
  private static final String TABLE = "db.posdeletes";

  @BeforeEach
  void createTableWithDeletes() {
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
    sql("CREATE TABLE %s.%s (id BIGINT, data STRING) USING iceberg "
        + "TBLPROPERTIES ('format-version' = '2')", CATALOG, TABLE);
    for (int i = 0; i < 3; i++) {
      sql("INSERT INTO %s.%s SELECT /*+ REPARTITION(1) */ id, CAST(id AS STRING) "
          + "FROM range(%d, %d)", CATALOG, TABLE, i * 10, i * 10 + 10);
    }
    Table table = icebergTable(TABLE);
    List<DataFile> files = ReadTestSupport.dataFiles(table);
    for (long pos = 0; pos < 3; pos++) {
      addDeletes(files.get(0), pos);
    }
    addDeletes(files.get(1), 5L);
    addDeletes(files.get(2), 7L);
  }

  private static void addDeletes(DataFile file, long pos) {
    Table table = icebergTable(TABLE);
    DeleteFile deletes = ReadTestSupport.positionDeletes(table, file, List.of(pos));
    table.newRowDelta().addDeletes(deletes).commit();
  }

  private static List<DeleteFile> liveDeleteFiles() {
    Table table = icebergTable(TABLE);
    List<DeleteFile> deletes = new ArrayList<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile file : task.deletes()) {
          if (seen.add(file.location())) {
            deletes.add(file);
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return deletes;
  }

  private static void snapshotRowsAsView() {
    Dataset<Row> now = spark.table(CATALOG + "." + TABLE);
    spark.createDataFrame(now.collectAsList(), now.schema()).createOrReplaceTempView("expected");
  }

  private static void assertRowsEqualView() {
    String actual = CATALOG + "." + TABLE;
    assertThat(sql("SELECT * FROM %s EXCEPT ALL SELECT * FROM expected", actual)).isEmpty();
    assertThat(sql("SELECT * FROM expected EXCEPT ALL SELECT * FROM %s", actual)).isEmpty();
  }

  @Test
  void compactsSmallDeleteFilesIntoOneAndKeepsTheRows() {
    snapshotRowsAsView();
    assertThat(sql("SELECT count(*) FROM expected").get(0).getLong(0)).isEqualTo(25L);
    List<DeleteFile> before = liveDeleteFiles();
    assertThat(before).hasSize(5);
    long bytes = before.stream().mapToLong(DeleteFile::fileSizeInBytes).sum();

    Dataset<Row> result = call("rewrite_position_delete_files('%s')", TABLE);

    assertSchema(
        result.schema(),
        column("rewritten_delete_files_count", DataTypes.IntegerType, false),
        column("added_delete_files_count", DataTypes.IntegerType, false),
        column("rewritten_bytes_count", DataTypes.LongType, false),
        column("added_bytes_count", DataTypes.LongType, false));
    List<Row> rows = result.collectAsList();
    List<DeleteFile> after = liveDeleteFiles();
    assertThat(after).hasSize(1);
    assertThat(after.get(0).recordCount()).isEqualTo(5L);
    assertThat(rows).containsExactly(row(5, 1, bytes, after.get(0).fileSizeInBytes()));
    assertThat(icebergTable(TABLE).currentSnapshot().operation()).isEqualTo("replace");
    assertThat(icebergTable(TABLE).currentSnapshot().summary()).containsKey(Committer.COMMIT_ID_KEY);
    assertRowsEqualView();
  }

  @Test
  void deletesOfRemovedDataFilesAreDropped() {
    Table table = icebergTable(TABLE);
    DataFile third = ReadTestSupport.dataFiles(table).get(2);
    table.newDelete().deleteFile(third).commit();
    snapshotRowsAsView();

    call("rewrite_position_delete_files(table => '%s', options => map('rewrite-all', 'true'))",
            TABLE)
        .collectAsList();

    List<DeleteFile> after = liveDeleteFiles();
    assertThat(after).hasSize(1);
    assertThat(after.get(0).recordCount()).isEqualTo(4L);
    assertRowsEqualView();
  }

  @Test
  void badInputFailsNamingItAndChangesNothing() {
    long head = icebergTable(TABLE).currentSnapshot().snapshotId();
    assertThatThrownBy(
            () -> call("rewrite_position_delete_files(table => '%s', options => map('nope', '1'))",
                TABLE).collectAsList())
        .hasMessageStartingWith(
            "Cannot call floe.system.rewrite_position_delete_files: argument 'options' has an "
                + "unknown key 'nope'");
    assertThatThrownBy(
            () -> call("rewrite_position_delete_files(table => '%s', "
                + "options => map('min-input-files', '0'))", TABLE).collectAsList())
        .hasMessageContaining("argument 'options' is invalid: 'min-input-files' is set to 0");
    assertThat(icebergTable(TABLE).currentSnapshot().snapshotId()).isEqualTo(head);
    sql("CREATE TABLE %s.db.v3 (id BIGINT) USING iceberg TBLPROPERTIES ('format-version' = '3')",
        CATALOG);
    try {
      assertThatThrownBy(() -> call("rewrite_position_delete_files('db.v3')").collectAsList())
          .hasMessageContaining("is a format-3 table, whose deletes are deletion vectors");
    } finally {
      sql("DROP TABLE %s.db.v3", CATALOG);
    }
  }
}
