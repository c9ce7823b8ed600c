package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a copy-on-write commit removes and validates: the deletion vectors and file-scoped position
 * deletes of the rewritten files leave with them; a commit made while the operation runs (played
 * by a UDF that the operation's own write tasks call) conflicts or not as the isolation level
 * says; a conflict leaves the table and its data folder as they were; a caller's commit id makes a
 * rerun a no-op.
 */
class CopyOnWriteCommitTest extends RowLevelTestBase {
  /** What the {@code hook} UDF runs the first time a write task calls it. */
  private static final AtomicReference<Runnable> HOOK = new AtomicReference<>();

  @BeforeAll
  void registerHook() {
    spark.udf()
        .register(
            "hook",
            (UDF1<Integer, Integer>)
                value -> {
                  Runnable hook = HOOK.getAndSet(null);
                  if (hook != null) {
                    hook.run();
                  }
                  return value;
                },
            DataTypes.IntegerType);
  }

  private static void createTable(String clauses) {
    create(
        "id BIGINT, data INT, p STRING",
        clauses,
        "(1, 10, 'a'), (2, 20, 'a'), (3, 30, 'b'), (4, 40, 'b'), (5, 50, 'c'), (6, NULL, 'c')");
  }

  @Test
  void rewritingAFileRemovesItsDeletionVector() throws IOException {
    createTable("TBLPROPERTIES ('format-version'='3')");
    Table table = icebergTable("db.t");
    DataFile file = fileHolding(table, 1L);
    OutputFileFactory puffins =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(puffins, path -> null);
    try (BaseDVFileWriter closing = writer) {
      closing.delete(
          file.location(), untouchedPosition(file), table.specs().get(file.specId()),
          file.partition());
    }
    DeleteFile dv = writer.result().deleteFiles().get(0);
    table.newRowDelta().addDeletes(dv).commit();
    long deletedId = idAt(file, untouchedPosition(file));

    sql("UPDATE " + TABLE + " SET data = data * 2 WHERE id = 1 OR id = 2");

    assertTableIs(
        "SELECT id, CASE WHEN id IN (1, 2) THEN data * 2 ELSE data END, p FROM v WHERE id <> "
            + deletedId);
    assertThat(liveDeleteFiles()).isEmpty();
    assertThat(current().summary()).containsEntry(SnapshotSummary.REMOVED_DVS_PROP, "1");
  }

  @Test
  void rewritingAFileRemovesItsFileScopedPositionDeletes() throws IOException {
    createTable("TBLPROPERTIES ('format-version'='2')");
    Table table = icebergTable("db.t");
    DataFile file = fileHolding(table, 1L);
    PartitionSpec spec = table.specs().get(file.specId());
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    PositionDeleteWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .build()
            .newPositionDeleteWriter(files.newOutputFile(spec, file.partition()), spec, file.partition());
    try (PositionDeleteWriter<Record> closing = writer) {
      closing.write(PositionDelete.<Record>create().set(file.location(), untouchedPosition(file), null));
    }
    DeleteFile deletes = writer.toDeleteFile();
    assertThat(ContentFileUtil.referencedDataFileLocation(deletes)).isEqualTo(file.location());
    table.newRowDelta().addDeletes(deletes).commit();
    long deletedId = idAt(file, untouchedPosition(file));

    sql("DELETE FROM " + TABLE + " WHERE id = 1 OR id = 2");

    assertTableIs("SELECT * FROM v WHERE id NOT IN (1, 2, " + deletedId + ")");
    assertThat(liveDeleteFiles()).isEmpty();
    assertThat(current().summary())
        .containsEntry(SnapshotSummary.REMOVED_POS_DELETES_PROP, "1");
  }

  @Test
  void serializableUpdateFailsOnMatchingRowsAddedMeanwhileAndLeavesNothing() throws Exception {
    createTable("TBLPROPERTIES ('format-version'='2')");
    DataFile extra = fileOfAnotherTable("(1, 99, 'a')");
    Snapshot scanned = current();
    HOOK.set(() -> icebergTable("db.t").newAppend().appendFile(extra).commit());
    List<Path> filesBefore = dataFilesOnDisk(icebergTable("db.t").location());

    assertThatThrownBy(() -> sql("UPDATE " + TABLE + " SET data = hook(data) WHERE id = 1"))
        .hasStackTraceContaining("Cannot commit UPDATE on floe.db.t: isolation level serializable"
            + " found a conflicting commit after snapshot " + scanned.snapshotId())
        .hasStackTraceContaining("(conflicting snapshots committed since: ")
        .hasStackTraceContaining("(append)")
        .hasStackTraceContaining("Found conflicting files");

    Snapshot appended = current();
    assertThat(appended.parentId()).isEqualTo(scanned.snapshotId());
    assertThat(appended.summary()).doesNotContainKey("floe.commit-id");
    assertThat(dataFilesOnDisk(icebergTable("db.t").location())).isEqualTo(filesBefore);
    assertThat(tableRows()).isEqualTo(rows("SELECT * FROM v UNION ALL SELECT 1L, 99, 'a'"));
  }

  @Test
  void snapshotIsolationAcceptsRowsAddedMeanwhile() throws Exception {
    createTable("TBLPROPERTIES ('format-version'='2', 'write.update.isolation-level'='snapshot')");
    DataFile extra = fileOfAnotherTable("(1, 99, 'a')");
    HOOK.set(() -> icebergTable("db.t").newAppend().appendFile(extra).commit());

    sql("UPDATE " + TABLE + " SET data = hook(data) + 1 WHERE id = 1");

    assertThat(tableRows())
        .isEqualTo(
            rows("SELECT id, IF(id = 1, data + 1, data), p FROM v UNION ALL SELECT 1L, 99, 'a'"));
  }

  @Test
  void theSessionsIsolationLevelOverridesTheTableProperty() throws Exception {
    createTable("TBLPROPERTIES ('format-version'='2', 'write.update.isolation-level'='serializable')");
    DataFile extra = fileOfAnotherTable("(1, 99, 'a')");
    HOOK.set(() -> icebergTable("db.t").newAppend().appendFile(extra).commit());
    spark.conf().set("spark.floe.write.isolation-level", "snapshot");
    try {
      sql("UPDATE " + TABLE + " SET data = hook(data) + 1 WHERE id = 1");
    } finally {
      spark.conf().unset("spark.floe.write.isolation-level");
    }

    assertThat(tableRows())
        .isEqualTo(
            rows("SELECT id, IF(id = 1, data + 1, data), p FROM v UNION ALL SELECT 1L, 99, 'a'"));
  }

  @Test
  void serializableUpdateAcceptsRowsAddedMeanwhileToAnotherPartition() throws Exception {
    createTable("PARTITIONED BY (p) TBLPROPERTIES ('format-version'='2')");
    DataFile extra = fileOfAnotherTable("(7, 70, 'z')");
    HOOK.set(() -> icebergTable("db.t").newAppend().appendFile(extra).commit());

    sql("UPDATE " + TABLE + " SET data = hook(data) + 1 WHERE p = 'a'");

    assertThat(tableRows())
        .isEqualTo(
            rows("SELECT id, IF(p = 'a', data + 1, data), p FROM v UNION ALL SELECT 7L, 70, 'z'"));
  }

  @Test
  void snapshotIsolationFailsWhenTheRewrittenFilesWereDeletedMeanwhile() {
    createTable(
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version'='2',"
            + " 'write.delete.isolation-level'='snapshot')");
    HOOK.set(
        () ->
            icebergTable("db.t")
                .newDelete()
                .deleteFromRowFilter(org.apache.iceberg.expressions.Expressions.equal("p", "a"))
                .commit());
    List<Path> filesBefore = dataFilesOnDisk(icebergTable("db.t").location());

    assertThatThrownBy(
            () -> sql("DELETE FROM " + TABLE + " WHERE p = 'a' AND hook(data) = 10"))
        .hasStackTraceContaining("isolation level snapshot found a conflicting commit")
        .hasStackTraceContaining("(delete)");

    assertThat(dataFilesOnDisk(icebergTable("db.t").location())).isEqualTo(filesBefore);
    assertThat(tableRows()).isEqualTo(rows("SELECT * FROM v WHERE p <> 'a'"));
  }

  @Test
  void aCallerCommitIdMakesARerunOfAnUpdateANoOp() {
    createTable("TBLPROPERTIES ('format-version'='2')");
    spark.conf().set("spark.floe.write.commit-id", "fix-17");
    try {
      sql("UPDATE " + TABLE + " SET data = data + 1 WHERE id <= 2");
      long first = current().snapshotId();
      List<Path> filesAfterFirst = dataFilesOnDisk(icebergTable("db.t").location());

      sql("UPDATE " + TABLE + " SET data = data + 1 WHERE id <= 2");

      assertThat(current().snapshotId()).isEqualTo(first);
      assertThat(current().summary()).containsEntry("floe.commit-id", "fix-17");
      assertThat(dataFilesOnDisk(icebergTable("db.t").location())).isEqualTo(filesAfterFirst);
      assertTableIs("SELECT id, IF(id <= 2, data + 1, data), p FROM v");
    } finally {
      spark.conf().unset("spark.floe.write.commit-id");
    }
  }

  @Test
  void underWriteAuditPublishTheCommitsAreStaged() {
    createTable(
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version'='2', 'write.wap.enabled'='true')");
    long head = current().snapshotId();
    spark.conf().set("spark.wap.id", "audit-1");
    try {
      sql("UPDATE " + TABLE + " SET data = 0 WHERE id = 1");
      sql("DELETE FROM " + TABLE + " WHERE p = 'c'");
    } finally {
      spark.conf().unset("spark.wap.id");
    }

    assertThat(current().snapshotId()).isEqualTo(head);
    assertTableIs("SELECT * FROM v");
    List<Snapshot> staged = new java.util.ArrayList<>();
    for (Snapshot snapshot : icebergTable("db.t").snapshots()) {
      if ("audit-1".equals(snapshot.summary().get("wap.id"))) {
        staged.add(snapshot);
      }
    }
    assertThat(staged).hasSize(2);
    assertThat(staged).allSatisfy(s -> assertThat(s.summary()).containsKey("floe.commit-id"));
  }

  /** A data file of a table with the same schema, holding the rows; committed to neither. */
  private static DataFile fileOfAnotherTable(String values) throws Exception {
    Table target = icebergTable("db.t");
    sql("CREATE TABLE floe.db.src (id BIGINT, data INT, p STRING) USING iceberg"
        + (target.spec().isUnpartitioned() ? "" : " PARTITIONED BY (p)"));
    sql("INSERT INTO floe.db.src VALUES " + values);
    Table source = icebergTable("db.src");
    List<DataFile> files = new java.util.ArrayList<>();
    source.newScan().planFiles().forEach(task -> files.add(task.file()));
    assertThat(files).hasSize(1);
    return files.get(0);
  }

  private static DataFile fileHolding(Table table, long id) {
    String location = sql("SELECT _file FROM " + TABLE + " WHERE id = " + id).get(0).getString(0);
    for (DataFile file : liveDataFiles()) {
      if (file.location().equals(location)) {
        return file;
      }
    }
    throw new IllegalStateException("No live data file " + location + " in " + table.name());
  }

  /** The position of a row of the file that the statements do not select (ids 1 and 2). */
  private static long untouchedPosition(DataFile file) {
    List<org.apache.spark.sql.Row> rows = spark.read().parquet(file.location()).collectAsList();
    for (int pos = 0; pos < rows.size(); pos += 1) {
      long id = rows.get(pos).getLong(0);
      if (id != 1 && id != 2) {
        return pos;
      }
    }
    throw new IllegalStateException("File " + file.location() + " holds only ids 1 and 2");
  }

  private static long idAt(DataFile file, long pos) {
    return spark.read().parquet(file.location()).collectAsList().get((int) pos).getLong(0);
  }
}
