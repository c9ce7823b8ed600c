package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The snapshot management procedures on real tables: effects checked through Iceberg's core API
 * (current snapshot, refs, snapshot count), rows read back with Spark, output schemas compared with
 * the official runtime 1.11's (names, types and nullability from its procedure classes).
 */
class SnapshotProceduresTest extends ProcedureTestBase {
  private static final String TABLE = "db.snaps";
  private long first;
  private long second;
  private long third;

  @BeforeEach
  void createSnaps() {
    createTable(TABLE);
    first = append(TABLE, 1);
    second = append(TABLE, 2);
    third = append(TABLE, 3);
  }

  private static long current() {
    return icebergTable(TABLE).currentSnapshot().snapshotId();
  }

  /** Stages (write-audit-publish) an append of the file of a one-row table, with a wap.id. */
  private static long stageAppend(long id, String wapId) {
    String source = "db.staged_source_" + id;
    createTable(source);
    append(source, id);
    DataFile file =
        icebergTable(source)
            .currentSnapshot()
            .addedDataFiles(icebergTable(source).io())
            .iterator()
            .next();
    Table table = icebergTable(TABLE);
    table.newAppend().appendFile(file).set("wap.id", wapId).stageOnly().commit();
    table.refresh();
    for (Snapshot snapshot : table.snapshots()) {
      if (wapId.equals(snapshot.summary().get("wap.id"))) {
        return snapshot.snapshotId();
      }
    }
    throw new IllegalStateException("no staged snapshot " + wapId);
  }

  @Test
  void rollbackToSnapshotMakesAnAncestorCurrent() {
    Dataset<Row> result =
        call("rollback_to_snapshot(table => '%s', snapshot_id => %d)", TABLE, first);
    assertSchema(
        result.schema(),
        column("previous_snapshot_id", DataTypes.LongType, false),
        column("current_snapshot_id", DataTypes.LongType, false));
    assertThat(result.collectAsList()).containsExactly(row(third, first));
    assertThat(current()).isEqualTo(first);
    assertThat(snapshots(TABLE)).hasSize(3);
    assertThat(ids(TABLE)).containsExactly(1L);
  }

  @Test
  void cachedPlansOfTheTableSeeTheNewState() {
    Dataset<Row> cached = spark.table(CATALOG + "." + TABLE);
    cached.cache();
    try {
      assertThat(cached.count()).isEqualTo(3L);
      call("rollback_to_snapshot('%s', %d)", TABLE, first).collectAsList();
      assertThat(spark.table(CATALOG + "." + TABLE).count()).isEqualTo(1L);
    } finally {
      cached.unpersist();
    }
  }

  @Test
  void rollbackToUnknownSnapshotFailsAndChangesNothing() {
    assertThatThrownBy(() -> call("rollback_to_snapshot('%s', 42)", TABLE).collectAsList())
        .hasMessageContaining("Cannot roll back to unknown snapshot id: 42");
    assertThat(current()).isEqualTo(third);
  }

  @Test
  void rollbackToTimestampMakesTheSnapshotCurrentAtThatTimeCurrent() {
    // Iceberg rolls back to the last snapshot strictly older than the timestamp
    long afterSecond = icebergTable(TABLE).snapshot(second).timestampMillis() + 1;
    assertThat(icebergTable(TABLE).snapshot(third).timestampMillis()).isGreaterThan(afterSecond);
    Dataset<Row> result =
        call(
            "rollback_to_timestamp(table => '%s', timestamp => timestamp_millis(%d))",
            TABLE, afterSecond);
    assertSchema(
        result.schema(),
        column("previous_snapshot_id", DataTypes.LongType, false),
        column("current_snapshot_id", DataTypes.LongType, false));
    assertThat(result.collectAsList()).containsExactly(row(third, second));
    assertThat(current()).isEqualTo(second);
    assertThat(ids(TABLE)).containsExactly(1L, 2L);
  }

  @Test
  void rollbackToTimestampBeforeTheFirstSnapshotFails() {
    assertThatThrownBy(
            () ->
                call("rollback_to_timestamp('%s', TIMESTAMP '2000-01-01 00:00:00')", TABLE)
                    .collectAsList())
        .hasMessageContaining("Cannot roll back, no valid snapshot older than");
    assertThat(current()).isEqualTo(third);
  }

  @Test
  void setCurrentSnapshotBySnapshotIdNeedNotBeAnAncestor() {
    call("rollback_to_snapshot('%s', %d)", TABLE, first).collectAsList();
    Dataset<Row> result =
        call("set_current_snapshot(table => '%s', snapshot_id => %d)", TABLE, third);
    assertSchema(
        result.schema(),
        column("previous_snapshot_id", DataTypes.LongType, true),
        column("current_snapshot_id", DataTypes.LongType, false));
    assertThat(result.collectAsList()).containsExactly(row(first, third));
    assertThat(current()).isEqualTo(third);
    assertThat(ids(TABLE)).containsExactly(1L, 2L, 3L);
  }

  @Test
  void setCurrentSnapshotByRefUsesTheTagsSnapshot() {
    icebergTable(TABLE).manageSnapshots().createTag("v1", first).commit();
    assertThat(call("set_current_snapshot(table => '%s', ref => 'v1')", TABLE).collectAsList())
        .containsExactly(row(third, first));
    assertThat(current()).isEqualTo(first);
  }

  @Test
  void setCurrentSnapshotNeedsExactlyOneOfSnapshotIdAndRef() {
    String message =
        "Cannot call floe.system.set_current_snapshot: give either snapshot_id or ref, not both "
            + "and not neither";
    assertThatThrownBy(() -> call("set_current_snapshot(table => '%s')", TABLE).collectAsList())
        .hasMessage(message);
    assertThatThrownBy(
            () -> call("set_current_snapshot('%s', %d, 'main')", TABLE, first).collectAsList())
        .hasMessage(message);
    assertThatThrownBy(
            () -> call("set_current_snapshot(table => '%s', ref => 'nope')", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.set_current_snapshot: table floe.db.snaps has no branch or "
                + "tag 'nope'; it has main");
    assertThat(current()).isEqualTo(third);
  }

  @Test
  void cherrypickSnapshotAppliesAStagedSnapshotAsOneNewSnapshot() {
    long staged = stageAppend(10, "w-cherry");
    assertThat(current()).isEqualTo(third);
    int before = snapshots(TABLE).size();

    Dataset<Row> result =
        call("cherrypick_snapshot(table => '%s', snapshot_id => %d)", TABLE, staged);
    assertSchema(
        result.schema(),
        column("source_snapshot_id", DataTypes.LongType, false),
        column("current_snapshot_id", DataTypes.LongType, false));
    List<Row> rows = result.collectAsList();
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).getLong(0)).isEqualTo(staged);
    assertThat(rows.get(0).getLong(1)).isEqualTo(current());
    // the staged snapshot's parent is the current one, so Iceberg fast-forwards to it
    assertThat(current()).isEqualTo(staged);
    assertThat(snapshots(TABLE)).hasSize(before);
    assertThat(ids(TABLE)).containsExactly(1L, 2L, 3L, 10L);
  }

  @Test
  void cherrypickOntoANewerCurrentSnapshotWritesOneSnapshot() {
    long staged = stageAppend(10, "w-late");
    long fourth = append(TABLE, 4);
    int before = snapshots(TABLE).size();

    List<Row> rows = call("cherrypick_snapshot('%s', %d)", TABLE, staged).collectAsList();

    Snapshot picked = icebergTable(TABLE).currentSnapshot();
    assertThat(rows).containsExactly(row(staged, picked.snapshotId()));
    assertThat(picked.parentId()).isEqualTo(fourth);
    assertThat(picked.summary()).containsEntry("source-snapshot-id", String.valueOf(staged));
    assertThat(snapshots(TABLE)).hasSize(before + 1);
    assertThat(ids(TABLE)).containsExactly(1L, 2L, 3L, 4L, 10L);
  }

  @Test
  void publishChangesCherrypicksTheStagedSnapshotOfThatWapId() {
    long staged = stageAppend(20, "w-pub");
    append(TABLE, 4);

    Dataset<Row> result = call("publish_changes(table => '%s', wap_id => 'w-pub')", TABLE);
    assertSchema(
        result.schema(),
        column("source_snapshot_id", DataTypes.LongType, false),
        column("current_snapshot_id", DataTypes.LongType, false));
    assertThat(result.collectAsList()).containsExactly(row(staged, current()));
    assertThat(icebergTable(TABLE).currentSnapshot().summary())
        .containsEntry("published-wap-id", "w-pub");
    assertThat(ids(TABLE)).containsExactly(1L, 2L, 3L, 4L, 20L);
  }

  @Test
  void publishChangesOfUnknownOrAmbiguousWapIdFails() {
    assertThatThrownBy(() -> call("publish_changes('%s', 'nope')", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.publish_changes: table floe.db.snaps has no staged snapshot "
                + "with wap.id 'nope'");
    stageAppend(30, "twice");
    stageAppend(31, "twice");
    assertThatThrownBy(() -> call("publish_changes('%s', 'twice')", TABLE).collectAsList())
        .hasMessageStartingWith(
            "Cannot call floe.system.publish_changes: table floe.db.snaps has 2 staged snapshots "
                + "with wap.id 'twice'");
    assertThat(current()).isEqualTo(third);
  }

  @Test
  void fastForwardMovesABranchToADescendant() {
    icebergTable(TABLE).manageSnapshots().createBranch("audit", first).commit();
    Dataset<Row> result =
        call("fast_forward(table => '%s', branch => 'audit', to => 'main')", TABLE);
    assertSchema(
        result.schema(),
        column("branch_updated", DataTypes.StringType, false),
        column("previous_ref", DataTypes.LongType, true),
        column("updated_ref", DataTypes.LongType, false));
    assertThat(result.collectAsList()).containsExactly(row("audit", first, third));
    assertThat(icebergTable(TABLE).refs().get("audit").snapshotId()).isEqualTo(third);
    assertThat(current()).isEqualTo(third);
  }

  @Test
  void fastForwardOfAMissingBranchCreatesItAtTheTarget() {
    assertThat(call("fast_forward('%s', 'fresh', 'main')", TABLE).collectAsList())
        .containsExactly(row("fresh", null, third));
    assertThat(icebergTable(TABLE).refs().get("fresh").snapshotId()).isEqualTo(third);
  }

  @Test
  void fastForwardToANonDescendantFails() {
    icebergTable(TABLE).manageSnapshots().createBranch("audit", third).commit();
    call("rollback_to_snapshot('%s', %d)", TABLE, first).collectAsList();
    append(TABLE, 5);
    assertThatThrownBy(() -> call("fast_forward('%s', 'audit', 'main')", TABLE).collectAsList())
        .hasMessageContaining("Cannot fast-forward");
    assertThat(icebergTable(TABLE).refs().get("audit").snapshotId()).isEqualTo(third);
  }

  @Test
  void ancestorsOfListsTheCurrentSnapshotAndItsAncestorsNewestFirst() {
    Table table = icebergTable(TABLE);
    Dataset<Row> result = call("ancestors_of('%s')", TABLE);
    assertSchema(
        result.schema(),
        column("snapshot_id", DataTypes.LongType, true),
        column("timestamp", DataTypes.LongType, true));
    assertThat(result.collectAsList())
        .containsExactly(
            row(third, table.snapshot(third).timestampMillis()),
            row(second, table.snapshot(second).timestampMillis()),
            row(first, table.snapshot(first).timestampMillis()));
    assertThat(
            call("ancestors_of(table => '%s', snapshot_id => %d)", TABLE, second).collectAsList())
        .containsExactly(
            row(second, table.snapshot(second).timestampMillis()),
            row(first, table.snapshot(first).timestampMillis()));
  }

  @Test
  void ancestorsOfAnEmptyTableHasNoRows() {
    createTable("db.empty");
    assertThat(call("ancestors_of('db.empty')").collectAsList()).isEmpty();
  }
}
