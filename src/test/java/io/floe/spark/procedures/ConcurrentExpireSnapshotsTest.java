package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * {@code expire_snapshots} while another thread appends: no file a committed snapshot still
 * references is deleted, and no appended row is lost.
 */
class ConcurrentExpireSnapshotsTest extends ProcedureTestBase {
  private static final String TABLE = "db.busy";
  private static final int APPENDS = 12;

  @Test
  void expiryDuringAppendsKeepsEveryReferencedFile() throws Exception {
    createTable(TABLE);
    append(TABLE, 0);
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try {
      Future<?> appends =
          writer.submit(
              () -> {
                for (long id = 1; id <= APPENDS; id++) {
                  append(TABLE, id);
                }
              });
      int expiries = 0;
      while (!appends.isDone() || expiries == 0) {
        call(
                "expire_snapshots(table => '%s', older_than => current_timestamp(), "
                    + "retain_last => 1)",
                TABLE)
            .collectAsList();
        expiries++;
      }
      appends.get(1, TimeUnit.MINUTES);
      assertThat(expiries).isGreaterThan(1);
    } finally {
      writer.shutdownNow();
    }

    Table table = icebergTable(TABLE);
    for (Snapshot snapshot : table.snapshots()) {
      assertThat(ExpireSnapshotsTest.exists(snapshot.manifestListLocation())).isTrue();
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        assertThat(ExpireSnapshotsTest.exists(manifest.path())).as(manifest.path()).isTrue();
      }
    }
    List<String> liveFiles = new ArrayList<>();
    try (var tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> liveFiles.add(task.file().location()));
    }
    liveFiles.forEach(file -> assertThat(ExpireSnapshotsTest.exists(file)).as(file).isTrue());
    List<Long> expected = new ArrayList<>();
    for (long id = 0; id <= APPENDS; id++) {
      expected.add(id);
    }
    assertThat(ids(TABLE)).containsExactlyElementsOf(expected);
  }
}
