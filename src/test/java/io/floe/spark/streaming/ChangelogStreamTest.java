package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.read.SnapshotHistory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code spark.readStream.table("<table>.changes")} on a merge-on-read table (format 3: deletion
 * vectors) with real checkpoints; every micro-batch's rows are recorded on the driver
 * (foreachBatch). The expected rows are Spark's: per snapshot, its parent's rows {@code EXCEPT
 * ALL} its rows as DELETE and the other way round as INSERT, read by time travel.
 */
class ChangelogStreamTest extends SourceTestBase<String> {
  private static final String TABLE = "floe.cs.t";
  // changed once by firstChanges and moreChanges, for the tests that only stream from it
  private static final String CHANGED = "floe.cs.changed";

  @BeforeAll
  static void changeTheSharedTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.cs");
    create(CHANGED);
    firstChanges(CHANGED);
    moreChanges(CHANGED);
  }

  @Override
  List<String> tablesToDrop() {
    return List.of(TABLE);
  }

  private static void create(String table) {
    sql("CREATE TABLE %s (id BIGINT, data STRING) USING iceberg TBLPROPERTIES ('format-version'='3',"
        + " 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read',"
        + " 'write.merge.mode'='merge-on-read')", table);
  }

  private StreamingQuery start(String... options) throws TimeoutException {
    return startOn(TABLE, options);
  }

  /** Starts the changelog stream; each micro-batch is recorded as its rows' text. */
  private StreamingQuery startOn(String table, String... options) throws TimeoutException {
    return record(
        reader(options).table(table + ".changes"),
        Trigger.AvailableNow(),
        rows -> {
          List<String> text = new ArrayList<>();
          for (Row row : rows.collectAsList()) {
            text.add(row.toString());
          }
          return text;
        });
  }

  /** Every row read so far, without the ordinal (a stream numbers each micro-batch's snapshots). */
  private List<String> allRows() {
    return rowsOfBatchesFrom(Long.MIN_VALUE);
  }

  private static String withoutOrdinal(String row) {
    String[] values = row.substring(1, row.length() - 1).split(",");
    return "[" + values[0] + "," + values[1] + "," + values[2] + "," + values[4] + "]";
  }

  private static List<Snapshot> snapshots() {
    return snapshots(TABLE);
  }

  private static List<Snapshot> snapshots(String name) {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    Table table = catalog.icebergCatalog().loadTable(TableIdentifier.parse(name.substring("floe.".length())));
    return SnapshotHistory.ancestry(table);
  }

  private static List<String> expected(List<Snapshot> range) {
    return expected(TABLE, range);
  }

  /** Spark's changes of these snapshots (id, data, type, snapshot), compactions passed over. */
  private static List<String> expected(String table, List<Snapshot> range) {
    List<String> parts = new ArrayList<>();
    for (Snapshot snapshot : range) {
      if (snapshot.operation().equals("replace")) {
        continue;
      }
      String before = SnapshotHistory.asOf(table, "id, data", snapshot.parentId());
      String after = SnapshotHistory.asOf(table, "id, data", snapshot.snapshotId());
      parts.add(String.format("SELECT *, 'DELETE', %dL FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)",
          snapshot.snapshotId(), before, after));
      parts.add(String.format("SELECT *, 'INSERT', %dL FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)",
          snapshot.snapshotId(), after, before));
    }
    List<String> rows = new ArrayList<>();
    spark.sql(String.join(" UNION ALL ", parts)).collectAsList().forEach(row -> rows.add(row.toString()));
    rows.sort(null);
    return rows;
  }

  private static void firstChanges(String table) {
    sql("INSERT INTO %s SELECT /*+ REPARTITION(1) */ * FROM VALUES (1L, 'a'), (2L, 'b'), (3L, 'c'),"
        + " (4L, 'd') AS v(id, data)", table);
    sql("DELETE FROM %s WHERE id = 2", table);
    sql("UPDATE %s SET data = 'c2' WHERE id = 3", table);
  }

  private static void moreChanges(String table) {
    sql("MERGE INTO %s t USING (SELECT 4L AS id, 'd2' AS data UNION ALL SELECT 5L, 'e') s"
        + " ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.data = s.data WHEN NOT MATCHED THEN INSERT *", table);
    sql("CALL floe.system.rewrite_data_files(table => '%s', options => map('rewrite-all', 'true'))",
        table.substring("floe.".length()));
    sql("DELETE FROM %s WHERE id = 1", table);
  }

  @Test
  void availableNowReadsEveryChangeOnceAndARestartGoesOnFromTheCheckpoint() throws Exception {
    create(TABLE);
    firstChanges(TABLE);
    start().awaitTermination();
    List<Snapshot> first = snapshots();
    assertThat(allRows()).isEqualTo(expected(first)).anyMatch(row -> row.contains("DELETE"));
    int batchesBefore = batches().size();
    moreChanges(TABLE);
    start().awaitTermination();
    List<Snapshot> all = snapshots();
    assertThat(all).extracting(Snapshot::operation).contains("replace");
    // the restart read only the new snapshots' changes: every change once
    assertThat(allRows()).isEqualTo(expected(all));
    assertThat(rowsOfBatchesFrom(batchesBefore)).isEqualTo(expected(all.subList(first.size(), all.size()))).isNotEmpty();
  }

  @Test
  void aFileLimitEndsMicroBatchesBetweenSnapshotsAndOrdinalsCountWithinABatch() throws Exception {
    startOn(CHANGED, "streaming-max-files-per-micro-batch", "1").awaitTermination();
    List<Snapshot> all = snapshots(CHANGED);
    long changing = all.stream().filter(s -> !s.operation().equals("replace")).count();
    Map<Long, List<String>> batches = batches();
    // every snapshot changes at least one file: one snapshot per micro-batch
    assertThat(batches).hasSize((int) changing);
    for (List<String> batch : batches.values()) {
      assertThat(batch).isNotEmpty().allMatch(row -> row.split(",")[3].equals("0"));
      assertThat(batch.stream().map(row -> row.split(",")[4]).distinct()).hasSize(1);
    }
    assertThat(allRows()).isEqualTo(expected(CHANGED, all));
  }

  @Test
  void streamFromTimestampStartsAtTheFirstSnapshotCommittedAtOrAfterIt() throws Exception {
    List<Snapshot> all = snapshots(CHANGED);
    startOn(CHANGED, "stream-from-timestamp", String.valueOf(all.get(2).timestampMillis())).awaitTermination();
    assertThat(allRows()).isEqualTo(expected(CHANGED, all.subList(2, all.size()))).isNotEmpty();
  }

  /** The batch changelog read after {@code after}, as {@link #allRows} gives a stream's rows. */
  private static List<String> batchChangesAfter(long after) {
    List<String> rows = new ArrayList<>();
    spark.read().option("start-snapshot-id", String.valueOf(after)).table(TABLE + ".changes")
        .collectAsList().forEach(row -> rows.add(withoutOrdinal(row.toString())));
    rows.sort(null);
    return rows;
  }

  /** The message of the feed's failure with these options; the checkpoint is removed after. */
  private String failureOf(String table, String... options) throws Exception {
    try {
      startOn(table, options).awaitTermination();
    } catch (StreamingQueryException e) {
      return e.getMessage();
    } finally {
      deleteRecursively(checkpoints.resolve("q"));
    }
    throw new AssertionError("the change feed with " + List.of(options) + " did not fail");
  }

  @Test
  void startSnapshotIdStartsTheFeedAfterItAndARestartReadsEachLaterChangeOnce() throws Exception {
    create(TABLE);
    firstChanges(TABLE);
    List<Snapshot> first = snapshots();
    assertThat(first).extracting(Snapshot::operation).containsExactly("append", "delete", "overwrite");
    String second = String.valueOf(first.get(1).snapshotId());

    startOn(TABLE, "start-snapshot-id", second).awaitTermination();
    assertThat(allRows())
        .isEqualTo(expected(first.subList(2, first.size())))
        .isEqualTo(batchChangesAfter(first.get(1).snapshotId()))
        .anyMatch(row -> row.contains("DELETE"))
        .anyMatch(row -> row.contains("INSERT"));
    int batchesBefore = batches().size();

    // the checkpoint's offset wins over the option: the restart reads only the later snapshots
    moreChanges(TABLE);
    startOn(TABLE, "start-snapshot-id", second).awaitTermination();
    List<Snapshot> all = snapshots();
    assertThat(allRows())
        .isEqualTo(expected(all.subList(2, all.size())))
        .isEqualTo(batchChangesAfter(first.get(1).snapshotId()));
    assertThat(rowsOfBatchesFrom(batchesBefore)).isEqualTo(expected(all.subList(first.size(), all.size()))).isNotEmpty();
  }

  @Test
  void aStartSnapshotIdTheFeedCannotStartAfterFailsNamingIt() throws Exception {
    create(TABLE);
    firstChanges(TABLE);
    List<Snapshot> history = snapshots();
    long second = history.get(1).snapshotId();
    sql("CALL floe.system.rollback_to_snapshot('cs.t', %d)", history.get(0).snapshotId());
    sql("INSERT INTO %s VALUES (9L, 'z')", TABLE);
    long current = snapshots().get(snapshots().size() - 1).snapshotId();

    assertThat(failureOf(TABLE, "start-snapshot-id", "42"))
        .contains("Cannot read " + TABLE + " as a stream: option 'start-snapshot-id' names no snapshot"
            + " of the table: 42");
    assertThat(failureOf(TABLE, "start-snapshot-id", String.valueOf(second)))
        .contains("Cannot read " + TABLE + " as a stream: option 'start-snapshot-id' (" + second
            + ") is not an ancestor of the current snapshot (" + current + ")");
    assertThat(failureOf(TABLE, "start-snapshot-id", "first"))
        .contains("option 'start-snapshot-id'").contains("'first'");
    assertThat(batches()).isEmpty();
  }

  @Test
  void theOptionsThatEndOrTimeABatchRangeFailAStreamNamingThem() throws Exception {
    String first = String.valueOf(snapshots(CHANGED).get(0).snapshotId());
    assertThat(failureOf(CHANGED, "end-snapshot-id", first))
        .contains("as a stream: option 'end-snapshot-id' ends a batch read, and a stream has no end");
    for (String option : List.of("start-timestamp", "end-timestamp")) {
      assertThat(failureOf(CHANGED, option, "0"))
          .contains("as a stream: option '" + option + "' chooses the snapshots of a batch read");
    }
  }

  /** The change rows of the micro-batches from the given batch on, without ordinals, sorted. */
  private List<String> rowsOfBatchesFrom(long firstBatch) {
    List<String> rows = new ArrayList<>();
    batches().entrySet().stream()
        .filter(entry -> entry.getKey() >= firstBatch)
        .forEach(entry -> entry.getValue().forEach(row -> rows.add(withoutOrdinal(row))));
    rows.sort(null);
    return rows;
  }
}
