package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code expire_snapshots} right after a compaction frees the compacted files at once, as the
 * official runtime does (not only once the compaction's own snapshot has expired), and keeps every
 * file a retained snapshot, branch or tag still references.
 */
class ExpireAfterCompactionTest extends ProcedureTestBase {
  private static final String TABLE = "db.compacted";
  private static final String EXPIRE =
      "expire_snapshots(table => '%s', older_than => current_timestamp(), retain_last => 1)";

  private List<String> smallFiles;

  /** Three appends, one small file each, the rows kept as the view {@code expected}. */
  @BeforeEach
  void createSmallFiles() {
    createTable(TABLE);
    // one row per append: local[2] would write a file per task for more
    append(TABLE, 1);
    append(TABLE, 2);
    append(TABLE, 3);
    Dataset<Row> now = spark.table(CATALOG + "." + TABLE);
    spark.createDataFrame(now.collectAsList(), now.schema()).createOrReplaceTempView("expected");
    smallFiles = liveFiles(icebergTable(TABLE));
    assertThat(smallFiles).hasSize(3);
  }

  private static void compact() {
    List<Row> result =
        call("rewrite_data_files(table => '%s', options => map('min-input-files', '2'))", TABLE)
            .collectAsList();
    assertThat(result.get(0).getInt(0)).isEqualTo(3);
    assertThat(result.get(0).getInt(1)).isEqualTo(1);
  }

  private static List<String> liveFiles(Table table) {
    List<String> files = new ArrayList<>();
    try (var tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file().location()));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return files;
  }

  /** Every file a snapshot references: its manifest list, manifests and their live files. */
  private static Set<String> referencedBy(Table table, Snapshot snapshot) throws IOException {
    Set<String> files = new HashSet<>();
    files.add(snapshot.manifestListLocation());
    for (ManifestFile manifest : snapshot.allManifests(table.io())) {
      files.add(manifest.path());
      if (manifest.content() == ManifestContent.DATA) {
        try (CloseableIterable<String> paths =
            ManifestFiles.readPaths(manifest, table.io(), table.specs())) {
          paths.forEach(files::add);
        }
      } else {
        try (CloseableIterable<DeleteFile> deletes =
            ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          deletes.forEach(file -> files.add(file.location()));
        }
      }
    }
    return files;
  }

  private static Set<String> expiredManifests(Table table, long retainedId) {
    Set<String> expired = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      expired.addAll(ExpireSnapshotsTest.manifests(table, snapshot.snapshotId()));
    }
    expired.removeAll(ExpireSnapshotsTest.manifests(table, retainedId));
    return expired;
  }

  private static void assertRowsEqualView(String table) {
    assertThat(sql("SELECT * FROM %s EXCEPT ALL SELECT * FROM expected", table)).isEmpty();
    assertThat(sql("SELECT * FROM expected EXCEPT ALL SELECT * FROM %s", table)).isEmpty();
    assertThat(sql("SELECT count(*) FROM %s", table).get(0).getLong(0))
        .isEqualTo(sql("SELECT count(*) FROM expected").get(0).getLong(0));
  }

  @Test
  void expiryRightAfterACompactionDeletesTheCompactedFiles() throws IOException {
    compact();
    Table table = icebergTable(TABLE);
    long replace = table.currentSnapshot().snapshotId();
    Set<String> manifests = expiredManifests(table, replace);
    long lists = snapshots(TABLE).size() - 1;

    List<Row> result = call(EXPIRE, TABLE).collectAsList();

    assertThat(result).containsExactly(row(3L, 0L, 0L, (long) manifests.size(), lists, 0L));
    smallFiles.forEach(file -> assertThat(ExpireSnapshotsTest.exists(file)).as(file).isFalse());
    manifests.forEach(file -> assertThat(ExpireSnapshotsTest.exists(file)).as(file).isFalse());
    Table after = icebergTable(TABLE);
    assertThat(ExpireSnapshotsTest.snapshotIds(TABLE)).containsExactly(replace);
    for (String file : referencedBy(after, after.currentSnapshot())) {
      assertThat(ExpireSnapshotsTest.exists(file)).as(file).isTrue();
    }
    assertRowsEqualView(CATALOG + "." + TABLE);
  }

  @Test
  void aTagOnTheSmallFilesKeepsThemUntilItIsDropped() throws IOException {
    Table table = icebergTable(TABLE);
    long lastAppend = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createTag("small", lastAppend).commit();
    compact();

    List<Row> result = call(EXPIRE, TABLE).collectAsList();

    assertThat(result.get(0).getLong(0)).isZero();
    assertThat(ExpireSnapshotsTest.snapshotIds(TABLE)).contains(lastAppend);
    Table tagged = icebergTable(TABLE);
    for (String file : referencedBy(tagged, tagged.snapshot(lastAppend))) {
      assertThat(ExpireSnapshotsTest.exists(file)).as(file).isTrue();
    }
    assertRowsEqualView(String.format("%s.%s VERSION AS OF 'small'", CATALOG, TABLE));

    tagged.manageSnapshots().removeTag("small").commit();
    assertThat(call(EXPIRE, TABLE).collectAsList().get(0).getLong(0)).isEqualTo(3L);
    smallFiles.forEach(file -> assertThat(ExpireSnapshotsTest.exists(file)).as(file).isFalse());
    assertRowsEqualView(CATALOG + "." + TABLE);
  }

  @Test
  void aBranchOnTheSmallFilesKeepsThem() throws IOException {
    Table table = icebergTable(TABLE);
    long lastAppend = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createBranch("audit", lastAppend).commit();
    compact();

    List<Row> result = call(EXPIRE, TABLE).collectAsList();

    assertThat(result.get(0).getLong(0)).isZero();
    Table branched = icebergTable(TABLE);
    for (String file : referencedBy(branched, branched.snapshot(lastAppend))) {
      assertThat(ExpireSnapshotsTest.exists(file)).as(file).isTrue();
    }
    smallFiles.forEach(file -> assertThat(ExpireSnapshotsTest.exists(file)).as(file).isTrue());
    assertRowsEqualView(String.format("%s.%s VERSION AS OF 'audit'", CATALOG, TABLE));
    assertRowsEqualView(CATALOG + "." + TABLE);
  }

  /**
   * A retained snapshot with a live delete manifest (a position delete file registered through
   * Iceberg's core API after the compaction): the compacted files still go, the delete file stays.
   * Rows are not read, as the delete file is a stand-in of three bytes.
   */
  @Test
  void aRetainedDeleteManifestDoesNotStopTheCleanup() throws IOException {
    compact();
    Table table = icebergTable(TABLE);
    Path path =
        Paths.get(URI.create(withScheme(table.location()))).resolve("data").resolve("pos.parquet");
    Files.createDirectories(path.getParent());
    Files.write(path, new byte[] {1, 2, 3});
    DeleteFile positions =
        FileMetadata.deleteFileBuilder(table.spec())
            .ofPositionDeletes()
            .withPath(path.toUri().toString())
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(3)
            .withRecordCount(1)
            .build();
    table.newRowDelta().addDeletes(positions).commit();
    long retained = icebergTable(TABLE).currentSnapshot().snapshotId();

    List<Row> result = call(EXPIRE, TABLE).collectAsList();

    assertThat(result.get(0).getLong(0)).isEqualTo(3L);
    assertThat(result.get(0).getLong(1)).isZero();
    assertThat(ExpireSnapshotsTest.snapshotIds(TABLE)).containsExactly(retained);
    smallFiles.forEach(file -> assertThat(ExpireSnapshotsTest.exists(file)).as(file).isFalse());
    Table after = icebergTable(TABLE);
    Set<String> referenced = referencedBy(after, after.currentSnapshot());
    assertThat(referenced).contains(positions.location());
    referenced.forEach(file -> assertThat(ExpireSnapshotsTest.exists(file)).as(file).isTrue());
  }

  private static String withScheme(String location) {
    return location.startsWith("file:") ? location : "file:" + location;
  }
}
