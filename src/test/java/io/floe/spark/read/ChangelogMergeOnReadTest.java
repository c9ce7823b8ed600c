package io.floe.spark.read;

import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.plan.ChangeTask;
import io.floe.spark.serialization.Travel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The changelog {@code <table>.changes} of merge-on-read tables: DELETE, UPDATE and MERGE write
 * position deletes (format 2) or deletion vectors (format 3), a second DELETE on a file adds another
 * delete file (2) or a deletion vector replacing the older one (3), a compaction passes over, and a
 * DELETE of whole partitions removes files that had deletes. The expected rows are Spark's: for
 * every snapshot, its parent's rows {@code EXCEPT ALL} its rows as DELETE, and its rows {@code EXCEPT
 * ALL} its parent's as INSERT, read by time travel. Merge-on-read rewrites no unchanged row, so these
 * are exactly the changelog's rows, snapshot by snapshot.
 */
class ChangelogMergeOnReadTest extends SparkTestBase {
  private static final String TABLE = "floe.clm.t";
  // the tables changeTheTable built, by format and partitioning: the tests only read them
  private static final Map<String, String> CHANGED = new HashMap<>();
  // Spark's changes of a range of a table, by the table and the range's first and last snapshot
  private static final Map<List<Object>, List<String>> EXPECTED = new HashMap<>();

  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.clm");
  }

  @AfterEach
  void tearDown() {
    sql("DROP TABLE IF EXISTS %s", TABLE);
  }

  private static void create(int formatVersion, boolean partitioned) {
    create(TABLE, formatVersion, partitioned);
  }

  private static void create(String table, int formatVersion, boolean partitioned) {
    sql("CREATE TABLE %s (id BIGINT, data STRING, cat STRING) USING iceberg %s TBLPROPERTIES ("
            + "'format-version'='%d', 'write.delete.mode'='merge-on-read', "
            + "'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')",
        table, partitioned ? "PARTITIONED BY (cat)" : "", formatVersion);
  }

  /**
   * The table of this format and partitioning that {@link #changeTheTable} changed, built on first
   * use and shared by the tests, which only read it.
   */
  private static String changed(int formatVersion, boolean partitioned) {
    return CHANGED.computeIfAbsent(formatVersion + "," + partitioned, key -> {
      String table = "floe.clm.changed_" + formatVersion + (partitioned ? "_p" : "_u");
      create(table, formatVersion, partitioned);
      changeTheTable(table, partitioned);
      return table;
    });
  }

  private static List<Snapshot> snapshots() {
    return snapshots(TABLE);
  }

  private static List<Snapshot> snapshots(String table) {
    return SnapshotHistory.ancestry(icebergTable(spark, table.substring("floe.".length())));
  }

  /** Spark's changes of each snapshot of {@link #TABLE} but compactions, which take no ordinal. */
  private static List<String> expectedChanges(List<Snapshot> range) {
    return expectedChanges(TABLE, range);
  }

  /** Spark's changes of each snapshot but compactions, computed once per table and range. */
  private static List<String> expectedChanges(String table, List<Snapshot> range) {
    List<Object> key = List.of(table, range.get(0).snapshotId(), range.get(range.size() - 1).snapshotId());
    List<String> known = EXPECTED.get(key);
    if (known == null) {
      known = computeExpectedChanges(table, range);
      EXPECTED.put(key, known);
    }
    return known;
  }

  private static List<String> computeExpectedChanges(String table, List<Snapshot> range) {
    List<String> parts = new ArrayList<>();
    int ordinal = 0;
    for (Snapshot snapshot : range) {
      if (snapshot.operation().equals("replace")) {
        continue;
      }
      String before = SnapshotHistory.asOf(table, "id, data, cat", snapshot.parentId());
      String after = SnapshotHistory.asOf(table, "id, data, cat", snapshot.snapshotId());
      parts.add(SnapshotHistory.changesSql(snapshot, ordinal, before, after));
      ordinal++;
    }
    return sorted(spark.sql(String.join(" UNION ALL ", parts)).collectAsList());
  }

  private static List<String> sorted(List<Row> rows) {
    return SnapshotHistory.sortedText(rows);
  }

  private static List<String> changes(Map<String, String> options) {
    return changes(TABLE, options);
  }

  private static List<String> changes(String table, Map<String, String> options) {
    return sorted(spark.read().options(options).table(table + ".changes").collectAsList());
  }

  /** Appends, then merge-on-read DML, a compaction, and more DML after it. */
  private static void changeTheTable(String table, boolean partitioned) {
    String compacted = table.substring("floe.".length());
    // one file per partition, so that the DML below deletes rows of files it keeps
    sql("INSERT INTO %s SELECT /*+ REPARTITION(1) */ * FROM VALUES (1L, 'a', 'x'), (2L, 'b', 'x'),"
        + " (3L, 'c', 'y'), (4L, 'd', 'y'), (5L, 'e', 'x'), (6L, 'f', 'y') AS v(id, data, cat)", table);
    sql("INSERT INTO %s VALUES (7, 'g', 'x'), (8, 'h', 'y')", table);
    sql("DELETE FROM %s WHERE id = 2", table);
    sql("UPDATE %s SET data = 'c2' WHERE id = 3", table);
    // the same file again: a second position-delete file (v2), a replacing deletion vector (v3)
    sql("DELETE FROM %s WHERE id IN (1, 5)", table);
    sql("MERGE INTO %s t USING (SELECT 4L AS id, 'd2' AS data, 'y' AS cat UNION ALL "
        + "SELECT 7L, CAST(NULL AS STRING), 'x' UNION ALL SELECT 9L, 'i', 'x') s ON t.id = s.id "
        + "WHEN MATCHED AND s.data IS NULL THEN DELETE "
        + "WHEN MATCHED THEN UPDATE SET t.data = s.data WHEN NOT MATCHED THEN INSERT *", table);
    sql("UPDATE %s SET data = concat(data, '3') WHERE id IN (4, 6, 8)", table);
    sql("CALL floe.system.rewrite_data_files(table => '%s', options => map('rewrite-all', 'true'))", compacted);
    sql("DELETE FROM %s WHERE id = 6", table);
    sql("INSERT INTO %s VALUES (10, 'j', 'x')", table);
    sql("DELETE FROM %s WHERE id = 8", table);
    // whole partitions (or, unpartitioned, rows of every file) of files that have deletes
    sql("DELETE FROM %s WHERE cat = 'x'", table);
  }

  private static long summary(Snapshot snapshot, String key) {
    String value = snapshot.summary().get(key);
    return value == null ? 0 : Long.parseLong(value);
  }

  @ParameterizedTest(name = "format {0}, partitioned {1}")
  @CsvSource({"2, false", "2, true", "3, false", "3, true"})
  void everySnapshotOfMergeOnReadDmlReadsAsSparksDifferenceOfItAndItsParent(
      int formatVersion, boolean partitioned) {
    String table = changed(formatVersion, partitioned);
    List<Snapshot> snapshots = snapshots(table);
    // the DML wrote delete files, and the compaction is among the snapshots
    assertThat(snapshots).anyMatch(s -> summary(s, "added-delete-files") > 0);
    assertThat(snapshots).extracting(Snapshot::operation).contains("replace");
    if (formatVersion == 3) {
      // the second DELETE of rows of the first file replaced its deletion vector
      assertThat(summary(snapshots.get(4), "removed-delete-files")).isPositive();
      assertThat(summary(snapshots.get(4), "added-dvs")).isPositive();
    } else {
      assertThat(summary(snapshots.get(4), "added-position-delete-files")).isPositive();
    }
    List<String> expected = expectedChanges(table, snapshots);
    assertThat(changes(table, Map.of())).isEqualTo(expected);
    // the second DELETE reads as its own rows only, not those the first one deleted
    assertThat(expected)
        .filteredOn(row -> row.endsWith("," + snapshots.get(4).snapshotId() + "]"))
        .containsExactlyInAnyOrder(
            "[1,a,x,DELETE,4," + snapshots.get(4).snapshotId() + "]",
            "[5,e,x,DELETE,4," + snapshots.get(4).snapshotId() + "]");
    // a range starting in the middle reads the same rows of its snapshots, numbered from 0
    List<Snapshot> tail = snapshots.subList(5, snapshots.size());
    assertThat(changes(table, Map.of("start-snapshot-id", String.valueOf(snapshots.get(4).snapshotId()))))
        .isEqualTo(expectedChanges(table, tail));
  }

  @Test
  void aCopyOnWriteRewriteOfAFileWithDeletesReadsOnlyTheRowsStillLiveBeforeIt() {
    create(2, true);
    sql("INSERT INTO %s SELECT /*+ REPARTITION(1) */ * FROM VALUES (1L, 'a', 'x'), (2L, 'b', 'x'),"
        + " (3L, 'c', 'x'), (4L, 'd', 'y') AS v(id, data, cat)", TABLE);
    sql("DELETE FROM %s WHERE id = 2", TABLE);
    sql("ALTER TABLE %s SET TBLPROPERTIES ('write.update.mode'='copy-on-write')", TABLE);
    sql("UPDATE %s SET data = 'c2' WHERE id = 3", TABLE);
    List<Snapshot> snapshots = snapshots();
    Snapshot rewrite = snapshots.get(2);
    assertThat(summary(rewrite, "deleted-data-files")).isPositive();
    // the rows of the files it removed, as its parent reads them (deletes applied), and of the
    // files it added: carry-overs included, the row deleted before not
    String parentFiles = String.format("SELECT DISTINCT _file FROM %s VERSION AS OF %d", TABLE, rewrite.parentId());
    String files = String.format("SELECT DISTINCT _file FROM %s VERSION AS OF %d", TABLE, rewrite.snapshotId());
    String expected = String.format(
        "SELECT id, data, cat, 'DELETE', 0, %dL FROM %s VERSION AS OF %d WHERE _file IN (%s EXCEPT %s)"
            + " UNION ALL "
            + "SELECT id, data, cat, 'INSERT', 0, %dL FROM %s VERSION AS OF %d WHERE _file IN (%s EXCEPT %s)",
        rewrite.snapshotId(), TABLE, rewrite.parentId(), parentFiles, files,
        rewrite.snapshotId(), TABLE, rewrite.snapshotId(), files, parentFiles);
    List<String> rows = changes(Map.of("start-snapshot-id", String.valueOf(rewrite.parentId())));
    assertThat(rows)
        .isEqualTo(sorted(spark.sql(expected).collectAsList()))
        .contains("[1,a,x,DELETE,0," + rewrite.snapshotId() + "]")
        .noneMatch(row -> row.startsWith("[2,"));
  }

  @Test
  void filtersOnAPartitionedMergeOnReadTableReadTheSameRowsAsSparkFilters() {
    String table = changed(3, true);
    List<Snapshot> snapshots = snapshots(table);
    List<String> expected = new ArrayList<>();
    for (String row : expectedChanges(table, snapshots)) {
      if (row.split(",")[2].equals("y")) {
        expected.add(row);
      }
    }
    assertThat(expected).isNotEmpty();
    assertThat(sorted(spark.sql("SELECT * FROM " + table + ".changes WHERE cat = 'y'").collectAsList()))
        .isEqualTo(expected);
  }

  @Test
  void tasksOfRowsDeletedByNewDeletesSurviveJavaAndKryoAndReadTheSameRows() throws Exception {
    String table = changed(3, false);
    TableCatalog catalog = (TableCatalog) spark.sessionState().catalogManager().catalog("floe");
    SupportsRead changelog =
        (SupportsRead) catalog.loadTable(Identifier.of(new String[] {"clm", "changed_3_u"}, "changes"));
    ChangelogScan scan =
        (ChangelogScan)
            changelog.newScanBuilder(new CaseInsensitiveStringMap(Map.of("split-size", "1"))).build();
    List<ChangeTask> tasks = new ArrayList<>();
    scan.partitions().forEach(partition -> tasks.addAll(partition.tasks()));
    assertThat(tasks).anyMatch(task -> !task.deletedAfter().isEmpty());
    for (ChangelogScan travelled : List.of(Travel.throughJava(scan), Travel.throughKryo(scan))) {
      assertThat(travelled).isEqualTo(scan);
      List<String> rows = new ArrayList<>();
      for (ChangelogInputPartition partition : travelled.partitions()) {
        ChangelogInputPartition copy = Travel.throughKryo(partition);
        assertThat(copy).isEqualTo(partition);
        try (PartitionReader<InternalRow> reader =
            Travel.throughKryo(travelled.readerFactory()).createReader(copy)) {
          while (reader.next()) {
            InternalRow row = reader.get();
            rows.add("[" + row.getLong(0) + "," + row.getUTF8String(1) + "," + row.getUTF8String(2)
                + "," + row.getUTF8String(3) + "," + row.getInt(4) + "," + row.getLong(5) + "]");
          }
        }
      }
      rows.sort(null);
      assertThat(rows).isEqualTo(expectedChanges(table, snapshots(table)));
    }
  }

  @Test
  void aSnapshotThatAddedEqualityDeletesReadsAsTheRowsTheyDeleteAmongPositionDeletes() throws IOException {
    create(2, true);
    sql("INSERT INTO %s VALUES (1, 'a', 'x'), (2, 'b', 'x'), (5, 'e', 'x'), (3, 'c', 'y'), (4, 'd', 'y')", TABLE);
    sql("DELETE FROM %s WHERE id = 1", TABLE);
    Table table = icebergTable(spark, "clm.t");
    table.newRowDelta().addDeletes(equalityDeletes(table, "x", "b")).commit();
    List<Snapshot> snapshots = snapshots();
    long equality = snapshots.get(2).snapshotId();
    assertThat(sql("SELECT id FROM %s ORDER BY id", TABLE)).extracting(row -> row.getLong(0))
        .containsExactly(3L, 4L, 5L);
    // the equality delete reads as the one row it deleted, not as the row the position delete before it did
    assertThat(changes(Map.of()))
        .isEqualTo(expectedChanges(snapshots))
        .contains("[1,a,x,DELETE,1," + snapshots.get(1).snapshotId() + "]")
        .contains("[2,b,x,DELETE,2," + equality + "]")
        .filteredOn(row -> row.endsWith("," + equality + "]"))
        .hasSize(1);
    // after the equality deletes, they apply as any read applies them: a DELETE of the rows of
    // the file they delete from reads only the row they left, and one of another file its row
    sql("DELETE FROM %s WHERE cat = 'x'", TABLE);
    sql("DELETE FROM %s WHERE id = 3", TABLE);
    List<Snapshot> after = snapshots();
    List<String> expected = expectedChanges(after.subList(3, after.size()));
    assertThat(changes(Map.of("start-snapshot-id", String.valueOf(equality))))
        .isEqualTo(expected)
        .containsExactlyInAnyOrder(
            "[5,e,x,DELETE,0," + after.get(3).snapshotId() + "]",
            "[3,c,y,DELETE,1," + after.get(4).snapshotId() + "]");
    assertThat(changes(Map.of())).isEqualTo(expectedChanges(after));
  }

  /** An equality delete on {@code data} in the partition {@code cat = <cat>}. */
  private static DeleteFile equalityDeletes(Table table, String cat, String data) throws IOException {
    Schema deleteSchema = table.schema().select("data");
    Record key = GenericRecord.create(deleteSchema);
    key.setField("data", data);
    PartitionSpec spec = table.spec();
    GenericRecord partition = GenericRecord.create(spec.partitionType());
    partition.set(0, cat);
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .equalityFieldIds(new int[] {deleteSchema.findField("data").fieldId()})
            .equalityDeleteRowSchema(deleteSchema)
            .build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    EqualityDeleteWriter<Record> writer =
        writers.newEqualityDeleteWriter(files.newOutputFile(spec, partition), spec, partition);
    try (EqualityDeleteWriter<Record> closing = writer) {
      closing.write(key);
    }
    return writer.toDeleteFile();
  }
}
