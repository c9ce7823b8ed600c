package io.floe.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import io.floe.spark.serialization.Travel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The changelog table {@code <table>.changes} on a real table changed by appends and copy-on-write
 * DELETE, UPDATE and MERGE (which rewrite whole files, so carry-over rows appear), and a compaction.
 * The expected rows are computed by Spark from the snapshots read by time travel: for each snapshot,
 * the rows of the data files it removed (DELETE) and of those it added (INSERT), the files told
 * apart by {@code _file} in the snapshot and its parent.
 */
class ChangelogReadTest extends SparkTestBase {
  private static final String TABLE = "floe.cl.t";
  private static final String CHANGES = TABLE + ".changes";

  // Spark's changes of a range, by its first and last snapshot: the tests only read the one table
  private static final Map<List<Long>, List<String>> EXPECTED = new HashMap<>();

  /**
   * The tests only read the table, so it is changed once for all of them; each test that writes
   * has a table of its own.
   */
  @BeforeAll
  static void changeTheTableOnce() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.cl");
    sql("CREATE TABLE %s (id BIGINT, data STRING, cat STRING) USING iceberg PARTITIONED BY (cat)", TABLE);
    changeTheTable();
  }

  @AfterEach
  void tearDown() {
    sql("DROP TABLE IF EXISTS floe.cl.empty");
    sql("DROP TABLE IF EXISTS floe.cl.mor");
  }

  /** A snapshot of the table's current ancestry, oldest first. */
  private record Snap(long id, Long parent, String operation, long millis) {}

  private static List<Snap> snapshots(String table) {
    List<Snap> snaps = new ArrayList<>();
    for (Row row :
        sql("SELECT snapshot_id, parent_id, operation, committed_at FROM %s.snapshots ORDER BY committed_at", table)) {
      snaps.add(new Snap(row.getLong(0), row.isNullAt(1) ? null : row.getLong(1), row.getString(2),
          row.getTimestamp(3).getTime()));
    }
    return snaps;
  }

  /** Appends, copy-on-write DELETE, UPDATE and MERGE, and a compaction, each one snapshot. */
  private static void changeTheTable() {
    sql("INSERT INTO %s VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')", TABLE);
    sql("INSERT INTO %s VALUES (4, 'd', 'x'), (5, 'e', 'y')", TABLE);
    sql("DELETE FROM %s WHERE id = 2", TABLE);
    sql("UPDATE %s SET data = 'c2' WHERE id = 3", TABLE);
    sql("CALL floe.system.rewrite_data_files(table => 'cl.t', options => map('rewrite-all', 'true'))");
    sql("MERGE INTO %s t USING (SELECT 4L AS id, 'd2' AS data, 'x' AS cat UNION ALL "
        + "SELECT 6L, 'f', 'y') s ON t.id = s.id "
        + "WHEN MATCHED THEN UPDATE SET t.data = s.data WHEN NOT MATCHED THEN INSERT *", TABLE);
  }

  /**
   * What the changelog must hold for these snapshots of the range (replace snapshots pass over and
   * take no ordinal): per snapshot, the rows of its parent in files it no longer has, and its rows in
   * files its parent did not have.
   */
  private static List<String> expectedChanges(List<Snap> range) {
    List<Long> key = List.of(range.get(0).id(), range.get(range.size() - 1).id());
    return EXPECTED.computeIfAbsent(key, k -> computeExpectedChanges(range));
  }

  private static List<String> computeExpectedChanges(List<Snap> range) {
    List<String> parts = new ArrayList<>();
    int ordinal = 0;
    for (Snap snap : range) {
      if (snap.operation().equals("replace")) {
        continue;
      }
      String files = "SELECT DISTINCT _file FROM %s VERSION AS OF %d";
      if (snap.parent() != null) {
        parts.add(String.format(
            "SELECT id, data, cat, 'DELETE' AS t, %d AS o, %dL AS s FROM %s VERSION AS OF %d "
                + "WHERE _file IN (" + files + " EXCEPT " + files + ")",
            ordinal, snap.id(), TABLE, snap.parent(), TABLE, snap.parent(), TABLE, snap.id()));
      }
      String before = snap.parent() == null ? "" : " EXCEPT " + String.format(files, TABLE, snap.parent());
      parts.add(String.format(
          "SELECT id, data, cat, 'INSERT' AS t, %d AS o, %dL AS s FROM %s VERSION AS OF %d "
              + "WHERE _file IN (" + files + before + ")",
          ordinal, snap.id(), TABLE, snap.id(), TABLE, snap.id()));
      ordinal++;
    }
    return sorted(spark.sql(String.join(" UNION ALL ", parts)));
  }

  private static List<String> sorted(Dataset<Row> rows) {
    List<String> text = new ArrayList<>();
    rows.collectAsList().forEach(row -> text.add(row.toString()));
    text.sort(null);
    return text;
  }

  private static Dataset<Row> changes(Map<String, String> options) {
    return spark.read().options(options).table(CHANGES);
  }

  @Test
  void changesOfEverySnapshotAreTheRowsOfTheFilesItRemovedAndAdded() {
    List<Snap> snaps = snapshots(TABLE);
    assertThat(snaps).extracting(Snap::operation).contains("replace", "overwrite");
    List<String> expected = expectedChanges(snaps);
    List<String> actual = sorted(spark.sql("SELECT * FROM " + CHANGES));
    assertThat(actual).isEqualTo(expected);
    // copy-on-write rewrote (1, 'a') with the DELETE of id 2: a carry-over pair
    assertThat(actual).contains("[1,a,x,DELETE,2," + snaps.get(2).id() + "]", "[1,a,x,INSERT,2," + snaps.get(2).id() + "]");
    assertThat(spark.table(CHANGES).schema().fieldNames())
        .containsExactly("id", "data", "cat", "_change_type", "_change_ordinal", "_commit_snapshot_id");
  }

  @Test
  void aRangeOfSnapshotIdsReadsTheChangesAfterTheStartUpToTheEnd() {
    List<Snap> snaps = snapshots(TABLE);
    List<String> expected = expectedChanges(snaps.subList(2, 4));
    List<String> actual =
        sorted(changes(Map.of(
            "start-snapshot-id", String.valueOf(snaps.get(1).id()),
            "end-snapshot-id", String.valueOf(snaps.get(3).id()))));
    assertThat(actual).isEqualTo(expected).isNotEmpty();
    // without an end: up to the current snapshot
    assertThat(sorted(changes(Map.of("start-snapshot-id", String.valueOf(snaps.get(3).id())))))
        .isEqualTo(expectedChanges(snaps.subList(4, snaps.size())));
    // without a start: from the first snapshot
    assertThat(sorted(changes(Map.of("end-snapshot-id", String.valueOf(snaps.get(1).id())))))
        .isEqualTo(expectedChanges(snaps.subList(0, 2)));
  }

  @Test
  void aRangeOfTimestampsStartsAfterTheStartTimeAndEndsAtTheEndTime() {
    List<Snap> snaps = snapshots(TABLE);
    // the start is exclusive: the snapshot committed at exactly that millisecond is not read
    List<String> actual =
        sorted(changes(Map.of(
            "start-timestamp", String.valueOf(snaps.get(1).millis()),
            "end-timestamp", String.valueOf(snaps.get(3).millis()))));
    assertThat(actual).isEqualTo(expectedChanges(snaps.subList(2, 4))).isNotEmpty();
    // a start between two commits starts after the older one
    assertThat(sorted(changes(Map.of("start-timestamp", String.valueOf(snaps.get(1).millis() + 1)))))
        .isEqualTo(expectedChanges(snaps.subList(2, snaps.size())));
    // a start after the last commit reads nothing
    Snap last = snaps.get(snaps.size() - 1);
    assertThat(changes(Map.of("start-timestamp", String.valueOf(last.millis() + 1))).count()).isZero();
  }

  @Test
  void filtersAndProjectionsApplyToTheChangeRows() {
    List<Snap> snaps = snapshots(TABLE);
    List<String> expected = new ArrayList<>();
    for (String row : expectedChanges(snaps)) {
      String[] values = row.substring(1, row.length() - 1).split(",");
      if (values[3].equals("DELETE") && values[2].equals("x")) {
        expected.add("[" + values[4] + "," + values[0] + "]");
      }
    }
    expected.sort(null);
    assertThat(sorted(spark.sql(
            "SELECT _change_ordinal, id FROM " + CHANGES + " WHERE cat = 'x' AND _change_type = 'DELETE'")))
        .isEqualTo(expected)
        .isNotEmpty();
    assertThat(spark.sql("SELECT count(*) FROM " + CHANGES).collectAsList().get(0).getLong(0))
        .isEqualTo(expectedChanges(snaps).size());
  }

  @Test
  void thePlanPiecesSurviveJavaAndStrictKryoAndReadTheSameRows() throws Exception {
    TableCatalog catalog = (TableCatalog) spark.sessionState().catalogManager().catalog("floe");
    SupportsRead changelog = (SupportsRead) catalog.loadTable(Identifier.of(new String[] {"cl", "t"}, "changes"));
    ScanBuilder builder =
        changelog.newScanBuilder(new CaseInsensitiveStringMap(Map.of("split-size", "1000")));
    ChangelogScan scan = (ChangelogScan) builder.build();
    assertThat(scan.partitions()).hasSizeGreaterThan(1);
    for (ChangelogScan travelled : List.of(Travel.throughJava(scan), Travel.throughKryo(scan))) {
      assertThat(travelled).isEqualTo(scan);
      ChangelogScan rebuilt =
          new ChangelogScan(travelled.name(), travelled.range(), travelled.readSchema(),
              travelled.partitions(), travelled.readerFactory(), travelled.metrics());
      assertThat(rebuilt).isEqualTo(scan);
      List<String> rows = new ArrayList<>();
      for (ChangelogInputPartition partition : travelled.partitions()) {
        ChangelogInputPartition copy = Travel.throughKryo(partition);
        assertThat(copy).isEqualTo(partition);
        try (PartitionReader<InternalRow> reader = Travel.throughKryo(travelled.readerFactory()).createReader(copy)) {
          while (reader.next()) {
            InternalRow row = reader.get();
            rows.add("[" + row.getLong(0) + "," + row.getUTF8String(1) + "," + row.getUTF8String(2) + ","
                + row.getUTF8String(3) + "," + row.getInt(4) + "," + row.getLong(5) + "]");
          }
        }
      }
      rows.sort(null);
      assertThat(rows).isEqualTo(expectedChanges(snapshots(TABLE)));
    }
  }

  @Test
  void aTableWithoutSnapshotsHasAnEmptyChangelog() {
    sql("CREATE TABLE floe.cl.empty (id BIGINT, data STRING, cat STRING) USING iceberg PARTITIONED BY (cat)");
    assertThat(spark.table("floe.cl.empty.changes").count()).isZero();
  }

  @Test
  void badRangesFailNamingTheOptions() {
    List<Snap> snaps = snapshots(TABLE);
    String first = String.valueOf(snaps.get(0).id());
    assertThatThrownBy(() -> changes(Map.of("start-snapshot-id", first, "start-timestamp", "1")).collect())
        .hasMessageContaining("Cannot read " + CHANGES)
        .hasMessageContaining("cannot set both start-snapshot-id and start-timestamp");
    assertThatThrownBy(() -> changes(Map.of("start-timestamp", "5", "end-timestamp", "5")).collect())
        .hasMessageContaining("start-timestamp (5) must be before end-timestamp (5)");
    assertThatThrownBy(() -> changes(Map.of("start-snapshot-id", "12345")).collect())
        .hasMessageContaining("option 'start-snapshot-id' names no snapshot of the table: 12345");
    assertThatThrownBy(() -> changes(Map.of(
            "start-snapshot-id", String.valueOf(snaps.get(3).id()),
            "end-snapshot-id", String.valueOf(snaps.get(1).id()))).collect())
        .hasMessageContaining("is not an ancestor of end snapshot");
    assertThatThrownBy(() -> changes(Map.of("snapshot-id", first)).collect())
        .hasMessageContaining("a changelog takes no time travel");
  }

  @Test
  void aScanOnlyAStreamCanReadSaysSoAndWhyInsteadOfAnEmptyRange() throws Exception {
    TableCatalog catalog = (TableCatalog) spark.sessionState().catalogManager().catalog("floe");
    CaseInsensitiveStringMap options =
        new CaseInsensitiveStringMap(Map.of("start-snapshot-id", "12345"));
    Map<Identifier, String> reads =
        Map.of(
            Identifier.of(new String[] {"cl", "t"}, "changes"), "floe.cl.t.changes",
            Identifier.of(new String[] {"cl"}, "t"), "floe.cl.t");
    for (Map.Entry<Identifier, String> read : reads.entrySet()) {
      Scan scan =
          ((SupportsRead) catalog.loadTable(read.getKey())).newScanBuilder(options).build();
      assertThat(scan.description())
          .as(read.getValue())
          .contains(read.getValue())
          .contains("stream only")
          .contains("names no snapshot of the table: 12345")
          .doesNotContain("empty")
          .doesNotContain("groups=0");
      assertThatThrownBy(scan::toBatch)
          .hasMessageContaining("names no snapshot of the table: 12345");
    }
  }

  @Test
  void aMergeOnReadDeleteReadsAsTheRowsItsDeleteFileRemoved() {
    sql("CREATE TABLE floe.cl.mor (id BIGINT, data STRING) USING iceberg TBLPROPERTIES ("
        + "'format-version'='2', 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read')");
    // one file, so that deleting one of its rows needs a delete file
    sql("INSERT INTO floe.cl.mor SELECT /*+ REPARTITION(1) */ * FROM VALUES (1L, 'a'), (2L, 'b') AS v(id, data)");
    sql("DELETE FROM floe.cl.mor WHERE id = 1");
    List<Snap> snaps = snapshots("floe.cl.mor");
    long deleting = snaps.get(1).id();
    assertThat(spark.sql("SELECT count(*) FROM floe.cl.mor.delete_files").collectAsList().get(0).getLong(0))
        .isPositive();
    String expected =
        "SELECT *, 'INSERT', 0, %1$dL FROM floe.cl.mor VERSION AS OF %1$d UNION ALL "
            + "SELECT *, 'DELETE', 1, %2$dL FROM (SELECT * FROM floe.cl.mor VERSION AS OF %1$d "
            + "EXCEPT ALL SELECT * FROM floe.cl.mor VERSION AS OF %2$d)";
    assertThat(sorted(spark.table("floe.cl.mor.changes")))
        .isEqualTo(sorted(spark.sql(String.format(expected, snaps.get(0).id(), deleting))))
        .contains("[1,a,DELETE,1," + deleting + "]")
        .hasSize(3);
  }
}
