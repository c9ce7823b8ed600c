package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.commit.FaultInjectingCatalog;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.StreamEpoch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The stream sink on a real SparkSession: MemoryStream input, real checkpoints in temporary
 * folders, a hadoop catalog. Expected rows are what Spark computes over the same input rows.
 */
class StreamingSinkTest extends SinkTestBase {
  @Override
  List<String> tablesToDrop() {
    return List.of("floe.s.t", "floe.s.c");
  }

  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.s");
    // the same warehouse through a catalog whose commits can be raced
    registerFaultyCatalog("faulty");
  }

  private Dataset<Row> stream() {
    return input.toDF().toDF("id", "data");
  }

  private StreamingQuery start(String mode, String... options) throws TimeoutException {
    var writer =
        stream().writeStream().outputMode(mode)
            .option("checkpointLocation", checkpoints.resolve("q").toString());
    for (int i = 0; i < options.length; i += 2) {
      writer = writer.option(options[i], options[i + 1]);
    }
    return writer.toTable("floe.s.t");
  }

  /**
   * Removes the commit log entry of an epoch (and its checksum file), as a crash between the table
   * commit and the checkpoint commit leaves the checkpoint.
   */
  private void deleteCommit(int epoch) throws IOException {
    Path commits = checkpoints.resolve("q").resolve("commits");
    assertThat(commits.resolve(String.valueOf(epoch))).exists();
    Files.delete(commits.resolve(String.valueOf(epoch)));
    Files.deleteIfExists(commits.resolve("." + epoch + ".crc"));
  }

  private Table table() {
    return StreamTables.load(warehouse, "s", "t");
  }

  private static List<String> rows(String query) {
    return StreamTables.sortedRows(spark.sql(query));
  }

  @Test
  void appendModeCommitsOneSnapshotPerEpochWithTheQueryAndEpoch() throws Exception {
    sql("CREATE TABLE floe.s.t (id BIGINT, data STRING) USING iceberg");
    StreamingQuery query = start("append");
    send(5, 2);
    query.processAllAvailable();
    send(4, 2);
    query.processAllAvailable();
    query.stop();

    assertThat(rows("SELECT * FROM floe.s.t")).isEqualTo(StreamTables.sortedRows(sentRows()));
    List<Snapshot> snapshots = StreamTables.ancestry(table(), null);
    assertThat(snapshots).hasSize(2);
    for (int epoch = 0; epoch < 2; epoch++) {
      Snapshot snapshot = snapshots.get(epoch);
      assertThat(snapshot.operation()).isEqualTo(DataOperations.APPEND);
      assertThat(snapshot.summary())
          .containsEntry(StreamEpoch.QUERY_ID_KEY, query.id().toString())
          .containsEntry(StreamEpoch.EPOCH_ID_KEY, String.valueOf(epoch))
          .containsEntry(
              Committer.COMMIT_ID_KEY, new StreamEpoch(query.id().toString(), epoch).commitId());
    }
  }

  @Test
  void writeStreamFormatIcebergWritesThePathTable() throws Exception {
    sql("CREATE TABLE floe.s.t (id BIGINT, data STRING) USING iceberg");
    String location = table().location();
    StreamingQuery query =
        stream().writeStream().format("iceberg").outputMode("append")
            .option("checkpointLocation", checkpoints.resolve("q").toString())
            .start(location);
    send(6, 3);
    query.processAllAvailable();
    query.stop();

    assertThat(StreamTables.sortedRows(spark.read().format("iceberg").load(location)))
        .isEqualTo(StreamTables.sortedRows(sentRows()));
    assertThat(StreamTables.ancestry(table(), null)).hasSize(1);
  }

  @Test
  void epochReplayedAfterCrashBeforeCheckpointCommitAddsNothing() throws Exception {
    sql("CREATE TABLE floe.s.t (id BIGINT, data STRING) USING iceberg");
    StreamingQuery query = start("append");
    send(6, 3);
    query.processAllAvailable();
    send(5, 3);
    query.processAllAvailable();
    query.stop();
    int snapshotsBefore = StreamTables.ancestry(table(), null).size();
    Set<Path> filesBefore = StreamTables.dataFilesOnDisk(table());

    // the crash between the table commit and the checkpoint commit: the commit log lacks epoch 1
    deleteCommit(1);

    StreamingQuery restarted = start("append");
    restarted.processAllAvailable();
    assertThat(restarted.id()).isEqualTo(query.id());
    assertThat(rows("SELECT * FROM floe.s.t")).isEqualTo(StreamTables.sortedRows(sentRows()));
    assertThat(StreamTables.ancestry(table(), null)).hasSize(snapshotsBefore);
    // the replay's own files were deleted: only the committed ones are on disk
    assertThat(StreamTables.dataFilesOnDisk(table())).isEqualTo(filesBefore);
    assertThat(checkpoints.resolve("q").resolve("commits").resolve("1")).exists();

    // and the stream goes on from there
    send(3, 3);
    restarted.processAllAvailable();
    restarted.stop();
    assertThat(rows("SELECT * FROM floe.s.t")).isEqualTo(StreamTables.sortedRows(sentRows()));
    assertThat(StreamTables.ancestry(table(), null)).hasSize(snapshotsBefore + 1);
    assertThat(StreamTables.dataFilesOnDisk(table())).isEqualTo(StreamTables.referencedDataFiles(table()));
  }

  @Test
  void replayOfAnEpochThatWasNotCommittedIsWritten() throws Exception {
    sql("CREATE TABLE floe.s.t (id BIGINT, data STRING) USING iceberg");
    StreamingQuery query = start("append");
    send(4, 2);
    query.processAllAvailable();
    long afterEpoch0 = table().currentSnapshot().snapshotId();
    send(4, 2);
    query.processAllAvailable();
    query.stop();

    // epoch 1 never reached the table (rolled back) nor the checkpoint's commit log
    sql("CALL floe.system.rollback_to_snapshot('s.t', %d)", afterEpoch0);
    deleteCommit(1);

    StreamingQuery restarted = start("append");
    restarted.processAllAvailable();
    restarted.stop();
    assertThat(rows("SELECT * FROM floe.s.t")).isEqualTo(StreamTables.sortedRows(sentRows()));
    List<Snapshot> ancestry = StreamTables.ancestry(table(), null);
    assertThat(ancestry).hasSize(2);
    assertThat(ancestry.get(1).summary()).containsEntry(StreamEpoch.EPOCH_ID_KEY, "1");
  }

  @Test
  void rowsAreExactOverBatchesAndRestarts() throws Exception {
    sql("CREATE TABLE floe.s.t (id BIGINT, data STRING) USING iceberg");
    for (int run = 0; run < 3; run++) {
      StreamingQuery query = start("append");
      for (int batch = 0; batch < 2; batch++) {
        send(3 + batch, 2);
        query.processAllAvailable();
      }
      query.stop();
      assertThat(rows("SELECT * FROM floe.s.t")).isEqualTo(StreamTables.sortedRows(sentRows()));
    }
    assertThat(StreamTables.ancestry(table(), null)).hasSize(6);
  }

  @Test
  void completeModeReplacesTheRowsEveryEpoch() throws Exception {
    sql("CREATE TABLE floe.s.t (data STRING, n BIGINT) USING iceberg");
    StreamingQuery query =
        stream().groupBy("data").count().toDF("data", "n").writeStream().outputMode("complete")
            .option("checkpointLocation", checkpoints.resolve("q").toString())
            .toTable("floe.s.t");
    send(7, 3);
    query.processAllAvailable();
    send(5, 4);
    query.processAllAvailable();
    query.stop();

    sentRows().createOrReplaceTempView("sent");
    assertThat(rows("SELECT * FROM floe.s.t"))
        .isEqualTo(rows("SELECT data, count(*) AS n FROM sent GROUP BY data"));
    List<Snapshot> ancestry = StreamTables.ancestry(table(), null);
    assertThat(ancestry).hasSize(2);
    assertThat(ancestry.get(1).operation()).isEqualTo(DataOperations.OVERWRITE);
    assertThat(ancestry.get(1).summary()).containsEntry(StreamEpoch.EPOCH_ID_KEY, "1");
  }

  @Test
  void branchOptionCommitsEpochsToTheBranchOnly() throws Exception {
    sql("CREATE TABLE floe.s.t (id BIGINT, data STRING) USING iceberg");
    sql("INSERT INTO floe.s.t VALUES (-1, 'main')");
    StreamingQuery query = start("append", "branch", "ingest");
    send(4, 2);
    query.processAllAvailable();
    send(2, 2);
    query.processAllAvailable();
    query.stop();
    deleteCommit(1);
    StreamingQuery restarted = start("append", "branch", "ingest");
    restarted.processAllAvailable();
    restarted.stop();

    assertThat(rows("SELECT * FROM floe.s.t")).containsExactly("[-1,main]");
    sentRows().createOrReplaceTempView("sent");
    assertThat(rows("SELECT * FROM floe.s.t VERSION AS OF 'ingest'"))
        .isEqualTo(rows("SELECT * FROM sent UNION ALL SELECT -1L, 'main'"));
    assertThat(StreamTables.ancestry(table(), "ingest")).hasSize(3);
  }

  @Test
  void partitionedTableTakesUnclusteredBatchesWithAndWithoutFanout() throws Exception {
    for (String fanout : List.of("false", "true")) {
      sql("CREATE TABLE floe.s.t (id BIGINT, data STRING) USING iceberg PARTITIONED BY (data)");
      StreamingQuery query = start("append", "fanout-enabled", fanout);
      send(20, 4);
      query.processAllAvailable();
      send(9, 3);
      query.processAllAvailable();
      query.stop();
      assertThat(rows("SELECT * FROM floe.s.t")).isEqualTo(StreamTables.sortedRows(sentRows()));
      // one file per partition and epoch: Floe's distribution clusters each epoch's rows
      assertThat(rows("SELECT partition.data, count(*) FROM floe.s.t.files GROUP BY partition.data"))
          .containsExactly("[p0,2]", "[p1,2]", "[p2,2]", "[p3,1]");
      stopStreams();
      startInput();
    }
  }

  @Test
  void anotherWriterAppendingBetweenEpochsFailsNothing() throws Exception {
    sql("CREATE TABLE floe.s.t (id BIGINT, data STRING) USING iceberg");
    StreamingQuery query = start("append");
    send(3, 2);
    query.processAllAvailable();
    sql("INSERT INTO floe.s.t VALUES (100, 'batch')");
    send(3, 2);
    query.processAllAvailable();
    sql("INSERT INTO floe.s.t VALUES (101, 'batch')");
    send(2, 2);
    query.processAllAvailable();
    query.stop();
    sentRows().createOrReplaceTempView("sent");
    assertThat(rows("SELECT * FROM floe.s.t"))
        .isEqualTo(rows("SELECT * FROM sent UNION ALL SELECT 100L, 'batch' UNION ALL SELECT 101L, 'batch'"));
  }

  /**
   * Another writer commits while the epoch's commit is in flight: the epoch's first attempt fails
   * with a conflict, as the catalog reports a lost race, and Iceberg retries it on the new head.
   */
  private static FaultInjectingCatalog.Fault anotherWriterAppends(long id) {
    return (real, base, metadata) -> {
      spark.sql(String.format("INSERT INTO floe.s.t VALUES (%d, 'other')", id));
      throw new CommitFailedException("raced by another writer");
    };
  }

  @Test
  void anotherWriterCommittingDuringAnEpochsCommitFailsNothing() throws Exception {
    sql("CREATE TABLE floe.s.t (id BIGINT, data STRING) USING iceberg");
    StreamingQuery query =
        stream().writeStream().outputMode("append")
            .option("checkpointLocation", checkpoints.resolve("q").toString())
            .toTable("faulty.s.t");
    send(3, 2);
    query.processAllAvailable();
    FaultInjectingCatalog.inject("faulty", "s.t", anotherWriterAppends(100));
    send(4, 2);
    query.processAllAvailable();
    query.stop();

    sentRows().createOrReplaceTempView("sent");
    assertThat(rows("SELECT * FROM floe.s.t"))
        .isEqualTo(rows("SELECT * FROM sent UNION ALL SELECT 100L, 'other'"));
    List<Snapshot> ancestry = StreamTables.ancestry(table(), null);
    assertThat(ancestry).hasSize(3);
    assertThat(ancestry.get(1).summary()).doesNotContainKey(StreamEpoch.QUERY_ID_KEY);
    assertThat(ancestry.get(2).summary()).containsEntry(StreamEpoch.EPOCH_ID_KEY, "1");
  }

  @Test
  void anotherWriterCommittingDuringACompleteEpochsCommitFailsNothing() throws Exception {
    sql("CREATE TABLE floe.s.c (data STRING, n BIGINT) USING iceberg");
    StreamingQuery query =
        stream().groupBy("data").count().toDF("data", "n").writeStream().outputMode("complete")
            .option("checkpointLocation", checkpoints.resolve("q").toString())
            .toTable("faulty.s.c");
    send(5, 2);
    query.processAllAvailable();
    FaultInjectingCatalog.inject(
        "faulty", "s.c",
        (real, base, metadata) -> {
          spark.sql("INSERT INTO floe.s.c VALUES ('other', 7)");
          throw new CommitFailedException("raced by another writer");
        });
    send(4, 3);
    query.processAllAvailable();
    query.stop();

    // complete mode replaces every row, the other writer's too
    sentRows().createOrReplaceTempView("sent");
    assertThat(rows("SELECT * FROM floe.s.c"))
        .isEqualTo(rows("SELECT data, count(*) AS n FROM sent GROUP BY data"));
    List<Snapshot> ancestry = StreamTables.ancestry(StreamTables.load(warehouse, "s", "c"), null);
    assertThat(ancestry).hasSize(3);
    assertThat(ancestry.get(1).summary()).doesNotContainKey(StreamEpoch.QUERY_ID_KEY);
    assertThat(ancestry.get(2).operation()).isEqualTo(DataOperations.OVERWRITE);
  }

  @Test
  void commitIdOptionIsRejectedForStreams() throws Exception {
    sql("CREATE TABLE floe.s.t (id BIGINT, data STRING) USING iceberg");
    StreamingQuery query = start("append", "commit-id", "mine");
    send(2, 2);
    org.assertj.core.api.Assertions.assertThatThrownBy(query::processAllAvailable)
        .isInstanceOf(StreamingQueryException.class)
        .hasMessageContaining("option 'commit-id' is for batch writes");
    assertThat(table().currentSnapshot()).isNull();
  }
}
