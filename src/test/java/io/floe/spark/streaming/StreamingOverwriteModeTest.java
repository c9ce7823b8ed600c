package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.read.OfficialRuntime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code streaming-overwrite-mode=added-rows} on a real SparkSession: a stream over appends,
 * copy-on-write and merge-on-read DML and INSERT OVERWRITE emits the rows of the data files each
 * snapshot added. The expectation is read by Spark's own Parquet reader from the files Iceberg's
 * metadata says each snapshot added, and cross-checked with Spark's EXCEPT ALL of time-travel reads.
 */
class StreamingOverwriteModeTest extends SourceTestBase<String> {
  private static final String TABLE = "floe.ow.t";

  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.ow");
  }

  @Override
  List<String> tablesToDrop() {
    return List.of(TABLE);
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
    return record(reader(options).table(TABLE), trigger, StreamTables::sortedRows);
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
    for (List<String> rows : batches().values()) {
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
    return addedFileRows(table, snapshot, "id", "data");
  }

  /** The given columns of the rows of the data files a snapshot added, by Spark's Parquet reader. */
  private static List<String> addedFileRows(Table table, Snapshot snapshot, String... columns) {
    List<String> paths = new ArrayList<>();
    for (DataFile file : snapshot.addedDataFiles(table.io())) {
      paths.add(file.location());
    }
    if (paths.isEmpty()) {
      return List.of();
    }
    return StreamTables.sortedRows(
        spark.read().parquet(paths.toArray(new String[0])).selectExpr(columns));
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

  /** Spark's view of what a snapshot changed, in the given columns. */
  private static List<String> newRows(Snapshot snapshot, String columns) {
    return StreamTables.sortedRows(
        spark.sql("SELECT " + columns + " FROM " + TABLE + " VERSION AS OF " + snapshot.snapshotId()
            + " EXCEPT ALL SELECT " + columns + " FROM " + TABLE + " VERSION AS OF " + snapshot.parentId()));
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

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"copy-on-write", "merge-on-read"})
  void dmlMovingRowsAcrossIdentityAndBucketPartitionsEmitsTheAddedRows(String mode) throws Exception {
    String columns = "id, data, part";
    sql("CREATE TABLE " + TABLE + " (id BIGINT, data STRING, part STRING) USING iceberg"
        + " PARTITIONED BY (part, bucket(3, id)) TBLPROPERTIES ('format-version'='2')");
    modes(mode);
    sql("INSERT INTO " + TABLE + " SELECT id, CAST(id AS STRING), IF(id %% 2 = 0, 'even', 'odd')"
        + " FROM range(0, 24)");
    StreamingQuery running = addedRows(Trigger.ProcessingTime(0));
    running.processAllAvailable();
    // the identity partition changes: rows move from 'odd' to 'even'
    sql("UPDATE " + TABLE + " SET part = 'even', data = 'moved' WHERE id IN (1, 7, 13)");
    running.processAllAvailable();
    // a new id moves a row to another bucket and partition; a new row lands in that partition
    sql("MERGE INTO " + TABLE + " t USING (SELECT * FROM VALUES (2L, 'm2'), (10L, 'm10'), (300L, 'new')"
        + " AS s(id, data)) s ON t.id = s.id"
        + " WHEN MATCHED THEN UPDATE SET id = t.id + 1000, data = s.data, part = 'merged'"
        + " WHEN NOT MATCHED THEN INSERT (id, data, part) VALUES (s.id, s.data, 'merged')");
    running.processAllAvailable();
    running.stop();
    sql("INSERT INTO " + TABLE + " VALUES (400L, '400', 'odd')");
    runOnce();

    Table table = table();
    List<Snapshot> snapshots = StreamTables.ancestry(table, null);
    assertThat(snapshots).extracting(Snapshot::operation).containsExactly(
        DataOperations.APPEND, DataOperations.OVERWRITE, DataOperations.OVERWRITE, DataOperations.APPEND);
    List<String> expected = new ArrayList<>();
    for (Snapshot snapshot : snapshots) {
      expected.addAll(addedFileRows(table, snapshot, "id", "data", "part"));
    }
    expected.sort(null);
    assertThat(emitted()).isEqualTo(expected);

    // what each DML changed, in Spark's eyes, is among what the stream emitted for it
    assertThat(newRows(snapshots.get(1), columns))
        .containsExactly("[1,moved,even]", "[13,moved,even]", "[7,moved,even]");
    assertThat(newRows(snapshots.get(2), columns))
        .containsExactly("[1002,m2,merged]", "[1010,m10,merged]", "[300,new,merged]");
    for (Snapshot dml : snapshots.subList(1, 3)) {
      List<String> added = addedFileRows(table, dml, "id", "data", "part");
      List<String> carried = minus(added, newRows(dml, columns));
      if (mode.equals("merge-on-read")) {
        assertThat(carried).as("merge-on-read adds only the changed rows").isEmpty();
      } else {
        // copy-on-write rewrote the files the rows left: their other rows are carried over as they were
        assertThat(carried).isNotEmpty();
        minus(StreamTables.sortedRows(spark.sql("SELECT " + columns + " FROM " + TABLE
            + " VERSION AS OF " + dml.parentId())), carried);
      }
    }
  }

  @Test
  void addedRowsAcrossAColumnAddedAndRenamedBetweenBatches() throws Exception {
    create(2);
    append(0, 10, 2);
    StreamingQuery running = addedRows(Trigger.ProcessingTime(0));
    running.processAllAvailable();
    sql("ALTER TABLE " + TABLE + " ADD COLUMN extra STRING");
    sql("INSERT INTO " + TABLE + " VALUES (100L, '100', 'x100')");
    modes("copy-on-write");
    sql("UPDATE " + TABLE + " SET extra = 'u', data = 'u' WHERE id IN (3, 100)");
    running.processAllAvailable();
    sql("ALTER TABLE " + TABLE + " RENAME COLUMN data TO label");
    modes("merge-on-read");
    sql("UPDATE " + TABLE + " SET label = 'renamed' WHERE id = 4");
    running.processAllAvailable();
    running.stop();
    int firstRunBatches = batches().size();
    // a restarted stream reads in the table's schema of its start: with the new column
    sql("INSERT INTO " + TABLE + " VALUES (200L, 'late', 'e200')");
    runOnce();

    Table table = table();
    List<Snapshot> snapshots = StreamTables.ancestry(table, null);
    assertThat(snapshots).extracting(Snapshot::operation).containsExactly(
        DataOperations.APPEND, DataOperations.APPEND, DataOperations.OVERWRITE,
        DataOperations.OVERWRITE, DataOperations.APPEND);
    // the first run's rows are in the schema it started with (id, data); files written after the
    // rename hold that column as label (the same field id)
    List<String> expectedFirst = new ArrayList<>();
    for (Snapshot snapshot : snapshots.subList(0, 4)) {
      boolean renamed = snapshot.snapshotId() == snapshots.get(3).snapshotId();
      expectedFirst.addAll(addedFileRows(table, snapshot, "id", renamed ? "label" : "data"));
    }
    expectedFirst.sort(null);
    List<String> expectedLater =
        addedFileRows(table, snapshots.get(4), "id", "label", "extra");
    List<String> first = new ArrayList<>();
    List<String> later = new ArrayList<>();
    int index = 0;
    for (List<String> rows : batches().values()) {
      (index++ < firstRunBatches ? first : later).addAll(rows);
    }
    first.sort(null);
    assertThat(first).isEqualTo(expectedFirst).contains("[3,u]", "[100,u]", "[4,renamed]");
    assertThat(later).isEqualTo(expectedLater).containsExactly("[200,late,e200]");
    // merge-on-read added only the updated row, in its new version (the parent's schema has data)
    assertThat(StreamTables.sortedRows(spark.sql(
            "SELECT id, label FROM " + TABLE + " VERSION AS OF " + snapshots.get(3).snapshotId()
                + " EXCEPT ALL SELECT id, data FROM " + TABLE + " VERSION AS OF " + snapshots.get(2).snapshotId())))
        .containsExactly("[4,renamed]");
    assertThat(addedFileRows(table, snapshots.get(3), "id", "label")).containsExactly("[4,renamed]");
  }

  @Test
  void theOfficialRuntimeTakesOverAfterAnOverwriteReadWithAddedRows() throws Exception {
    assertThat(OfficialRuntime.RUNTIME_JAR).as("the official runtime jar the build copies").exists();
    create(2);
    append(0, 10, 1);
    modes("merge-on-read");
    sql("UPDATE " + TABLE + " SET data = 'mor' WHERE id IN (2, 5)");
    runOnce();
    Snapshot overwrite = table().currentSnapshot();
    assertThat(overwrite.operation()).isEqualTo(DataOperations.OVERWRITE);
    assertThat(emitted()).contains("[2,mor]", "[5,mor]");
    append(10, 14, 1);
    append(14, 17, 2);
    List<String> later =
        StreamTables.sortedRows(spark.sql("SELECT id, data FROM " + TABLE + " EXCEPT ALL SELECT id, data FROM "
            + TABLE + " VERSION AS OF " + overwrite.snapshotId()));

    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.sql.catalog.off", "org.apache.iceberg.spark.SparkCatalog");
    conf.put("spark.sql.catalog.off.type", "hadoop");
    conf.put("spark.sql.catalog.off.warehouse", warehouse.toUri().toString());
    String checkpoint = checkpoints.resolve("q").toString();
    // the Floe stream's offset stands at the overwrite snapshot, all its files read: the official
    // runtime cannot process that snapshot, even with nothing left to read in it; told to pass
    // over overwrites (a second run on the same checkpoint), it reads the later appends once
    List<String> printed =
        OfficialRuntime.printedRows(
            OfficialStreamTakeoverApp.class, conf, "off.ow.t", checkpoint,
            "-", "streaming-skip-overwrite-snapshots=true");
    List<String> failed = printed.stream().filter(line -> line.startsWith("0|")).toList();
    assertThat(failed).singleElement().satisfies(line -> assertThat(line)
        .startsWith("0|error|")
        .contains("Cannot process overwrite snapshot: " + overwrite.snapshotId()));
    List<String> rows = new ArrayList<>();
    for (String line : printed.stream().filter(line -> !line.startsWith("0|")).toList()) {
      String[] fields = line.split("\\|");
      assertThat(fields[0] + "|" + fields[1]).as(line).isEqualTo("1|batch");
      rows.add("[" + fields[3] + "," + fields[4] + "]");
    }
    rows.sort(null);
    assertThat(rows).isNotEmpty().isEqualTo(later);
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
    forgetBatches();
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
