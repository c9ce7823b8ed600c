package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Row-level statements that must fail: with a message naming the cause, and leaving the table
 * (its snapshots and its data folder) as it was.
 */
class RowLevelErrorsTest extends RowLevelTestBase {

  private static void createTable() {
    create(
        "id BIGINT NOT NULL, data INT, p STRING",
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version'='2')",
        "(1, 10, 'a'), (2, 20, 'a'), (3, 30, 'b')");
  }

  /** Asserts that nothing changed since {@code snapshotId}: no snapshot, no file, same rows. */
  private static void assertUnchanged(long snapshotId, List<Path> files) {
    assertThat(current().snapshotId()).isEqualTo(snapshotId);
    assertThat(dataFilesOnDisk(icebergTable("db.t").location())).isEqualTo(files);
    assertTableIs("SELECT * FROM v");
  }

  @Test
  void aMergeMatchingOneTargetRowTwiceFailsWithSparksCardinalityError() {
    createTable();
    long before = current().snapshotId();
    List<Path> files = dataFilesOnDisk(icebergTable("db.t").location());
    spark.sql("SELECT * FROM VALUES (1L, 100), (1L, 200), (3L, 300) AS s(id, data)")
        .createOrReplaceTempView("s");

    assertThatThrownBy(
            () ->
                sql("MERGE INTO " + TABLE + " t USING s ON t.id = s.id"
                    + " WHEN MATCHED THEN UPDATE SET t.data = s.data"))
        .hasStackTraceContaining("MERGE_CARDINALITY_VIOLATION");

    assertUnchanged(before, files);
  }

  @Test
  void anUpdateWritingNullIntoARequiredColumnFailsNamingIt() {
    createTable();
    long before = current().snapshotId();
    List<Path> files = dataFilesOnDisk(icebergTable("db.t").location());
    spark.sql("SELECT * FROM VALUES (CAST(NULL AS BIGINT), 1) AS s(id, data)")
        .createOrReplaceTempView("s");

    assertThatThrownBy(
            () ->
                sql("UPDATE " + TABLE + " SET id = (SELECT max(id) FROM s) WHERE data = 10"))
        .hasStackTraceContaining("NULL value appeared in non-nullable field: \nid\n");
    assertThatThrownBy(() -> sql("UPDATE " + TABLE + " SET id = NULL WHERE data = 10"))
        .hasStackTraceContaining("NULL value appeared in non-nullable field: \nid\n");

    assertUnchanged(before, files);
  }

  @Test
  void dmlOnAMetadataTableIsRefused() {
    createTable();
    long before = current().snapshotId();
    List<Path> files = dataFilesOnDisk(icebergTable("db.t").location());

    assertThatThrownBy(() -> sql("DELETE FROM " + TABLE + ".snapshots WHERE snapshot_id = 1"))
        .hasStackTraceContaining("Cannot DELETE floe.db.t.snapshots: the table is read-only");
    assertThatThrownBy(
            () -> sql("UPDATE " + TABLE + ".files SET record_count = 0 WHERE record_count > 0"))
        .hasStackTraceContaining("Cannot UPDATE floe.db.t.files: the table is read-only");

    assertUnchanged(before, files);
  }

  @Test
  void dmlOnATimeTravelReadIsRefused() {
    createTable();
    long first = current().snapshotId();
    sql("INSERT INTO " + TABLE + " VALUES (4, 40, 'c')");
    view("v", TABLE);
    long before = current().snapshotId();
    List<Path> files = dataFilesOnDisk(icebergTable("db.t").location());

    assertThatThrownBy(
            () -> sql("DELETE FROM " + TABLE + ".snapshot_id_" + first + " WHERE data > 15"))
        .hasStackTraceContaining("time travel is read-only");
    assertThatThrownBy(
            () -> sql("UPDATE " + TABLE + ".snapshot_id_" + first + " SET data = 0 WHERE id = 1"))
        .hasStackTraceContaining("time travel is read-only");
    assertThatThrownBy(
            () ->
                sql("MERGE INTO " + TABLE + ".snapshot_id_" + first + " t USING v ON t.id = v.id"
                    + " WHEN MATCHED THEN DELETE"))
        .hasStackTraceContaining("time travel is read-only");

    assertUnchanged(before, files);
  }

  @Test
  void aBadIsolationLevelPropertyFailsNamingIt() {
    createTable();
    sql("ALTER TABLE " + TABLE + " SET TBLPROPERTIES ('write.delete.isolation-level'='strict')");
    view("v", TABLE);
    long before = current().snapshotId();
    List<Path> files = dataFilesOnDisk(icebergTable("db.t").location());

    assertThatThrownBy(() -> sql("DELETE FROM " + TABLE + " WHERE data = 10"))
        .hasStackTraceContaining(
            "Cannot DELETE floe.db.t: table property 'write.delete.isolation-level' must be"
                + " serializable or snapshot, not 'strict'");

    assertUnchanged(before, files);
  }
}
