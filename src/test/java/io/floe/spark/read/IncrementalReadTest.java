package io.floe.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Incremental batch reads ({@code start-snapshot-id}, {@code end-snapshot-id}) on a real table:
 * the expected rows are Spark's difference of the two snapshots' rows (for appends only), or the
 * rows the appends wrote.
 */
class IncrementalReadTest extends SparkTestBase {
  private final List<Long> snapshots = new ArrayList<>();

  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.inc");
  }

  @BeforeEach
  void setUp() {
    sql("CREATE TABLE floe.inc.t (id BIGINT, data STRING) USING iceberg PARTITIONED BY (data)");
    snapshots.clear();
  }

  @AfterEach
  void tearDown() {
    sql("DROP TABLE IF EXISTS floe.inc.t");
  }

  private void insert(String values) {
    sql("INSERT INTO floe.inc.t VALUES %s", values);
    snapshots.add(currentSnapshot());
  }

  private static long currentSnapshot() {
    return sql("SELECT snapshot_id FROM floe.inc.t.snapshots ORDER BY committed_at DESC LIMIT 1").get(0).getLong(0);
  }

  private static Dataset<Row> incremental(Long start, Long end) {
    var reader = spark.read().format("floe");
    if (start != null) {
      reader = reader.option("start-snapshot-id", String.valueOf(start));
    }
    if (end != null) {
      reader = reader.option("end-snapshot-id", String.valueOf(end));
    }
    return reader.table("floe.inc.t");
  }

  private static List<String> sorted(Dataset<Row> rows) {
    List<String> text = new ArrayList<>();
    rows.collectAsList().forEach(row -> text.add(row.toString()));
    text.sort(null);
    return text;
  }

  private static List<String> rows(String query, Object... args) {
    return sorted(spark.sql(String.format(query, args)));
  }

  @Test
  void readsTheRowsAppendedBetweenTwoSnapshots() {
    insert("(1, 'a'), (2, 'b')");
    insert("(3, 'a')");
    insert("(4, 'c'), (5, 'b')");
    insert("(6, 'a')");
    assertThat(sorted(incremental(snapshots.get(0), snapshots.get(2))))
        .isEqualTo(rows(
            "SELECT * FROM floe.inc.t VERSION AS OF %d EXCEPT ALL SELECT * FROM floe.inc.t VERSION AS OF %d",
            snapshots.get(2), snapshots.get(0)))
        .hasSize(3);
    // without an end: up to the current snapshot
    assertThat(sorted(incremental(snapshots.get(1), null)))
        .isEqualTo(rows(
            "SELECT * FROM floe.inc.t EXCEPT ALL SELECT * FROM floe.inc.t VERSION AS OF %d", snapshots.get(1)));
    // the same start and end is an empty range, which Iceberg (and so the official runtime) rejects
    assertThatThrownBy(() -> incremental(snapshots.get(3), snapshots.get(3)).collectAsList())
        .hasMessageContaining("is not a parent ancestor of end snapshot");
  }

  @Test
  void filtersProjectionsAndAggregatesSeeOnlyTheAppendedRows() {
    insert("(1, 'a'), (2, 'b')");
    insert("(3, 'a'), (4, 'b')");
    insert("(5, 'a')");
    Dataset<Row> appended = incremental(snapshots.get(0), null);
    appended.createOrReplaceTempView("appended");
    spark.sql(String.format(
            "SELECT * FROM floe.inc.t EXCEPT ALL SELECT * FROM floe.inc.t VERSION AS OF %d", snapshots.get(0)))
        .createOrReplaceTempView("expected");
    assertThat(rows("SELECT id FROM appended WHERE data = 'a'"))
        .isEqualTo(rows("SELECT id FROM expected WHERE data = 'a'"));
    assertThat(rows("SELECT count(*), max(id), min(id) FROM appended"))
        .isEqualTo(rows("SELECT count(*), max(id), min(id) FROM expected"));
    assertThat(rows("SELECT count(*) FROM appended")).containsExactly("[3]");
  }

  @Test
  void overwriteSnapshotsBetweenArePassedOverAsTheOfficialRuntimeDoes() {
    insert("(1, 'a')");
    insert("(2, 'b')");
    sql("INSERT OVERWRITE floe.inc.t SELECT id + 10, data FROM floe.inc.t");
    snapshots.add(currentSnapshot());
    insert("(3, 'c')");
    // the appends after the start, not the overwrite's rewritten rows
    assertThat(sorted(incremental(snapshots.get(0), null))).containsExactly("[2,b]", "[3,c]");
  }

  @Test
  void badRangesFailNamingTheCause() {
    insert("(1, 'a')");
    insert("(2, 'b')");
    assertThatThrownBy(() -> incremental(null, snapshots.get(1)).collectAsList())
        .hasMessageContaining("Cannot set only `end-snapshot-id` for incremental scans. Please, set `start-snapshot-id` too.");
    assertThatThrownBy(() -> incremental(snapshots.get(1), snapshots.get(0)).collectAsList())
        .hasMessageContaining("is not a parent ancestor of end snapshot");
    assertThatThrownBy(() -> incremental(12345L, null).collectAsList())
        .hasMessageContaining("option 'start-snapshot-id' names no snapshot of the table: 12345");
    assertThatThrownBy(
            () -> spark.read().option("start-snapshot-id", String.valueOf(snapshots.get(0)))
                .option("snapshot-id", String.valueOf(snapshots.get(1))).table("floe.inc.t").collectAsList())
        .hasMessageContaining("Cannot use time travel in incremental scan");
    assertThatThrownBy(
            () -> spark.read().option("start-snapshot-id", String.valueOf(snapshots.get(0)))
                .option("versionAsOf", String.valueOf(snapshots.get(1))).table("floe.inc.t").collectAsList())
        .hasMessageContaining("Cannot use time travel in incremental scan");
    assertThatThrownBy(
            () -> spark.read().option("start-snapshot-id", "x").table("floe.inc.t").collectAsList())
        .hasMessageContaining("option 'start-snapshot-id' is not a snapshot id: x");
  }
}
