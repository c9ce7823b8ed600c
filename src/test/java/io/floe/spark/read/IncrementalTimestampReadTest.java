package io.floe.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Incremental batch reads chosen by commit time ({@code start-timestamp} exclusive, {@code
 * end-timestamp} inclusive, alone or mixed with snapshot ids) on a real table. Expected rows are
 * Spark's EXCEPT ALL of two time-travel reads of the same table.
 */
class IncrementalTimestampReadTest extends SparkTestBase {
  private static final String TABLE = "floe.inct.t";

  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.inct");
  }

  @BeforeEach
  void setUp() {
    sql("CREATE TABLE " + TABLE + " (id BIGINT, data STRING) USING iceberg");
  }

  @AfterEach
  void tearDown() {
    sql("DROP TABLE IF EXISTS " + TABLE);
  }

  /** Commits a statement as one snapshot, a few milliseconds after the previous one. */
  private static Snapshot commit(String statement) throws InterruptedException {
    Thread.sleep(5);
    sql(statement);
    Snapshot snapshot = table().currentSnapshot();
    Thread.sleep(5);
    return snapshot;
  }

  private static Table table() {
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
    return catalog.loadTable(TableIdentifier.of("inct", "t"));
  }

  /** Four appends: snapshots s0..s3. */
  private static List<Snapshot> fourAppends() throws InterruptedException {
    List<Snapshot> snapshots = new ArrayList<>();
    snapshots.add(commit("INSERT INTO " + TABLE + " VALUES (1, 'a'), (2, 'a')"));
    snapshots.add(commit("INSERT INTO " + TABLE + " VALUES (3, 'b')"));
    snapshots.add(commit("INSERT INTO " + TABLE + " VALUES (4, 'c'), (4, 'c')"));
    snapshots.add(commit("INSERT INTO " + TABLE + " VALUES (5, 'd')"));
    return snapshots;
  }

  private static Dataset<Row> read(String... options) {
    DataFrameReader reader = spark.read();
    for (int i = 0; i < options.length; i += 2) {
      reader = reader.option(options[i], options[i + 1]);
    }
    return reader.table(TABLE);
  }

  private static List<String> sorted(Dataset<Row> rows) {
    List<String> text = new ArrayList<>();
    rows.collectAsList().forEach(row -> text.add(row.toString()));
    text.sort(null);
    return text;
  }

  /** Spark's rows of snapshot {@code to} EXCEPT ALL those of {@code from} (null: no rows). */
  private static List<String> difference(Snapshot from, Snapshot to) {
    String later = "SELECT id, data FROM " + TABLE + " VERSION AS OF " + to.snapshotId();
    return sorted(spark.sql(
        from == null ? later : later + " EXCEPT ALL SELECT id, data FROM " + TABLE + " VERSION AS OF " + from.snapshotId()));
  }

  private static String millis(Snapshot snapshot, long delta) {
    return String.valueOf(snapshot.timestampMillis() + delta);
  }

  @Test
  void aSnapshotAtExactlyTheStartIsExcludedAndOneAtExactlyTheEndIncluded() throws Exception {
    List<Snapshot> s = fourAppends();
    List<String> read =
        sorted(read("start-timestamp", millis(s.get(1), 0), "end-timestamp", millis(s.get(3), 0)));
    assertThat(read).isEqualTo(difference(s.get(1), s.get(3))).containsExactly("[4,c]", "[4,c]", "[5,d]");

    // one millisecond earlier on both sides: s1 is read, s3 is not
    assertThat(sorted(read("start-timestamp", millis(s.get(1), -1), "end-timestamp", millis(s.get(3), -1))))
        .isEqualTo(difference(s.get(0), s.get(2)));
  }

  @Test
  void aStartAloneReadsUpToTheCurrentSnapshot() throws Exception {
    List<Snapshot> s = fourAppends();
    assertThat(sorted(read("start-timestamp", millis(s.get(0), 0)))).isEqualTo(difference(s.get(0), s.get(3)));
    // before every snapshot: every append, the first one included
    assertThat(sorted(read("start-timestamp", millis(s.get(0), -1)))).isEqualTo(difference(null, s.get(3)));
    // filters and aggregates see only the selected appends
    Dataset<Row> appended = read("start-timestamp", millis(s.get(1), 0));
    appended.createOrReplaceTempView("appended_by_time");
    spark.sql("SELECT id, data FROM " + TABLE + " VERSION AS OF " + s.get(3).snapshotId()
        + " EXCEPT ALL SELECT id, data FROM " + TABLE + " VERSION AS OF " + s.get(1).snapshotId())
        .createOrReplaceTempView("expected_by_time");
    assertThat(sorted(spark.sql("SELECT count(*), max(id) FROM appended_by_time WHERE data <> 'd'")))
        .isEqualTo(sorted(spark.sql("SELECT count(*), max(id) FROM expected_by_time WHERE data <> 'd'")));
  }

  @Test
  void timesThatSelectNoSnapshotReadNoRows() throws Exception {
    List<Snapshot> s = fourAppends();
    assertThat(read("start-timestamp", millis(s.get(3), 0)).count()).isZero();
    assertThat(read("start-timestamp", millis(s.get(3), 1)).count()).isZero();
    assertThat(read("start-timestamp", millis(s.get(0), -10), "end-timestamp", millis(s.get(0), -1)).count())
        .isZero();
    // a start and an end time between the same two commits
    assertThat(read("start-timestamp", millis(s.get(1), 1), "end-timestamp", millis(s.get(1), 2)).count())
        .isZero();
  }

  @Test
  void timesMixWithSnapshotIds() throws Exception {
    List<Snapshot> s = fourAppends();
    assertThat(sorted(read("start-snapshot-id", String.valueOf(s.get(0).snapshotId()),
            "end-timestamp", millis(s.get(2), 0))))
        .isEqualTo(difference(s.get(0), s.get(2)));
    assertThat(sorted(read("start-timestamp", millis(s.get(0), 0),
            "end-snapshot-id", String.valueOf(s.get(2).snapshotId()))))
        .isEqualTo(difference(s.get(0), s.get(2)));
  }

  @Test
  void overwritesBetweenTheTimesArePassedOverAsWithSnapshotIds() throws Exception {
    Snapshot first = commit("INSERT INTO " + TABLE + " VALUES (1, 'a')");
    commit("INSERT OVERWRITE " + TABLE + " SELECT id + 10, data FROM " + TABLE);
    Snapshot last = commit("INSERT INTO " + TABLE + " VALUES (2, 'b')");
    List<String> byTime = sorted(read("start-timestamp", millis(first, 0)));
    assertThat(byTime)
        .isEqualTo(sorted(read("start-snapshot-id", String.valueOf(first.snapshotId()))))
        .isEqualTo(difference(table().snapshot(last.parentId()), last))
        .containsExactly("[2,b]");
    assertThat(SnapshotUtil.currentAncestors(table())).hasSize(3);
  }

  @Test
  void badCombinationsFailNamingTheOptions() throws Exception {
    List<Snapshot> s = fourAppends();
    String id = String.valueOf(s.get(0).snapshotId());
    assertThatThrownBy(() -> read("start-snapshot-id", id, "start-timestamp", millis(s.get(0), 0)).collect())
        .hasMessageContaining("cannot set both start-snapshot-id and start-timestamp for incremental scans");
    assertThatThrownBy(() -> read("start-timestamp", millis(s.get(0), 0), "end-snapshot-id",
            String.valueOf(s.get(2).snapshotId()), "end-timestamp", millis(s.get(2), 0)).collect())
        .hasMessageContaining("cannot set both end-snapshot-id and end-timestamp for incremental scans");
    assertThatThrownBy(() -> read("end-timestamp", millis(s.get(2), 0)).collect())
        .hasMessageContaining(
            "Cannot set only `end-timestamp` for incremental scans. Please, set `start-snapshot-id` or `start-timestamp` too.");
    assertThatThrownBy(() -> read("start-timestamp", "5", "end-timestamp", "5").collect())
        .hasMessageContaining("start-timestamp (5) must be before end-timestamp (5)");
    assertThatThrownBy(() -> read("start-timestamp", "yesterday").collect())
        .hasMessageContaining("option 'start-timestamp' is not a number: yesterday");
    assertThatThrownBy(() -> read("start-timestamp", millis(s.get(0), 0), "snapshot-id", id).collect())
        .hasMessageContaining("Cannot use time travel in incremental scan");
    assertThatThrownBy(() -> read("start-timestamp", millis(s.get(0), 0), "end-snapshot-id", "12345").collect())
        .hasMessageContaining("option 'end-snapshot-id' names no snapshot of the table: 12345");
  }
}
