package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.read.exec.FileKeyColumn;
import java.util.List;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Copy-on-write DELETE, UPDATE and MERGE on format v2 and v3 tables, partitioned and not, each
 * compared with the same change computed by Spark over a temporary view of the same rows.
 */
class CopyOnWriteTest extends RowLevelTestBase {
  private static final String COLUMNS = "id BIGINT, data INT, p STRING";
  private static final String[] ROWS = {
    "(1, 10, 'a'), (2, NULL, 'a'), (3, 30, 'b'), (4, 40, NULL)",
    "(5, 50, 'a'), (6, 60, 'b'), (7, NULL, 'b'), (8, 80, 'c')",
    "(9, 90, 'c'), (10, 100, 'a'), (NULL, 110, 'b'), (12, 120, NULL)"
  };

  static List<Arguments> layouts() {
    return List.of(
        Arguments.of("2", ""),
        Arguments.of("2", "PARTITIONED BY (p)"),
        Arguments.of("3", ""),
        Arguments.of("3", "PARTITIONED BY (p)"));
  }

  private static void createTable(String version, String partitioning) {
    create(COLUMNS, partitioning + " TBLPROPERTIES ('format-version'='" + version + "')", ROWS);
  }

  @ParameterizedTest(name = "v{0} {1}")
  @MethodSource("layouts")
  void deleteByRowsKeepsRowsWhoseConditionIsNull(String version, String partitioning) {
    createTable(version, partitioning);
    long before = current().snapshotId();

    sql("DELETE FROM " + TABLE + " WHERE data > 45");

    assertTableIs("SELECT * FROM v WHERE (data > 45) IS NOT TRUE");
    Snapshot snapshot = current();
    assertThat(snapshot.parentId()).isEqualTo(before);
    assertThat(snapshot.summary()).containsKey("floe.commit-id");
    assertThat(snapshot.operation()).isIn(DataOperations.OVERWRITE, DataOperations.DELETE);
    assertThat(snapshot.summary())
        .containsKeys(SnapshotSummary.DELETED_FILES_PROP, SnapshotSummary.DELETED_RECORDS_PROP);
  }

  @ParameterizedTest(name = "v{0} {1}")
  @MethodSource("layouts")
  void updateChangesMatchingRowsAndCopiesTheRest(String version, String partitioning) {
    createTable(version, partitioning);

    sql("UPDATE " + TABLE + " SET data = data + 1, p = 'z' WHERE id % 3 = 0 OR data IS NULL");

    assertTableIs(
        "SELECT id, CASE WHEN (id % 3 = 0 OR data IS NULL) IS TRUE THEN data + 1 ELSE data END,"
            + " CASE WHEN (id % 3 = 0 OR data IS NULL) IS TRUE THEN 'z' ELSE p END FROM v");
  }

  /** The source of the MERGE and subquery cases: matches, misses, a NULL key, a delete marker. */
  private static void createSource() {
    spark.sql(
            "SELECT * FROM VALUES (1L, 1000, 'a', 'u'), (3L, 3000, 'b', 'd'), (6L, 6000, 'x', 'u'),"
                + " (20L, 2000, 'b', 'u'), (NULL, 9999, 'a', 'u'), (21L, 2100, NULL, 'd')"
                + " AS s(id, data, p, op)")
        .createOrReplaceTempView("s");
  }

  @ParameterizedTest(name = "v{0} {1}")
  @MethodSource("layouts")
  void deleteWithASubqueryKeepsRowsWhoseMembershipIsUnknown(String version, String partitioning) {
    createTable(version, partitioning);
    createSource();

    sql("DELETE FROM " + TABLE + " WHERE id IN (SELECT id FROM s)");

    assertTableIs("SELECT * FROM v WHERE (id IN (SELECT id FROM s)) IS NOT TRUE");
  }

  @ParameterizedTest(name = "v{0} {1}")
  @MethodSource("layouts")
  void updateWithAnInSubqueryWritesEveryRowOnce(String version, String partitioning) {
    createTable(version, partitioning);
    createSource();

    sql("UPDATE " + TABLE + " SET data = -1 WHERE id IN (SELECT id FROM s)");

    assertTableIs(
        "SELECT v.id, CASE WHEN m.id IS NOT NULL THEN -1 ELSE v.data END, v.p FROM v"
            + " LEFT JOIN (SELECT DISTINCT id FROM s WHERE id IS NOT NULL) m ON v.id = m.id");
  }

  /** The rows a MERGE with every clause kind leaves, computed by Spark over the views. */
  private static final String MERGE_EXPECTED =
      "SELECT id, data, p FROM ("
          + " SELECT CASE"
          + "   WHEN t.tp AND s.sp AND s.op = 'd' THEN 'delete'"
          + "   WHEN t.tp AND s.sp THEN 'update'"
          + "   WHEN s.sp THEN 'insert'"
          + "   WHEN t.id > 9 THEN 'delete'"
          + "   WHEN t.data IS NULL THEN 'touch'"
          + "   ELSE 'keep' END AS action,"
          + "  CASE WHEN s.sp AND NOT coalesce(t.tp, false) THEN s.id ELSE t.id END AS id,"
          + "  CASE WHEN t.tp AND s.sp THEN t.data + s.data WHEN s.sp THEN s.data"
          + "   WHEN t.data IS NULL THEN 0 ELSE t.data END AS data,"
          + "  CASE WHEN s.sp AND NOT coalesce(t.tp, false) THEN s.p ELSE t.p END AS p"
          + " FROM (SELECT *, true AS tp FROM v) t FULL OUTER JOIN (SELECT *, true AS sp FROM s) s"
          + " ON t.id = s.id) WHERE action <> 'delete'";

  private static final String MERGE =
      "MERGE INTO " + TABLE + " t USING s ON t.id = s.id"
          + " WHEN MATCHED AND s.op = 'd' THEN DELETE"
          + " WHEN MATCHED THEN UPDATE SET t.data = t.data + s.data"
          + " WHEN NOT MATCHED THEN INSERT (id, data, p) VALUES (s.id, s.data, s.p)"
          + " WHEN NOT MATCHED BY SOURCE AND t.id > 9 THEN DELETE"
          + " WHEN NOT MATCHED BY SOURCE AND t.data IS NULL THEN UPDATE SET t.data = 0";

  @ParameterizedTest(name = "v{0} {1}")
  @MethodSource("layouts")
  void mergeWithEveryClauseKindAndNullKeys(String version, String partitioning) {
    createTable(version, partitioning);
    createSource();

    sql(MERGE);

    assertTableIs(MERGE_EXPECTED);
    Snapshot snapshot = current();
    assertThat(snapshot.summary())
        .containsKey("floe.commit-id")
        .containsEntry("spark.merge-into.num-target-rows-inserted", "3")
        .containsEntry("spark.merge-into.num-target-rows-matched-deleted", "1")
        .containsEntry("spark.merge-into.num-target-rows-matched-updated", "2")
        .containsKey("spark.merge-into.num-target-rows-copied");
  }

  @Test
  void mergeOnlyInsertingIntoAnEmptyTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE " + TABLE + " (" + COLUMNS + ") USING iceberg PARTITIONED BY (p)");
    createSource();
    spark.sql("SELECT * FROM " + TABLE).createOrReplaceTempView("v_empty");
    view("v", TABLE);

    sql("MERGE INTO " + TABLE + " t USING s ON t.id = s.id"
        + " WHEN NOT MATCHED THEN INSERT (id, data, p) VALUES (s.id, s.data, s.p)");

    assertTableIs("SELECT id, data, p FROM s");
  }

  @Test
  void mergeThroughTheDataFrameApi() {
    createTable("2", "PARTITIONED BY (p)");
    createSource();

    spark.table("s").as("s")
        .mergeInto(TABLE, functions.expr("t.id = s.id"))
        .whenMatched(functions.expr("s.op = 'd'"))
        .delete()
        .whenMatched()
        .update(scalaMap(java.util.Map.of("data", functions.expr("t.data + s.data"))))
        .whenNotMatched()
        .insert(
            scalaMap(
                java.util.Map.of(
                    "id", functions.expr("s.id"),
                    "data", functions.expr("s.data"),
                    "p", functions.expr("s.p"))))
        .whenNotMatchedBySource(functions.expr("t.id > 9"))
        .delete()
        .whenNotMatchedBySource(functions.expr("t.data IS NULL"))
        .update(scalaMap(java.util.Map.of("data", functions.lit(0))))
        .merge();

    assertTableIs(MERGE_EXPECTED);
  }

  private static scala.collection.immutable.Map<String, Column> scalaMap(
      java.util.Map<String, Column> map) {
    return scala.collection.immutable.Map.from(scala.jdk.javaapi.CollectionConverters.asScala(map));
  }

  @Test
  void mergeRewritesOnlyTheFilesOfMatchedRowsNamedByTheirKeys() {
    createTable("2", "PARTITIONED BY (p)");
    int filesBefore = liveDataFiles().size();
    String matchedFiles =
        rows("SELECT count(DISTINCT _file) FROM " + TABLE + " WHERE id IN (3, 6)").get(0);
    spark.sql("SELECT * FROM VALUES (3L, -3), (6L, -6), (99L, -99) AS m(id, data)")
        .createOrReplaceTempView("m");
    String merge =
        "MERGE INTO " + TABLE + " t USING m ON t.id = m.id"
            + " WHEN MATCHED THEN UPDATE SET t.data = m.data";

    String plan = spark.sql("EXPLAIN " + merge).collectAsList().get(0).getString(0);
    sql(merge);

    assertTableIs(
        "SELECT id, CASE WHEN id IN (3, 6) THEN -id ELSE data END, p FROM v");
    assertThat(matchedFiles).isEqualTo("[2]");
    assertThat(filesBefore).isGreaterThan(2);
    assertThat(current().summary())
        .containsEntry(SnapshotSummary.DELETED_FILES_PROP, "2")
        .containsEntry("spark.merge-into.num-target-rows-matched-updated", "2");
    // the runtime group filter names files by their key, and the join carries no location
    assertThat(plan).contains("dynamicpruningexpression(" + FileKeyColumn.NAME);
  }

  @Test
  void mergeThatReadsTheFileColumnSeesEachRowsFile() {
    createTable("2", "PARTITIONED BY (p)");
    Dataset<Row> paths = spark.sql("SELECT id, _file AS f FROM " + TABLE);
    spark.createDataFrame(paths.collectAsList(), paths.schema()).createOrReplaceTempView("paths");
    spark.sql("SELECT * FROM VALUES (1L), (6L), (9L) AS m(id)").createOrReplaceTempView("m");
    String merge =
        "MERGE INTO " + TABLE + " t USING m ON t.id = m.id"
            + " WHEN MATCHED THEN UPDATE SET t.p = t._file";
    long before = current().snapshotId();

    // by default the MERGE asks for the file key only, and Spark resolves no other metadata column
    assertThatThrownBy(() -> sql(merge)).hasMessageContaining("_file");
    assertThat(current().snapshotId()).isEqualTo(before);
    spark.conf().set(MergeFileColumn.CONF, "true");
    try {
      sql(merge);
    } finally {
      spark.conf().unset(MergeFileColumn.CONF);
    }

    assertTableIs(
        "SELECT v.id, v.data, CASE WHEN v.id IN (1, 6, 9) THEN paths.f ELSE v.p END FROM v"
            + " LEFT JOIN paths ON v.id = paths.id");
  }

  @Test
  void theFileKeyColumnKeysEachRowsFile() {
    createTable("2", "PARTITIONED BY (p)");
    for (String vectorized : List.of("true", "false")) {
      List<Row> keyed =
          spark.read().option("vectorization-enabled", vectorized).table(TABLE)
              .selectExpr("_file", FileKeyColumn.NAME).collectAsList();
      assertThat(keyed).hasSize(12);
      for (Row row : keyed) {
        assertThat(row.getLong(1))
            .as("key of %s, vectorized %s", row.getString(0), vectorized)
            .isEqualTo(FileKeyColumn.of(row.getString(0)));
      }
    }
    assertThat(rows("SELECT count(DISTINCT " + FileKeyColumn.NAME + ") FROM " + TABLE))
        .isEqualTo(rows("SELECT count(DISTINCT _file) FROM " + TABLE));
  }

  @Test
  void dmlOnABranchChangesTheBranchOnly() {
    createTable("2", "PARTITIONED BY (p)");
    icebergTable("db.t").manageSnapshots().createBranch("audit").commit();
    long mainHead = current().snapshotId();

    sql("UPDATE " + TABLE + ".branch_audit SET data = 0 WHERE id <= 3");
    sql("DELETE FROM " + TABLE + ".branch_audit WHERE data > 100");

    assertThat(current().snapshotId()).isEqualTo(mainHead);
    assertTableIs("SELECT * FROM v");
    assertThat(rows("SELECT * FROM " + TABLE + ".branch_audit"))
        .isEqualTo(
            rows("SELECT id, IF(id <= 3, 0, data) AS data, p FROM v"
                + " WHERE (IF(id <= 3, 0, data) > 100) IS NOT TRUE"));
  }

  @Test
  void explainShowsTheOperationItsModeAndThePrunedFiles() {
    createTable("2", "PARTITIONED BY (p)");

    String plan =
        spark.sql("EXPLAIN DELETE FROM " + TABLE + " WHERE p = 'a' AND data > 5")
            .collectAsList().get(0).getString(0);

    assertThat(plan)
        .contains("Floe copy-on-write DELETE of floe.db.t [isolation serializable")
        .containsPattern(
            "Floe copy-on-write floe\\.db\\.t \\[snapshot=\\d+, filter=.*,"
                + " files=\\d+ of \\d+ planned\\]");
  }
}
