package io.floe.spark.rowlevel;

import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import io.floe.spark.commit.Committer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How a merge-on-read operation commits: under serializable isolation it fails on data committed
 * after the snapshot it validates from, naming the table, the snapshot and the level, and leaves
 * neither a snapshot nor a file behind; under snapshot isolation the same change commits; a rerun
 * with the caller's commit id is a no-op; the delete granularity and the isolation level come from
 * the official runtime's table properties.
 *
 * <p>The operation's view of the table is pinned by the session conf {@code
 * spark.floe.write.validate-from-snapshot-id}, and the append made after that snapshot plays the
 * concurrent writer.
 */
class MergeOnReadCommitTest extends SparkTestBase {
  private static final String VALIDATE_FROM = "spark.floe.write.validate-from-snapshot-id";
  private static final String COMMIT_ID = "spark.floe.write.commit-id";

  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.morc");
  }

  @AfterEach
  void clearConfs() {
    spark.conf().unset(VALIDATE_FROM);
    spark.conf().unset(COMMIT_ID);
    spark.conf().unset("spark.floe.write.isolation-level");
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void serializableDeleteFailsOnDataAddedAfterTheValidatedSnapshotAndLeavesNothing(
      int formatVersion) {
    MergeOnReadTables t =
        MergeOnReadTables.create(spark, "morc.ser_v" + formatVersion, formatVersion, true, Map.of());
    List<Snapshot> snapshots = snapshots(t.iceberg());
    long firstAppend = snapshots.get(0).snapshotId();
    List<Path> filesBefore = filesOnDisk(t.iceberg());
    spark.conf().set(VALIDATE_FROM, String.valueOf(firstAppend));

    // the second append's rows in department a are rows this delete reads
    assertThatThrownBy(() -> sql("DELETE FROM %s WHERE dep = 'a' AND id > 25", t.table()))
        .hasStackTraceContaining(t.table())
        .hasStackTraceContaining(
            "isolation-level serializable found a conflicting commit after snapshot " + firstAppend)
        .hasStackTraceContaining("Found conflicting files");

    assertThat(snapshots(t.iceberg())).hasSameSizeAs(snapshots);
    assertThat(filesOnDisk(t.iceberg())).isEqualTo(filesBefore);
    t.assertRows("SELECT id, dep, val FROM " + MergeOnReadTables.VIEW);
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void snapshotIsolationDeleteCommitsDespiteDataAddedAfterTheValidatedSnapshot(int formatVersion) {
    MergeOnReadTables t =
        MergeOnReadTables.create(
            spark, "morc.snap_v" + formatVersion, formatVersion, true,
            Map.of("write.delete.isolation-level", "snapshot"));
    long firstAppend = snapshots(t.iceberg()).get(0).snapshotId();
    spark.conf().set(VALIDATE_FROM, String.valueOf(firstAppend));

    sql("DELETE FROM %s WHERE dep = 'a' AND id > 25", t.table());

    t.assertRows(
        "SELECT id, dep, val FROM " + MergeOnReadTables.VIEW
            + " WHERE NOT coalesce(dep = 'a' AND id > 25, false)");
  }

  @Test
  void isolationLevelOptionOverridesTheTableProperty() {
    MergeOnReadTables t =
        MergeOnReadTables.create(
            spark, "morc.opt", 3, false, Map.of("write.update.isolation-level", "snapshot"));
    long firstAppend = snapshots(t.iceberg()).get(0).snapshotId();
    spark.conf().set(VALIDATE_FROM, String.valueOf(firstAppend));
    spark.conf().set("spark.floe.write.isolation-level", "serializable");

    assertThatThrownBy(() -> sql("UPDATE %s SET val = 0 WHERE id > 25", t.table()))
        .hasStackTraceContaining("isolation-level serializable found a conflicting commit");
    t.assertRows("SELECT id, dep, val FROM " + MergeOnReadTables.VIEW);
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void rerunWithTheSameCommitIdIsANoOp(int formatVersion) {
    MergeOnReadTables t =
        MergeOnReadTables.create(spark, "morc.rerun_v" + formatVersion, formatVersion, true, Map.of());
    spark.conf().set(COMMIT_ID, "morc-rerun-" + formatVersion);
    sql("DELETE FROM %s WHERE id < 10", t.table());
    Snapshot deleted = t.iceberg().currentSnapshot();
    assertThat(deleted.summary())
        .containsEntry(Committer.COMMIT_ID_KEY, "morc-rerun-" + formatVersion);
    spark.conf().unset(COMMIT_ID);
    sql("INSERT INTO %s VALUES (1, 'a', 1), (2, NULL, 2)", t.table());
    int snapshotsBefore = snapshots(t.iceberg()).size();
    List<Path> filesBefore = filesOnDisk(t.iceberg());

    spark.conf().set(COMMIT_ID, "morc-rerun-" + formatVersion);
    sql("DELETE FROM %s WHERE id < 10", t.table());

    assertThat(snapshots(t.iceberg())).hasSize(snapshotsBefore);
    assertThat(filesOnDisk(t.iceberg())).as("the rerun's delete files are removed").isEqualTo(filesBefore);
    t.assertRows(
        "SELECT id, dep, val FROM " + MergeOnReadTables.VIEW + " WHERE NOT coalesce(id < 10, false)"
            + " UNION ALL SELECT 1, 'a', 1 UNION ALL SELECT 2, NULL, 2");
  }

  @Test
  void partitionGranularityWritesOnePositionDeleteFilePerPartition() {
    MergeOnReadTables t =
        MergeOnReadTables.create(
            spark, "morc.gran", 2, true, Map.of("write.delete.granularity", "partition"));

    sql("DELETE FROM %s WHERE id %% 2 = 0", t.table());

    t.assertRows(
        "SELECT id, dep, val FROM " + MergeOnReadTables.VIEW + " WHERE NOT coalesce(id % 2 = 0, false)");
    Map<String, List<DeleteFile>> deletes = t.deletesByDataFile();
    List<String> deleteFiles =
        deletes.values().stream().flatMap(List::stream).map(DeleteFile::location).distinct().toList();
    long partitionsHit =
        spark.sql(
                "SELECT DISTINCT dep FROM " + MergeOnReadTables.VIEW + " WHERE id % 2 = 0")
            .count();
    assertThat(deleteFiles).hasSize((int) partitionsHit);
    // each partition's two data files share one delete file, which no single data file owns
    assertThat(
            deletes.values().stream()
                .flatMap(List::stream)
                .filter(delete -> !ContentFileUtil.isFileScoped(delete))
                .count())
        .isPositive();
  }

  @Test
  void badIsolationLevelPropertyFailsNamingItAndChangesNothing() {
    MergeOnReadTables t =
        MergeOnReadTables.create(
            spark, "morc.badiso", 3, false, Map.of("write.merge.isolation-level", "eventual"));
    int snapshotsBefore = snapshots(t.iceberg()).size();

    assertThatThrownBy(
            () ->
                sql(
                    "MERGE INTO %s t USING (SELECT 1 AS id) s ON t.id = s.id"
                        + " WHEN MATCHED THEN DELETE",
                    t.table()))
        .hasStackTraceContaining("write.merge.isolation-level")
        .hasStackTraceContaining("eventual");
    assertThat(snapshots(t.iceberg())).hasSize(snapshotsBefore);
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void updateWritingNullIntoARequiredColumnFailsNamingItAndChangesNothing(int formatVersion) {
    String table = "floe.morc.required_v" + formatVersion;
    sql("DROP TABLE IF EXISTS %s", table);
    sql(
        "CREATE TABLE %s (id INT NOT NULL, data STRING) USING iceberg TBLPROPERTIES"
            + " ('format-version' = '%d', 'write.update.mode' = 'merge-on-read')",
        table, formatVersion);
    sql("INSERT INTO %s VALUES (1, 'a'), (2, 'b')", table);
    Table before = icebergTable(spark, "morc.required_v" + formatVersion);
    List<Path> filesBefore = filesOnDisk(before);

    assertThatThrownBy(
            () -> sql("UPDATE %s SET id = CASE WHEN data = 'a' THEN NULL ELSE id END", table))
        .hasStackTraceContaining("NULL value appeared in non-nullable field: \nid");

    Table after = icebergTable(spark, "morc.required_v" + formatVersion);
    assertThat(after.currentSnapshot().snapshotId()).isEqualTo(before.currentSnapshot().snapshotId());
    assertThat(filesOnDisk(after)).isEqualTo(filesBefore);
    assertThat(sql("SELECT id, data FROM %s ORDER BY id", table).toString())
        .isEqualTo("[[1,a], [2,b]]");
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void deleteOnABranchChangesOnlyTheBranch(int formatVersion) {
    MergeOnReadTables t =
        MergeOnReadTables.create(spark, "morc.branch_v" + formatVersion, formatVersion, true, Map.of());
    t.iceberg().manageSnapshots().createBranch("audit").commit();
    long mainHead = t.iceberg().currentSnapshot().snapshotId();

    sql("DELETE FROM %s.branch_audit WHERE id < 30", t.table());
    sql("UPDATE %s.branch_audit SET val = 0 WHERE dep = 'a'", t.table());

    assertThat(t.iceberg().currentSnapshot().snapshotId()).isEqualTo(mainHead);
    t.assertRows("SELECT id, dep, val FROM " + MergeOnReadTables.VIEW);
    List<String> expected =
        canonicalRows(
            sql(
                "SELECT id, dep, CASE WHEN coalesce(dep = 'a', false) THEN 0 ELSE val END FROM %s"
                    + " WHERE NOT coalesce(id < 30, false)",
                MergeOnReadTables.VIEW));
    assertThat(canonicalRows(sql("SELECT id, dep, val FROM %s.branch_audit", t.table())))
        .isEqualTo(expected);
    assertThat(t.iceberg().snapshot("audit").summary()).containsKey(Committer.COMMIT_ID_KEY);
  }

  @Test
  void explainNamesTheOperationItsModeAndTheDeleteKind() {
    MergeOnReadTables t = MergeOnReadTables.create(spark, "morc.explain", 3, true, Map.of());

    String plan =
        sql("EXPLAIN DELETE FROM %s WHERE id = 3", t.table()).get(0).getString(0);

    assertThat(plan)
        .contains("WriteDelta")
        .contains("Floe merge-on-read DELETE on " + t.table() + " (deletion vectors, serializable isolation)")
        // the fanout writers by default, as in the official runtime: clustered by partition, unsorted
        .contains("DeltaDistribution{distribution=ClusteredDistributionImpl, ordering=[]}")
        .contains("hashpartitioning(_spec_id")
        .doesNotContain("_pos ASC NULLS FIRST");
  }

  private static List<Snapshot> snapshots(Table table) {
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    return snapshots;
  }

  /** The data and delete files under the table's data folder, as they are on disk. */
  private static List<Path> filesOnDisk(Table table) {
    String location = table.location();
    Path data =
        Paths.get(URI.create(location.startsWith("file:") ? location : "file:" + location))
            .resolve("data");
    try (Stream<Path> files = Files.walk(data)) {
      return files
          .filter(Files::isRegularFile)
          .filter(path -> !path.getFileName().toString().endsWith(".crc"))
          .sorted()
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
