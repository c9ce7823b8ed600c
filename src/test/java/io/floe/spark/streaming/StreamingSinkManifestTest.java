package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.commit.FaultInjectingCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The manifest an append epoch writes on the driver: the snapshot is the one a file append makes
 * (summary totals, the manifest inherits the snapshot's id and is not rewritten), and no manifest
 * is left behind by a skipped epoch or a commit that certainly failed; one whose outcome is
 * unknown keeps it. Real SparkSession, MemoryStream input, a hadoop catalog.
 */
class StreamingSinkManifestTest extends SinkTestBase {
  @Override
  List<String> tablesToDrop() {
    return List.of("floe.m.t");
  }

  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.m");
    registerFaultyCatalog("faultym");
  }

  private StreamingQuery start(String catalog) throws TimeoutException {
    return input.toDF().toDF("id", "data").writeStream().outputMode("append")
        .option("checkpointLocation", checkpoints.resolve("q").toString())
        .toTable(catalog + ".m.t");
  }

  private Table table() {
    return StreamTables.load(warehouse, "m", "t");
  }

  private static long sizeOf(Iterable<DataFile> files) {
    long bytes = 0;
    for (DataFile file : files) {
      bytes += file.fileSizeInBytes();
    }
    return bytes;
  }

  @Test
  void laterEpochsCommitToTheRefreshedTableWithoutLoadingItAgain() throws Exception {
    sql("CREATE TABLE floe.m.t (id BIGINT, data STRING) USING iceberg");
    StreamingQuery query = start("faultym");
    send(3, 1);
    query.processAllAvailable();
    int loadsAfterFirstEpoch = FaultInjectingCatalog.loads("faultym", "m.t");
    // another writer commits between epochs: the next epoch's refresh must see it
    sql("INSERT INTO floe.m.t VALUES (1000, 'other')");
    send(4, 2);
    query.processAllAvailable();
    send(5, 3);
    query.processAllAvailable();
    query.stop();

    assertThat(loadsAfterFirstEpoch).isPositive();
    assertThat(FaultInjectingCatalog.loads("faultym", "m.t"))
        .as("catalog loads of the sink's table after its first epoch")
        .isEqualTo(loadsAfterFirstEpoch);
    assertThat(StreamTables.sortedRows(spark.table("floe.m.t")))
        .isEqualTo(
            StreamTables.sortedRows(
                sentRows().union(spark.sql("SELECT CAST(1000 AS BIGINT) AS id, 'other' AS data"))));
    List<Snapshot> snapshots = StreamTables.ancestry(table(), null);
    assertThat(snapshots).hasSize(4);
    assertThat(snapshots.get(1).summary()).doesNotContainKey("spark.sql.streaming.epochId");
    assertThat(snapshots.get(3).summary()).containsEntry("spark.sql.streaming.epochId", "2");
  }

  @Test
  void epochSnapshotHasTheSummaryAndManifestOfAFileAppend() throws Exception {
    sql("CREATE TABLE floe.m.t (id BIGINT, data STRING) USING iceberg PARTITIONED BY (data)");
    StreamingQuery query = start("floe");
    send(9, 3);
    query.processAllAvailable();
    send(4, 2);
    query.processAllAvailable();
    query.stop();

    assertThat(StreamTables.sortedRows(spark.table("floe.m.t")))
        .isEqualTo(StreamTables.sortedRows(sentRows()));
    Table table = table();
    List<Snapshot> snapshots = StreamTables.ancestry(table, null);
    assertThat(snapshots).hasSize(2);
    long totalBytes = 0;
    long totalFiles = 0;
    int[] partitions = {3, 2};
    int[] rows = {9, 4};
    for (int epoch = 0; epoch < 2; epoch++) {
      Snapshot snapshot = snapshots.get(epoch);
      List<DataFile> added = new ArrayList<>();
      snapshot.addedDataFiles(table.io()).forEach(added::add);
      Set<Object> addedPartitions = new HashSet<>();
      added.forEach(file -> addedPartitions.add(file.partition()));
      assertThat(addedPartitions).hasSize(partitions[epoch]);
      totalBytes += sizeOf(added);
      totalFiles += added.size();
      assertThat(snapshot.summary())
          .containsEntry(SnapshotSummary.ADDED_FILES_PROP, String.valueOf(added.size()))
          .containsEntry(SnapshotSummary.ADDED_RECORDS_PROP, String.valueOf(rows[epoch]))
          .containsEntry(SnapshotSummary.ADDED_FILE_SIZE_PROP, String.valueOf(sizeOf(added)))
          .containsEntry(SnapshotSummary.CHANGED_PARTITION_COUNT_PROP, String.valueOf(partitions[epoch]))
          .containsEntry(SnapshotSummary.TOTAL_FILE_SIZE_PROP, String.valueOf(totalBytes))
          .containsEntry(SnapshotSummary.TOTAL_DATA_FILES_PROP, String.valueOf(totalFiles))
          .containsEntry(SnapshotSummary.TOTAL_RECORDS_PROP, String.valueOf(sent.size() - (epoch == 0 ? 4 : 0)))
          .containsEntry(SnapshotSummary.CREATED_MANIFESTS_COUNT, "1");
      // one new manifest, which inherited the snapshot's id rather than being rewritten with it
      List<ManifestFile> own = new ArrayList<>();
      for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
        if (manifest.snapshotId() == snapshot.snapshotId()) {
          own.add(manifest);
        }
      }
      assertThat(own).hasSize(1);
      assertThat(own.get(0).addedFilesCount()).isEqualTo(added.size());
    }
    assertThat(StreamTables.manifestsOnDisk(table)).isEqualTo(StreamTables.referencedManifests(table));
    assertThat(StreamTables.referencedManifests(table)).hasSize(2);
  }

  @Test
  void replayedEpochLeavesNoManifestOrDataFileBehind() throws Exception {
    sql("CREATE TABLE floe.m.t (id BIGINT, data STRING) USING iceberg");
    StreamingQuery query = start("floe");
    send(6, 3);
    query.processAllAvailable();
    send(5, 3);
    query.processAllAvailable();
    query.stop();
    Set<Path> manifestsBefore = StreamTables.manifestsOnDisk(table());
    Set<Path> filesBefore = StreamTables.dataFilesOnDisk(table());

    // a crash between the table commit and the checkpoint's: the commit log lacks epoch 1
    Path commits = checkpoints.resolve("q").resolve("commits");
    Files.delete(commits.resolve("1"));
    Files.deleteIfExists(commits.resolve(".1.crc"));
    StreamingQuery restarted = start("floe");
    restarted.processAllAvailable();
    restarted.stop();

    assertThat(StreamTables.sortedRows(spark.table("floe.m.t")))
        .isEqualTo(StreamTables.sortedRows(sentRows()));
    assertThat(StreamTables.ancestry(table(), null)).hasSize(2);
    assertThat(StreamTables.manifestsOnDisk(table())).isEqualTo(manifestsBefore);
    assertThat(StreamTables.dataFilesOnDisk(table())).isEqualTo(filesBefore);
  }

  @Test
  void certainlyFailedCommitLeavesNoManifestOrDataFileBehind() throws Exception {
    sql("CREATE TABLE floe.m.t (id BIGINT, data STRING) USING iceberg"
        + " TBLPROPERTIES ('commit.retry.num-retries'='0')");
    StreamingQuery query = start("faultym");
    send(4, 2);
    query.processAllAvailable();
    FaultInjectingCatalog.inject("faultym", "m.t", FaultInjectingCatalog.CONFLICT_BEFORE_COMMIT);
    send(3, 2);
    assertThatThrownBy(query::processAllAvailable)
        .isInstanceOf(StreamingQueryException.class)
        .hasStackTraceContaining("injected: conflict");

    Table table = table();
    assertThat(StreamTables.ancestry(table, null)).hasSize(1);
    assertThat(StreamTables.manifestsOnDisk(table)).isEqualTo(StreamTables.referencedManifests(table));
    assertThat(StreamTables.dataFilesOnDisk(table)).isEqualTo(StreamTables.referencedDataFiles(table));
  }

  @Test
  void commitOfUnknownOutcomeKeepsItsManifestAndDataFiles() throws Exception {
    sql("CREATE TABLE floe.m.t (id BIGINT, data STRING) USING iceberg");
    StreamingQuery query = start("faultym");
    send(4, 2);
    query.processAllAvailable();
    Set<Path> manifestsBefore = StreamTables.manifestsOnDisk(table());
    Set<Path> filesBefore = StreamTables.dataFilesOnDisk(table());
    FaultInjectingCatalog.inject("faultym", "m.t", FaultInjectingCatalog.UNKNOWN_WITHOUT_COMMIT);
    send(3, 2);
    assertThatThrownBy(query::processAllAvailable)
        .isInstanceOf(StreamingQueryException.class)
        .hasStackTraceContaining("injected: no answer");

    Table table = table();
    assertThat(StreamTables.ancestry(table, null)).hasSize(1);
    // nothing certain about the commit: the epoch's manifest and files stay where they are
    Set<Path> newManifests = new TreeSet<>(StreamTables.manifestsOnDisk(table));
    newManifests.removeAll(manifestsBefore);
    assertThat(newManifests).hasSize(1);
    Set<Path> newFiles = new TreeSet<>(StreamTables.dataFilesOnDisk(table));
    newFiles.removeAll(filesBefore);
    assertThat(newFiles).isNotEmpty();
  }
}
