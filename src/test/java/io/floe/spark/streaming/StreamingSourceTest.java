package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stream source on a real SparkSession: tables written by batch writes, streams with real
 * checkpoints; every micro-batch's rows are recorded on the driver (foreachBatch).
 */
class StreamingSourceTest extends SourceTestBase<Long> {
  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.s");
  }

  @BeforeEach
  void createSource() {
    sql("CREATE TABLE floe.s.src (id BIGINT, data STRING) USING iceberg");
  }

  @Override
  List<String> tablesToDrop() {
    return List.of("floe.s.src", "floe.s.other");
  }

  /** Appends ids [from, to) in {@code files} data files, as one snapshot. */
  private static void append(String table, long from, long to, int files) {
    Dataset<Row> rows = spark.range(from, to).selectExpr("id", "CAST(id AS STRING) AS data");
    try {
      rows.repartitionByRange(files, rows.col("id")).sortWithinPartitions("id").writeTo(table).append();
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void append(long from, long to, int files) {
    append("floe.s.src", from, to, files);
  }

  private StreamingQuery start(Trigger trigger, String... options) throws TimeoutException {
    return start("floe.s.src", trigger, options);
  }

  private StreamingQuery start(String table, Trigger trigger, String... options) throws TimeoutException {
    return record(reader(options).table(table), trigger, SourceTestBase::ids);
  }

  private List<Long> allIds() {
    List<Long> ids = new ArrayList<>();
    batches().values().forEach(ids::addAll);
    return ids;
  }

  private static List<Long> tableIds(String query) {
    List<Long> ids = new ArrayList<>();
    for (Row row : spark.sql(query).collectAsList()) {
      ids.add(row.getLong(0));
    }
    ids.sort(null);
    return ids;
  }

  private static List<String> rows(String query) {
    return StreamTables.sortedRows(spark.sql(query));
  }

  /** The batches that read anything, as the sorted ids each read. */
  private List<List<Long>> nonEmptyBatches() {
    List<List<Long>> result = new ArrayList<>();
    for (List<Long> ids : batches().values()) {
      if (!ids.isEmpty()) {
        List<Long> sorted = new ArrayList<>(ids);
        sorted.sort(null);
        result.add(sorted);
      }
    }
    return result;
  }

  private static List<Long> range(long from, long to) {
    List<Long> ids = new ArrayList<>();
    for (long id = from; id < to; id++) {
      ids.add(id);
    }
    return ids;
  }

  private static long currentSnapshotId() {
    return StreamTables.load(warehouse, "s", "src").currentSnapshot().snapshotId();
  }

  /** The ids Spark sees added after one snapshot up to another: time travel, EXCEPT ALL. */
  private static List<Long> idsAddedBetween(long after, long upTo) {
    return tableIds("SELECT id FROM floe.s.src VERSION AS OF " + upTo
        + " EXCEPT ALL SELECT id FROM floe.s.src VERSION AS OF " + after);
  }

  /** The ids of the incremental batch read after {@code after}, up to the current snapshot. */
  private static List<Long> incrementalIds(long after) {
    List<Long> ids = new ArrayList<>();
    for (Row row : spark.read().option("start-snapshot-id", String.valueOf(after)).table("floe.s.src")
        .select("id").collectAsList()) {
      ids.add(row.getLong(0));
    }
    ids.sort(null);
    return ids;
  }

  /** The message of the stream's failure with these options; the checkpoint is removed after. */
  private String failureOf(String... options) throws Exception {
    StreamingQuery query = start(Trigger.AvailableNow(), options);
    try {
      query.awaitTermination();
    } catch (StreamingQueryException e) {
      return e.getMessage();
    } finally {
      deleteRecursively(checkpoints.resolve("q"));
    }
    throw new AssertionError("the stream with " + List.of(options) + " did not fail");
  }

  @Test
  void startSnapshotIdStartsAfterItAndRestartsGoOnFromTheCheckpoint() throws Exception {
    append(0, 5, 1);
    long first = currentSnapshotId();
    append(5, 12, 2);
    append(12, 15, 1);
    long third = currentSnapshotId();

    start(Trigger.AvailableNow(), "start-snapshot-id", String.valueOf(first)).awaitTermination();
    List<Long> read = allIds();
    read.sort(null);
    assertThat(read).isNotEmpty().isEqualTo(idsAddedBetween(first, third)).isEqualTo(incrementalIds(first));

    // the checkpoint's offset wins over the option: appends after the first run are read once
    append(15, 20, 1);
    long fourth = currentSnapshotId();
    start(Trigger.AvailableNow(), "start-snapshot-id", String.valueOf(first)).awaitTermination();
    List<Long> afterRestart = allIds();
    afterRestart.sort(null);
    List<Long> expected = new ArrayList<>(idsAddedBetween(first, third));
    expected.addAll(idsAddedBetween(third, fourth));
    expected.sort(null);
    assertThat(afterRestart).isEqualTo(expected).isEqualTo(incrementalIds(first));

    // also when the start snapshot was expired since: the option is not looked at again
    StreamTables.load(warehouse, "s", "src").expireSnapshots().expireSnapshotId(first).commit();
    append(20, 23, 1);
    long fifth = currentSnapshotId();
    start(Trigger.AvailableNow(), "start-snapshot-id", String.valueOf(first)).awaitTermination();
    List<Long> afterExpiry = allIds();
    afterExpiry.sort(null);
    expected.addAll(idsAddedBetween(fourth, fifth));
    expected.sort(null);
    assertThat(afterExpiry).isEqualTo(expected);
  }

  @Test
  void startSnapshotIdOfTheCurrentSnapshotReadsOnlyLaterAppends() throws Exception {
    append(0, 5, 1);
    long current = currentSnapshotId();
    // a batch read with that start fails, as the official runtime's: its start would be its end
    assertThatThrownBy(() -> incrementalIds(current))
        .hasMessageContaining("is not a parent ancestor of end snapshot " + current);

    StreamingQuery query = start(Trigger.ProcessingTime(0), "start-snapshot-id", String.valueOf(current));
    query.processAllAvailable();
    assertThat(allIds()).isEmpty();
    append(5, 9, 1);
    query.processAllAvailable();
    append(9, 12, 2);
    query.processAllAvailable();
    query.stop();
    List<Long> read = allIds();
    read.sort(null);
    assertThat(read).isNotEmpty().isEqualTo(idsAddedBetween(current, currentSnapshotId()));
  }

  /** Deletes from disk the data manifests that snapshot {@code id} added. */
  private static List<String> deleteManifestsAddedBy(long id) {
    Table table = StreamTables.load(warehouse, "s", "src");
    List<String> deleted = new ArrayList<>();
    for (ManifestFile manifest : table.snapshot(id).dataManifests(table.io())) {
      if (manifest.snapshotId() == id) {
        table.io().deleteFile(manifest.path());
        deleted.add(manifest.path());
      }
    }
    assertThat(deleted).isNotEmpty();
    return deleted;
  }

  @Test
  void aStreamWithStartSnapshotIdNeverPlansTheBatchRangeSoAnUnreadableOldManifestDoesNotStopIt()
      throws Exception {
    append(0, 5, 1);
    long first = currentSnapshotId();
    append(5, 10, 1);
    long second = currentSnapshotId();
    append(10, 15, 2);
    long third = currentSnapshotId();
    start(Trigger.AvailableNow(), "start-snapshot-id", String.valueOf(first)).awaitTermination();
    assertThat(allIds()).containsExactlyInAnyOrderElementsOf(idsAddedBetween(first, third));

    // the second snapshot is now behind the stream's checkpoint, but still in the option's range
    List<String> unreadable = deleteManifestsAddedBy(second);
    append(15, 20, 1);
    forgetBatches();
    start(Trigger.AvailableNow(), "start-snapshot-id", String.valueOf(first)).awaitTermination();
    // exactly the rows of the append after the checkpoint (time travel would need the lost manifest)
    assertThat(allIds()).containsExactlyInAnyOrderElementsOf(range(15, 20));

    // a batch read of the same range plans it, and cannot
    assertThatThrownBy(() -> incrementalIds(first))
        .hasMessageContaining("Cannot plan the incremental read of floe.s.src")
        .hasMessageContaining(unreadable.get(0).replaceFirst("^file:", ""));
  }

  @Test
  void aStreamNeverPlansTheTableSnapshotSoAnUnreadableOldManifestDoesNotStopItsRestart()
      throws Exception {
    append(0, 5, 1);
    long first = currentSnapshotId();
    append(5, 10, 2);
    start(Trigger.AvailableNow()).awaitTermination();
    assertThat(allIds()).containsExactlyInAnyOrderElementsOf(range(0, 10));

    // the first snapshot is behind the stream's checkpoint, but its manifest is still in the table
    List<String> unreadable = deleteManifestsAddedBy(first);
    append(10, 15, 1);
    forgetBatches();
    start(Trigger.AvailableNow()).awaitTermination();
    assertThat(allIds()).containsExactlyInAnyOrderElementsOf(range(10, 15));

    // a batch read plans the current snapshot, which needs the lost manifest
    assertThatThrownBy(() -> spark.sql("SELECT id FROM floe.s.src").collectAsList())
        .hasStackTraceContaining(unreadable.get(0).replaceFirst("^file:", ""));
  }

  @Test
  void startAndEndSnapshotOptionsAStreamCannotHonourFailNamingThem() throws Exception {
    append(0, 3, 1);
    long first = currentSnapshotId();
    append(3, 6, 1);
    long second = currentSnapshotId();
    sql("CALL floe.system.rollback_to_snapshot('s.src', %d)", first);
    append(6, 8, 1);

    assertThat(failureOf("start-snapshot-id", String.valueOf(second)))
        .contains("Cannot read floe.s.src as a stream: option 'start-snapshot-id' (" + second
            + ") is not an ancestor of the current snapshot (" + currentSnapshotId() + ")");
    assertThat(failureOf("start-snapshot-id", "42"))
        .contains("option 'start-snapshot-id' names no snapshot of the table: 42");
    assertThat(failureOf("start-snapshot-id", "first"))
        .contains("option 'start-snapshot-id'").contains("'first'");
    assertThat(failureOf("start-snapshot-id", String.valueOf(first), "stream-from-timestamp", "0"))
        .contains("options 'start-snapshot-id' (" + first + ") and 'stream-from-timestamp' (0)")
        .contains("set only one");
    for (String[] options :
        List.of(
            new String[] {"end-snapshot-id", String.valueOf(second)},
            new String[] {"start-snapshot-id", String.valueOf(first), "end-snapshot-id", String.valueOf(currentSnapshotId())})) {
      assertThat(failureOf(options))
          .contains("Cannot read floe.s.src as a stream: option 'end-snapshot-id' ends a batch read,"
              + " and a stream has no end")
          .contains("Trigger.AvailableNow");
    }
    assertThat(allIds()).isEmpty();
  }

  @Test
  void appendsAreReadOnceEachAndInOrderAcrossRestarts() throws Exception {
    append(0, 10, 2);
    append(10, 15, 1);
    StreamingQuery query = start(Trigger.ProcessingTime(0));
    query.processAllAvailable();
    append(15, 30, 3);
    query.processAllAvailable();
    query.stop();
    append(30, 40, 2);
    append(40, 41, 1);
    StreamingQuery restarted = start(Trigger.ProcessingTime(0));
    restarted.processAllAvailable();
    restarted.stop();

    List<Long> read = allIds();
    assertThat(read).hasSameSizeAs(tableIds("SELECT id FROM floe.s.src"));
    read.sort(null);
    assertThat(read).isEqualTo(tableIds("SELECT id FROM floe.s.src"));
    // snapshots are read in commit order: every batch reads only ids after the previous batch's
    long previousMax = -1;
    for (List<Long> ids : nonEmptyBatches()) {
      assertThat(ids.get(0)).isGreaterThan(previousMax);
      previousMax = ids.get(ids.size() - 1);
    }
  }

  @Test
  void streamStartedOnAnEmptyTableReadsWhatIsAppendedLater() throws Exception {
    StreamingQuery query = start(Trigger.ProcessingTime(0));
    query.processAllAvailable();
    assertThat(allIds()).isEmpty();
    append(0, 6, 2);
    query.processAllAvailable();
    append(6, 9, 1);
    query.processAllAvailable();
    query.stop();
    List<Long> read = allIds();
    read.sort(null);
    assertThat(read).isEqualTo(range(0, 9));
  }

  @Test
  void maxFilesPerMicroBatchSplitsSnapshots() throws Exception {
    append(0, 30, 3);
    append(30, 40, 1);
    StreamingQuery query = start(Trigger.AvailableNow(), "streaming-max-files-per-micro-batch", "2");
    query.awaitTermination();
    // four files of ten rows, two snapshots: two batches of two files each
    assertThat(rows("SELECT record_count FROM floe.s.src.files")).containsExactly("[10]", "[10]", "[10]", "[10]");
    assertThat(nonEmptyBatches()).hasSize(2);
    assertThat(nonEmptyBatches().get(0)).hasSize(20);
    assertThat(nonEmptyBatches().get(1)).hasSize(20);
    List<Long> read = allIds();
    read.sort(null);
    assertThat(read).isEqualTo(range(0, 40));
  }

  @Test
  void maxRowsPerMicroBatchEndsABatchWithTheFileThatReachesIt() throws Exception {
    append(0, 40, 4);
    StreamingQuery query = start(Trigger.AvailableNow(), "streaming-max-rows-per-micro-batch", "15");
    query.awaitTermination();
    assertThat(nonEmptyBatches()).extracting(List::size).containsExactly(20, 20);
    List<Long> read = allIds();
    read.sort(null);
    assertThat(read).isEqualTo(range(0, 40));
  }

  @Test
  void availableNowReadsWhatIsThereAndStops() throws Exception {
    append(0, 5, 1);
    append(5, 12, 2);
    StreamingQuery query = start(Trigger.AvailableNow());
    query.awaitTermination();
    List<Long> read = allIds();
    read.sort(null);
    assertThat(read).isEqualTo(range(0, 12));
    append(12, 20, 1);
    StreamingQuery again = start(Trigger.AvailableNow());
    again.awaitTermination();
    read = allIds();
    read.sort(null);
    assertThat(read).isEqualTo(range(0, 20));
  }

  @Test
  void streamFromTimestampStartsAtTheFirstSnapshotAtOrAfterIt() throws Exception {
    append(0, 5, 1);
    Thread.sleep(20);
    long from = System.currentTimeMillis();
    Thread.sleep(20);
    append(5, 9, 1);
    append(9, 11, 1);
    StreamingQuery query = start(Trigger.AvailableNow(), "stream-from-timestamp", String.valueOf(from));
    query.awaitTermination();
    List<Long> read = allIds();
    read.sort(null);
    assertThat(read).isEqualTo(range(5, 11));
  }

  @Test
  void deleteSnapshotFailsTheStreamUnlessSkipped() throws Exception {
    append(0, 3, 1);
    sql("TRUNCATE TABLE floe.s.src");
    append(3, 5, 1);
    assertThat(StreamTables.ancestry(StreamTables.load(warehouse, "s", "src"), null))
        .extracting(snapshot -> snapshot.operation())
        .containsExactly(DataOperations.APPEND, DataOperations.DELETE, DataOperations.APPEND);

    StreamingQuery failing = start(Trigger.AvailableNow());
    assertThatThrownBy(failing::awaitTermination)
        .isInstanceOf(StreamingQueryException.class)
        .hasMessageContaining("Cannot process delete snapshot")
        .hasMessageContaining("streaming-skip-delete-snapshots=true");
    deleteRecursively(checkpoints.resolve("q"));

    StreamingQuery skipping = start(Trigger.AvailableNow(), "streaming-skip-delete-snapshots", "true");
    skipping.awaitTermination();
    List<Long> read = allIds();
    read.sort(null);
    // appends are read as they were appended; the delete is passed over
    assertThat(read).isEqualTo(range(0, 5));
  }

  @Test
  void overwriteSnapshotFailsTheStreamUnlessSkipped() throws Exception {
    append(0, 4, 1);
    sql("INSERT OVERWRITE floe.s.src SELECT id, 'x' FROM floe.s.src WHERE id < 2");
    append(4, 6, 1);
    assertThat(StreamTables.ancestry(StreamTables.load(warehouse, "s", "src"), null).get(1).operation())
        .isEqualTo(DataOperations.OVERWRITE);

    StreamingQuery failing = start(Trigger.AvailableNow());
    assertThatThrownBy(failing::awaitTermination)
        .isInstanceOf(StreamingQueryException.class)
        .hasMessageContaining("Cannot process overwrite snapshot")
        .hasMessageContaining("streaming-skip-overwrite-snapshots=true");
    deleteRecursively(checkpoints.resolve("q"));

    StreamingQuery skipping = start(Trigger.AvailableNow(), "streaming-skip-overwrite-snapshots", "true");
    skipping.awaitTermination();
    List<Long> read = allIds();
    read.sort(null);
    assertThat(read).isEqualTo(range(0, 6));
  }

  @Test
  void compactionSnapshotsArePassedOver() throws Exception {
    append(0, 6, 1);
    Table table = StreamTables.load(warehouse, "s", "src");
    DataFile original;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      original = tasks.iterator().next().file();
    }
    // a compaction that rewrites the file as a copy of itself: the same rows, a replace snapshot
    Path copy = StreamTables.localPath(original.location()).resolveSibling("compacted.parquet");
    Files.copy(StreamTables.localPath(original.location()), copy);
    DataFile compacted =
        DataFiles.builder(table.spec()).copy(original).withPath(copy.toUri().toString()).build();
    table.newRewrite().deleteFile(original).addFile(compacted).commit();
    append(6, 8, 1);
    assertThat(StreamTables.ancestry(StreamTables.load(warehouse, "s", "src"), null).get(1).operation())
        .isEqualTo(DataOperations.REPLACE);

    StreamingQuery query = start(Trigger.AvailableNow());
    query.awaitTermination();
    List<Long> read = allIds();
    read.sort(null);
    assertThat(read).isEqualTo(range(0, 8));
  }

  @Test
  void unknownStreamingOptionIsAnErrorListingTheKnownOnes() {
    append(0, 2, 1);
    assertThatThrownBy(() -> start(Trigger.AvailableNow(), "streaming-max-file-per-micro-batch", "1").awaitTermination())
        .hasMessageContaining("streaming-max-file-per-micro-batch")
        .hasMessageContaining("streaming-max-files-per-micro-batch");
  }

  @Test
  void checkpointOfAnotherTableFailsClearly() throws Exception {
    append(0, 3, 1);
    start(Trigger.AvailableNow()).awaitTermination();
    sql("CREATE TABLE floe.s.other (id BIGINT, data STRING) USING iceberg");
    append("floe.s.other", 100, 103, 1);
    StreamingQuery wrong = start("floe.s.other", Trigger.AvailableNow());
    assertThatThrownBy(wrong::awaitTermination)
        .isInstanceOf(StreamingQueryException.class)
        .hasMessageContaining("its offsets belong to another table");
  }

  @Test
  void streamIntoAFloeSinkCopiesEveryRowOnce() throws Exception {
    sql("CREATE TABLE floe.s.other (id BIGINT, data STRING) USING iceberg");
    append(0, 10, 2);
    StreamingQuery query =
        spark.readStream().option("streaming-max-files-per-micro-batch", "1").table("floe.s.src")
            .writeStream().option("checkpointLocation", checkpoints.resolve("copy").toString())
            .trigger(Trigger.AvailableNow()).toTable("floe.s.other");
    query.awaitTermination();
    append(10, 13, 1);
    StreamingQuery again =
        spark.readStream().table("floe.s.src")
            .writeStream().option("checkpointLocation", checkpoints.resolve("copy").toString())
            .trigger(Trigger.AvailableNow()).toTable("floe.s.other");
    again.awaitTermination();
    assertThat(StreamTables.sortedRows(spark.table("floe.s.other")))
        .isEqualTo(StreamTables.sortedRows(spark.table("floe.s.src")));
  }
}
