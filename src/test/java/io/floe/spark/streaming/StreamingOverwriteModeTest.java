package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code streaming-overwrite-mode=added-rows} on a real SparkSession: a stream over appends,
 * copy-on-write and merge-on-read DML and INSERT OVERWRITE emits the rows of the data files each
 * snapshot added. The expectation is read by Spark's own Parquet reader from the files Iceberg's
 * metadata says each snapshot added, and cross-checked with Spark's EXCEPT ALL of time-travel reads.
 */
class StreamingOverwriteModeTest extends SparkTestBase {
  private static final String TABLE = "floe.ow.t";
  // per test: micro-batch id -> the rows it read (foreachBatch runs on the driver)
  private static final Map<String, Map<Long, List<String>>> BATCHES = new ConcurrentHashMap<>();

  private Path checkpoints;
  private String run;

  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.ow");
  }

  @BeforeEach
  void setUp() throws IOException {
    checkpoints = Files.createTempDirectory("floe-overwrite-mode");
    run = checkpoints.getFileName().toString();
    BATCHES.put(run, new TreeMap<>());
  }

  @AfterEach
  void tearDown() throws IOException, TimeoutException {
    for (StreamingQuery query : spark.streams().active()) {
      query.stop();
    }
    sql("DROP TABLE IF EXISTS " + TABLE);
    deleteRecursively(checkpoints);
    BATCHES.remove(run);
  }

  private static void create(int formatVersion) {
    sql("CREATE TABLE " + TABLE + " (id BIGINT, data STRING) USING iceberg"
        + " TBLPROPERTIES ('format-version'='" + formatVersion + "')");
  }

  /** Appends ids [from, to) in {@code files} data files, as one snapshot. */
  private static void append(long from, long to, int files) throws Exception {
    Dataset<Row> rows = spark.range(from, to).selectExpr("id", "CAST(id AS STRING) AS data");
    rows.repartitionByRange(files, rows.col("id")).sortWithinPartitions("id").writeTo(TABLE).append();
  }

  private static void modes(String mode) {
    sql("ALTER TABLE " + TABLE + " SET TBLPROPERTIES ('write.update.mode'='" + mode + "',"
        + " 'write.merge.mode'='" + mode + "', 'write.delete.mode'='" + mode + "')");
  }

  private StreamingQuery start(Trigger trigger, String... options) throws TimeoutException {
    DataStreamReader reader = spark.readStream();
    for (int i = 0; i < options.length; i += 2) {
      reader = reader.option(options[i], options[i + 1]);
    }
    String key = run;
    VoidFunction2<Dataset<Row>, Long> record =
        (rows, batchId) -> BATCHES.get(key).put(batchId, StreamTables.sortedRows(rows));
    return reader.table(TABLE).writeStream()
        .option("checkpointLocation", checkpoints.resolve("q").toString())
        .trigger(trigger)
        .foreachBatch(record)
        .start();
  }

  private StreamingQuery addedRows(Trigger trigger, String... more) throws TimeoutException {
    String[] options = new String[more.length + 2];
    options[0] = "streaming-overwrite-mode";
    options[1] = "added-rows";
    System.arraycopy(more, 0, options, 2, more.length);
    return start(trigger, options);
  }

  private void runOnce() throws TimeoutException {
    StreamingQuery query = addedRows(Trigger.ProcessingTime(0));
    query.processAllAvailable();
    query.stop();
  }

  private List<List<String>> nonEmptyBatches() {
    List<List<String>> batches = new ArrayList<>();
    for (List<String> rows : BATCHES.get(run).values()) {
      if (!rows.isEmpty()) {
        batches.add(rows);
      }
    }
    return batches;
  }

  private List<String> emitted() {
    List<String> rows = new ArrayList<>();
    nonEmptyBatches().forEach(rows::addAll);
    rows.sort(null);
    return rows;
  }

  private static Table table() {
    return StreamTables.load(warehouse, "ow", "t");
  }

  /** The rows of the data files a snapshot added, read by Spark's own Parquet reader. */
  private static List<String> addedFileRows(Table table, Snapshot snapshot) {
    List<String> paths = new ArrayList<>();
    for (DataFile file : snapshot.addedDataFiles(table.io())) {
      paths.add(file.location());
    }
    if (paths.isEmpty()) {
      return List.of();
    }
    return StreamTables.sortedRows(
        spark.read().parquet(paths.toArray(new String[0])).select("id", "data"));
  }

  private static int addedFileCount(Table table, Snapshot snapshot) {
    int count = 0;
    for (DataFile ignored : snapshot.addedDataFiles(table.io())) {
      count += 1;
    }
    return count;
  }

  /** Spark's view of what a snapshot changed: its rows EXCEPT ALL its parent's. */
  private static List<String> newRows(Snapshot snapshot) {
    return StreamTables.sortedRows(
        spark.sql("SELECT id, data FROM " + TABLE + " VERSION AS OF " + snapshot.snapshotId()
            + " EXCEPT ALL SELECT id, data FROM " + TABLE + " VERSION AS OF " + snapshot.parentId()));
  }

  private static List<String> rowsAt(Snapshot snapshot) {
    return StreamTables.sortedRows(
        spark.sql("SELECT id, data FROM " + TABLE + " VERSION AS OF " + snapshot.snapshotId()));
  }

  private static List<String> minus(List<String> all, List<String> some) {
    List<String> rest = new ArrayList<>(all);
    for (String row : some) {
      assertThat(rest.remove(row)).as("row %s is among %s", row, all).isTrue();
    }
    return rest;
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void emitsTheRowsEachOverwriteAddedOnceAcrossRestarts(int formatVersion) throws Exception {
    create(formatVersion);
    append(0, 20, 2);
    append(20, 30, 1);
    runOnce();

    modes("copy-on-write");
    sql("UPDATE " + TABLE + " SET data = 'cow' WHERE id = 25");
    StreamingQuery running = addedRows(Trigger.ProcessingTime(0));
    running.processAllAvailable();
    modes("merge-on-read");
    sql("UPDATE " + TABLE + " SET data = 'mor' WHERE id IN (3, 14)");
    running.processAllAvailable();
    sql("MERGE INTO " + TABLE + " t USING (SELECT * FROM VALUES (5L, 'm5'), (100L, 'm100') AS s(id, data)) s"
        + " ON t.id = s.id WHEN MATCHED THEN UPDATE SET data = s.data WHEN NOT MATCHED THEN INSERT *");
    running.processAllAvailable();
    running.stop();

    sql("INSERT OVERWRITE " + TABLE + " SELECT id + 1000, data FROM " + TABLE + " WHERE id < 5");
    runOnce();
    append(200, 205, 1);
    runOnce();

    Table table = table();
    List<Snapshot> snapshots = StreamTables.ancestry(table, null);
    assertThat(snapshots).extracting(Snapshot::operation).containsExactly(
        DataOperations.APPEND, DataOperations.APPEND,
        DataOperations.OVERWRITE, DataOperations.OVERWRITE, DataOperations.OVERWRITE,
        DataOperations.OVERWRITE, DataOperations.APPEND);
    List<String> expected = new ArrayList<>();
    for (Snapshot snapshot : snapshots) {
      expected.addAll(addedFileRows(table, snapshot));
    }
    expected.sort(null);
    assertThat(emitted()).isEqualTo(expected);

    // merge-on-read and INSERT OVERWRITE: the added rows are exactly Spark's new rows
    for (int index : new int[] {3, 4, 5}) {
      assertThat(addedFileRows(table, snapshots.get(index))).isEqualTo(newRows(snapshots.get(index)));
    }
    // copy-on-write: Spark's new rows plus rows of the rewritten file carried over unchanged
    Snapshot cow = snapshots.get(2);
    List<String> carried = minus(addedFileRows(table, cow), newRows(cow));
    assertThat(carried).isNotEmpty();
    minus(rowsAt(snapshots.get(1)), carried);
    assertThat(newRows(cow)).containsExactly("[25,cow]");
  }

  @Test
  void rateLimitsSplitOverwriteSnapshotsIntoOneFileBatches() throws Exception {
    create(2);
    append(0, 30, 3);
    modes("merge-on-read");
    sql("UPDATE " + TABLE + " SET data = 'mor' WHERE id IN (3, 14, 25)");
    sql("INSERT OVERWRITE " + TABLE + " SELECT id + 100, data FROM " + TABLE + " WHERE id < 20 DISTRIBUTE BY pmod(id, 2)");

    StreamingQuery query = addedRows(Trigger.AvailableNow(), "streaming-max-files-per-micro-batch", "1");
    query.awaitTermination();

    Table table = table();
    List<String> expected = new ArrayList<>();
    int files = 0;
    for (Snapshot snapshot : StreamTables.ancestry(table, null)) {
      expected.addAll(addedFileRows(table, snapshot));
      files += addedFileCount(table, snapshot);
    }
    expected.sort(null);
    assertThat(files).isGreaterThan(4);
    assertThat(nonEmptyBatches()).hasSize(files);
    assertThat(emitted()).isEqualTo(expected);

    // a row limit of one also ends every batch with its first file
    BATCHES.get(run).clear();
    deleteRecursively(checkpoints.resolve("q"));
    StreamingQuery byRows = addedRows(Trigger.AvailableNow(), "streaming-max-rows-per-micro-batch", "1");
    byRows.awaitTermination();
    assertThat(nonEmptyBatches()).hasSize(files);
    assertThat(emitted()).isEqualTo(expected);
  }

  @Test
  void theCommitTimesOfBatchReadsFailAStream() throws Exception {
    create(2);
    append(0, 4, 1);
    long now = System.currentTimeMillis();
    StreamingQuery query = start(Trigger.AvailableNow(), "start-timestamp", String.valueOf(now - 60_000));
    assertThatThrownBy(query::awaitTermination)
        .isInstanceOf(StreamingQueryException.class)
        .hasMessageContaining("Cannot read " + TABLE + " as a stream: option 'start-timestamp' chooses the"
            + " snapshots of a batch read");
    assertThat(nonEmptyBatches()).isEmpty();
  }

  @Test
  void withoutTheModeAnOverwriteStillFailsTheStream() throws Exception {
    create(2);
    append(0, 4, 1);
    sql("INSERT OVERWRITE " + TABLE + " SELECT id, 'x' FROM " + TABLE + " WHERE id < 2");

    StreamingQuery failing = start(Trigger.AvailableNow());
    assertThatThrownBy(failing::awaitTermination)
        .isInstanceOf(StreamingQueryException.class)
        .hasMessageContaining("Cannot process overwrite snapshot")
        .hasMessageContaining("streaming-skip-overwrite-snapshots=true")
        .hasMessageContaining("streaming-overwrite-mode=added-rows");
    assertThat(nonEmptyBatches()).isEmpty();
    deleteRecursively(checkpoints.resolve("q"));

    StreamingQuery explicit = start(Trigger.AvailableNow(), "streaming-overwrite-mode", "none");
    assertThatThrownBy(explicit::awaitTermination)
        .isInstanceOf(StreamingQueryException.class)
        .hasMessageContaining("Cannot process overwrite snapshot");
  }

  @Test
  void badValuesAndContradictoryOptionsFailNamingThem() throws Exception {
    create(2);
    append(0, 4, 1);
    StreamingQuery unknown = start(Trigger.AvailableNow(), "streaming-overwrite-mode", "added-files");
    assertThatThrownBy(unknown::awaitTermination)
        .isInstanceOf(StreamingQueryException.class)
        .hasMessageContaining("option 'streaming-overwrite-mode' must be 'none' or 'added-rows', not 'added-files'");
    deleteRecursively(checkpoints.resolve("q"));

    StreamingQuery both =
        addedRows(Trigger.AvailableNow(), "streaming-skip-overwrite-snapshots", "true");
    assertThatThrownBy(both::awaitTermination)
        .isInstanceOf(StreamingQueryException.class)
        .hasMessageContaining("'streaming-skip-overwrite-snapshots=true'")
        .hasMessageContaining("'streaming-overwrite-mode=added-rows'")
        .hasMessageContaining("contradict");
    assertThat(nonEmptyBatches()).isEmpty();
  }
}
