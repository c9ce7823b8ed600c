package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.commit.CommitOutcome;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.StreamEpoch;
import io.floe.spark.commit.WriteMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Committer's epoch check on a real hadoop table, without Spark: epochs the official runtime
 * committed (its summary keys only, no {@code floe.commit-id}) are recognised, and the search stops
 * at the query's earlier epoch.
 */
class StreamEpochCommitTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

  private Path warehouse;
  private HadoopCatalog catalog;
  private Table table;

  @BeforeEach
  void setUp() throws IOException {
    warehouse = Files.createTempDirectory("floe-epochs");
    catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
    catalog.createNamespace(Namespace.of("s"));
    table = catalog.createTable(TableIdentifier.of("s", "t"), SCHEMA, PartitionSpec.unpartitioned());
  }

  @AfterEach
  void tearDown() throws IOException {
    catalog.close();
    try (var files = Files.walk(warehouse)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private DataFile file() {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(table.location() + "/data/" + UUID.randomUUID() + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(10)
        .withRecordCount(1)
        .build();
  }

  /** A snapshot as the official runtime's streaming append commits it. */
  private void officialEpoch(String queryId, long epoch) {
    table.newFastAppend()
        .appendFile(file())
        .set(StreamEpoch.QUERY_ID_KEY, queryId)
        .set(StreamEpoch.EPOCH_ID_KEY, Long.toString(epoch))
        .commit();
  }

  private CommitOutcome commitEpoch(String queryId, long epoch) {
    table.refresh();
    return commitEpoch(table, WriteMode.APPEND, queryId, epoch);
  }

  /** An epoch's commit as the sink makes it, to the table object given (which may be stale). */
  private CommitOutcome commitEpoch(Table target, WriteMode mode, String queryId, long epoch) {
    StreamEpoch stream = new StreamEpoch(queryId, epoch);
    Map<String, String> properties = new HashMap<>(stream.summaryProperties());
    CommitRequest request =
        new CommitRequest(
            mode, List.of(file()), mode == WriteMode.APPEND ? null : org.apache.iceberg.expressions.Expressions.alwaysTrue(),
            stream.commitId(), true, null, null, null, properties, null, null);
    return new Committer(target, "s.t").commit(request);
  }

  private int snapshots() {
    table.refresh();
    int count = 0;
    for (var ignored : table.snapshots()) {
      count += 1;
    }
    return count;
  }

  @Test
  void epochsTheOfficialRuntimeCommittedAreSkipped() {
    String query = UUID.randomUUID().toString();
    officialEpoch(query, 0);
    officialEpoch(query, 1);

    CommitOutcome replay = commitEpoch(query, 1);
    assertThat(replay.skipped()).isTrue();
    assertThat(replay.writtenFilesUnused()).isTrue();
    assertThat(commitEpoch(query, 0).skipped()).isTrue();
    assertThat(snapshots()).isEqualTo(2);

    CommitOutcome next = commitEpoch(query, 2);
    assertThat(next.skipped()).isFalse();
    table.refresh();
    assertThat(table.currentSnapshot().summary())
        .containsEntry(StreamEpoch.QUERY_ID_KEY, query)
        .containsEntry(StreamEpoch.EPOCH_ID_KEY, "2")
        .containsEntry(Committer.COMMIT_ID_KEY, new StreamEpoch(query, 2).commitId());
  }

  @Test
  void anAppendByAnotherWriterAfterTheSinkLoadedTheTableFailsNothingInBothModes() {
    String query = UUID.randomUUID().toString();
    for (WriteMode mode : List.of(WriteMode.APPEND, WriteMode.OVERWRITE_BY_FILTER)) {
      long epoch = mode == WriteMode.APPEND ? 0 : 1;
      // the sink loaded the table before another writer appended
      Table stale = catalog.loadTable(TableIdentifier.of("s", "t"));
      table.refresh();
      table.newFastAppend().appendFile(file()).commit();
      CommitOutcome outcome = commitEpoch(stale, mode, query, epoch);
      assertThat(outcome.skipped()).as(mode.name()).isFalse();
      table.refresh();
      assertThat(table.currentSnapshot().summary())
          .containsEntry(StreamEpoch.EPOCH_ID_KEY, String.valueOf(epoch));
      // the other writer's snapshot stays in the ancestry, right below the epoch's
      assertThat(table.snapshot(table.currentSnapshot().parentId()).summary())
          .doesNotContainKey(StreamEpoch.QUERY_ID_KEY);
    }
  }

  @Test
  void anotherQuerysEpochsDoNotCount() {
    String other = UUID.randomUUID().toString();
    officialEpoch(other, 5);
    String query = UUID.randomUUID().toString();
    assertThat(commitEpoch(query, 0).skipped()).isFalse();
    assertThat(commitEpoch(query, 5).skipped()).isFalse();
    assertThat(snapshots()).isEqualTo(3);
  }

  @Test
  void searchEndsAtTheQuerysEarlierEpoch() {
    String query = UUID.randomUUID().toString();
    // a snapshot carrying epoch 3's commit id under an earlier epoch of the query: it is older than
    // the query's epoch 1, so the search stops before reaching it
    table.newFastAppend()
        .appendFile(file())
        .set(Committer.COMMIT_ID_KEY, new StreamEpoch(query, 3).commitId())
        .commit();
    officialEpoch(query, 1);
    assertThat(commitEpoch(query, 3).skipped()).isFalse();
    // a later snapshot of another writer in between does not end the search
    table.newFastAppend().appendFile(file()).commit();
    assertThat(commitEpoch(query, 3).skipped()).isTrue();
    assertThat(commitEpoch(query, 2).skipped()).isTrue();
  }

  @Test
  void batchRequestsWithTheStreamKeysAsPropertiesAreNotEpochs() {
    String query = UUID.randomUUID().toString();
    officialEpoch(query, 4);
    // a caller setting the keys as snapshot properties of a batch write gets no epoch semantics
    CommitRequest request =
        new CommitRequest(
            WriteMode.APPEND, List.of(file()), null, UUID.randomUUID().toString(), true, null, null,
            null, new StreamEpoch(query, 1).summaryProperties(), null, null);
    table.refresh();
    assertThat(new Committer(table, "s.t").commit(request).skipped()).isFalse();
  }
}
