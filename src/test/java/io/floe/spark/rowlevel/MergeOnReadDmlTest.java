package io.floe.spark.rowlevel;

import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import io.floe.spark.commit.Committer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DELETE, UPDATE and MERGE on merge-on-read tables, format v2 and v3, partitioned and not: each
 * leaves exactly the rows the same change computed over a Spark temporary view of the starting
 * rows leaves (NULL keys and NULL conditions included), as Floe and Iceberg's generic reader both
 * read them; no data file is rewritten; the deletes are position-delete files (v2) or deletion
 * vectors (v3), one per data file; and the snapshot records its commit id.
 */
class MergeOnReadDmlTest extends SparkTestBase {
  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.mor");
  }

  static Stream<Arguments> tables() {
    return Stream.of(
        Arguments.of(2, false), Arguments.of(2, true), Arguments.of(3, false), Arguments.of(3, true));
  }

  private static MergeOnReadTables table(String kind, int formatVersion, boolean partitioned) {
    String name = "mor." + kind + "_v" + formatVersion + (partitioned ? "_part" : "_flat");
    return MergeOnReadTables.create(spark, name, formatVersion, partitioned, Map.of());
  }

  @ParameterizedTest(name = "v{0}, partitioned {1}")
  @MethodSource("tables")
  void deleteRemovesExactlyTheMatchingRowsWithDeleteFiles(int formatVersion, boolean partitioned) {
    MergeOnReadTables t = table("del", formatVersion, partitioned);
    Set<String> filesBefore = t.dataFiles();

    // NULL ids make the condition NULL: those rows stay
    sql("DELETE FROM %s WHERE id %% 3 = 0 OR val > 990", t.table());

    t.assertRows(
        "SELECT id, dep, val FROM " + MergeOnReadTables.VIEW
            + " WHERE NOT coalesce(id % 3 = 0 OR val > 990, false)");
    assertThat(t.dataFiles()).isEqualTo(filesBefore);
    assertThat(t.assertOneDeleteFilePerDataFile()).isPositive();
    Snapshot current = t.iceberg().currentSnapshot();
    assertThat(current.operation()).isEqualTo("delete");
    assertThat(current.summary()).containsKey(Committer.COMMIT_ID_KEY);
    assertThat(current.summary().get("added-position-deletes"))
        .isEqualTo(String.valueOf(14 + 3));
  }

  @ParameterizedTest(name = "v{0}, partitioned {1}")
  @MethodSource("tables")
  void deleteWithSubqueryRemovesTheRowsItNames(int formatVersion, boolean partitioned) {
    MergeOnReadTables t = table("delsub", formatVersion, partitioned);
    sql("CREATE OR REPLACE TEMPORARY VIEW mor_doomed AS SELECT * FROM VALUES (1), (8), (33), (NULL) AS d(id)");

    sql("DELETE FROM %s WHERE id IN (SELECT id FROM mor_doomed)", t.table());

    t.assertRows(
        "SELECT id, dep, val FROM " + MergeOnReadTables.VIEW
            + " WHERE NOT coalesce(id IN (SELECT id FROM mor_doomed), false)");
    t.assertOneDeleteFilePerDataFile();
  }

  @ParameterizedTest(name = "v{0}, partitioned {1}")
  @MethodSource("tables")
  void updateChangesTheMatchingRowsIncludingThePartitionColumn(
      int formatVersion, boolean partitioned) {
    MergeOnReadTables t = table("upd", formatVersion, partitioned);
    Set<String> filesBefore = t.dataFiles();

    sql("UPDATE %s SET val = val + 1000 WHERE id < 10", t.table());
    sql("UPDATE %s SET dep = 'moved', val = -val WHERE id %% 4 = 1 OR dep IS NULL", t.table());

    t.assertRows(
        "SELECT id,"
            + " CASE WHEN coalesce(id % 4 = 1 OR dep IS NULL, false) THEN 'moved' ELSE dep END,"
            + " CASE WHEN coalesce(id % 4 = 1 OR dep IS NULL, false) THEN -v1 ELSE v1 END"
            + " FROM (SELECT id, dep, CASE WHEN coalesce(id < 10, false) THEN val + 1000 ELSE val END AS v1"
            + " FROM " + MergeOnReadTables.VIEW + ")");
    assertThat(t.dataFiles()).containsAll(filesBefore);
    assertThat(t.assertOneDeleteFilePerDataFile()).isPositive();
    assertThat(t.iceberg().currentSnapshot().operation()).isEqualTo("overwrite");
  }

  @ParameterizedTest(name = "v{0}, partitioned {1}")
  @MethodSource("tables")
  void mergeWithEveryClauseKindEqualsTheSameMergeOverTheView(
      int formatVersion, boolean partitioned) {
    MergeOnReadTables t = table("merge", formatVersion, partitioned);
    // ids 0-4 match with a negative value (deleted), 5-9 and 12 match (updated, 12 to NULL, and
    // moved to department m), 40-42 and a NULL id do not match (inserted)
    sql(
        "CREATE OR REPLACE TEMPORARY VIEW mor_source AS"
            + " SELECT CAST(id AS INT) AS id, 'm' AS dep, CAST(id - 5 AS INT) AS val FROM range(0, 10)"
            + " UNION ALL SELECT 12, 'm', NULL"
            + " UNION ALL SELECT CAST(id AS INT), 'n', CAST(id AS INT) FROM range(40, 43)"
            + " UNION ALL SELECT NULL, 'n', 5");

    sql(
        "MERGE INTO %s t USING mor_source s ON t.id = s.id"
            + " WHEN MATCHED AND s.val < 0 THEN DELETE"
            + " WHEN MATCHED THEN UPDATE SET t.val = s.val, t.dep = s.dep"
            + " WHEN NOT MATCHED THEN INSERT (id, dep, val) VALUES (s.id, s.dep, s.val)"
            + " WHEN NOT MATCHED BY SOURCE AND t.id >= 30 THEN DELETE"
            + " WHEN NOT MATCHED BY SOURCE AND t.id < 20 THEN UPDATE SET t.val = -1",
        t.table());

    String joined =
        "(SELECT t.id AS tid, t.dep AS tdep, t.val AS tval, t.present AS tp,"
            + " s.id AS sid, s.dep AS sdep, s.val AS sval, s.present AS sp"
            + " FROM (SELECT *, true AS present FROM " + MergeOnReadTables.VIEW + ") t"
            + " FULL OUTER JOIN (SELECT *, true AS present FROM mor_source) s ON t.id = s.id)";
    t.assertRows(
        "SELECT tid, sdep, sval FROM " + joined
            + " WHERE tp AND sp AND NOT coalesce(sval < 0, false)"
            + " UNION ALL SELECT sid, sdep, sval FROM " + joined + " WHERE tp IS NULL"
            + " UNION ALL SELECT tid, tdep, CASE WHEN coalesce(tid < 20, false) THEN -1 ELSE tval END"
            + " FROM " + joined + " WHERE sp IS NULL AND NOT coalesce(tid >= 30, false)");
    assertThat(t.assertOneDeleteFilePerDataFile()).isPositive();
    Map<String, String> summary = t.iceberg().currentSnapshot().summary();
    assertThat(summary).containsEntry("spark.merge-into.num-target-rows-inserted", "4");
    assertThat(summary).containsEntry("spark.merge-into.num-target-rows-matched-deleted", "5");
    assertThat(summary).containsKey(Committer.COMMIT_ID_KEY);
  }

  @ParameterizedTest(name = "v{0}, partitioned {1}")
  @MethodSource("tables")
  void mergeThatReadsTheFileColumnNeedsTheConfAndSeesEachRowsFile(
      int formatVersion, boolean partitioned) {
    MergeOnReadTables t = table("mergefile", formatVersion, partitioned);
    Dataset<Row> paths = spark.sql("SELECT id, _file AS f FROM " + t.table());
    spark.createDataFrame(paths.collectAsList(), paths.schema()).createOrReplaceTempView("mor_paths");
    String merge =
        "MERGE INTO " + t.table() + " t USING (SELECT CAST(id AS INT) AS id FROM range(3, 7)) s"
            + " ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.dep = t._file";
    long before = t.iceberg().currentSnapshot().snapshotId();

    // the row id names files by key, and Spark resolves no other metadata column in a MERGE
    assertThatThrownBy(() -> sql(merge)).hasMessageContaining("_file");
    t.iceberg().refresh();
    assertThat(t.iceberg().currentSnapshot().snapshotId()).isEqualTo(before);
    spark.conf().set(MergeFileColumn.CONF, "true");
    try {
      sql(merge);
    } finally {
      spark.conf().unset(MergeFileColumn.CONF);
    }

    t.assertRows(
        "SELECT v.id, CASE WHEN v.id BETWEEN 3 AND 6 THEN p.f ELSE v.dep END, v.val FROM "
            + MergeOnReadTables.VIEW + " v LEFT JOIN mor_paths p ON v.id = p.id");
    assertThat(t.assertOneDeleteFilePerDataFile()).isPositive();
  }

  @ParameterizedTest(name = "v{0}, partitioned {1}")
  @MethodSource("tables")
  void mergeThroughTheDataFrameApiEqualsTheSameMergeOverTheView(
      int formatVersion, boolean partitioned) throws Exception {
    MergeOnReadTables t = table("dfmerge", formatVersion, partitioned);
    spark.sql(
            "SELECT CAST(id AS INT) AS id, 'm' AS dep, CAST(-id AS INT) AS val FROM range(15, 25)")
        .createOrReplaceTempView("mor_df_source");

    spark.table("mor_df_source").as("s")
        .mergeInto(t.table(), functions.expr(t.table() + ".id = s.id"))
        .whenMatched()
        .updateAll()
        .whenNotMatched()
        .insertAll()
        .merge();

    t.assertRows(
        "SELECT id, dep, val FROM " + MergeOnReadTables.VIEW
            + " WHERE NOT coalesce(id BETWEEN 15 AND 24, false)"
            + " UNION ALL SELECT id, dep, val FROM mor_df_source");
    assertThat(t.assertOneDeleteFilePerDataFile()).isPositive();
  }

  @ParameterizedTest(name = "v{0}, partitioned {1}")
  @MethodSource("tables")
  void secondDeleteLeavesOneDeleteFilePerDataFile(int formatVersion, boolean partitioned) {
    MergeOnReadTables t = table("twice", formatVersion, partitioned);
    sql("DELETE FROM %s WHERE id %% 5 = 0", t.table());
    Table afterFirst = t.iceberg();
    long firstDeletes = totalDeletes(t);

    sql("DELETE FROM %s WHERE id %% 5 = 1", t.table());

    t.assertRows(
        "SELECT id, dep, val FROM " + MergeOnReadTables.VIEW
            + " WHERE NOT coalesce(id % 5 = 0 OR id % 5 = 1, false)");
    t.assertOneDeleteFilePerDataFile();
    // each live delete file holds both deletes' positions of its data file
    assertThat(totalDeletes(t)).isEqualTo(firstDeletes * 2);
    Map<String, String> summary = t.iceberg().currentSnapshot().summary();
    assertThat(summary.get("removed-delete-files"))
        .as("the first delete's files are replaced")
        .isNotNull();
    assertThat(afterFirst.currentSnapshot().snapshotId())
        .isEqualTo(t.iceberg().currentSnapshot().parentId());
  }

  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void deletesFollowEachDataFilesOwnSpecAfterPartitionEvolution(int formatVersion) {
    MergeOnReadTables t = table("evolved", formatVersion, false);
    t.iceberg().updateSpec().addField("dep").commit();
    sql("INSERT INTO %s VALUES (100, 'a', 1), (101, 'b', 2), (102, NULL, 3)", t.table());

    sql("DELETE FROM %s WHERE id %% 2 = 0", t.table());
    sql("UPDATE %s SET val = -val WHERE id %% 3 = 0", t.table());

    t.assertRows(
        "SELECT id, dep, CASE WHEN coalesce(id % 3 = 0, false) THEN -val ELSE val END FROM ("
            + "SELECT id, dep, val FROM " + MergeOnReadTables.VIEW
            + " UNION ALL SELECT 100, 'a', 1 UNION ALL SELECT 101, 'b', 2 UNION ALL SELECT 102, NULL, 3)"
            + " WHERE NOT coalesce(id % 2 = 0, false)");
    t.assertOneDeleteFilePerDataFile();
    Table table = t.iceberg();
    Set<Integer> specsWithDeletes = new TreeSet<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          assertThat(delete.specId()).isEqualTo(task.file().specId());
          assertThat(delete.partition().toString()).isEqualTo(task.file().partition().toString());
          specsWithDeletes.add(delete.specId());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(specsWithDeletes).containsExactly(0, 1);
  }

  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void mergeIntoAnEmptyTableInsertsAndADeleteMatchingNothingCommitsNothing(int formatVersion) {
    String table = "floe.mor.empty_v" + formatVersion;
    sql("DROP TABLE IF EXISTS %s", table);
    sql(
        "CREATE TABLE %s (id INT, dep STRING, val INT) USING iceberg PARTITIONED BY (dep)"
            + " TBLPROPERTIES ('format-version' = '%d', 'write.delete.mode' = 'merge-on-read',"
            + " 'write.merge.mode' = 'merge-on-read')",
        table, formatVersion);

    sql("DELETE FROM %s WHERE id = 1", table);
    sql(
        "MERGE INTO %s t USING (SELECT CAST(id AS INT) AS id, 'a' AS dep, 7 AS val FROM range(3)) s"
            + " ON t.id = s.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *",
        table);
    sql("DELETE FROM %s WHERE id = 99", table);

    assertThat(sql("SELECT id, dep, val FROM %s ORDER BY id", table).toString())
        .isEqualTo("[[0,a,7], [1,a,7], [2,a,7]]");
    List<Snapshot> snapshots = new ArrayList<>();
    icebergTable(spark, "mor.empty_v" + formatVersion)
        .snapshots()
        .forEach(snapshots::add);
    assertThat(snapshots).hasSize(1);
  }

  private static long totalDeletes(MergeOnReadTables t) {
    return t.deletesByDataFile().values().stream()
        .flatMap(List::stream)
        .mapToLong(delete -> delete.recordCount())
        .sum();
  }
}
