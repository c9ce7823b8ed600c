package io.floe.spark.read.plan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The data files live at a snapshot, each with the delete files Iceberg applies to it there (its
 * scan planning decides, by sequence numbers, partitions and deletion vectors), for the changelog
 * planner's question "which rows of this file were live at that snapshot". A snapshot is planned
 * only when asked, and the two most recent answers are kept: consecutive snapshots of a changelog
 * ask for a snapshot and then for it again as the next one's parent.
 */
final class ChangelogLiveFiles {
  private static final int KEPT = 2;

  private final Table table;
  private final String name;
  private final Map<Long, Map<String, FileScanTask>> planned =
      new LinkedHashMap<>(4, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Map<String, FileScanTask>> eldest) {
          return size() > KEPT;
        }
      };
  private int scans;

  ChangelogLiveFiles(Table table, String name) {
    this.table = table;
    this.name = name;
  }

  /** How many snapshots were planned. */
  int scans() {
    return scans;
  }

  /**
   * The delete files applied to a data file at a snapshot: none when the snapshot is null (before
   * the table's first snapshot) or has no delete files at all.
   *
   * @throws IllegalStateException when the file is not live at the snapshot
   */
  List<DeleteFile> deletes(Snapshot snapshot, String location) {
    if (snapshot == null || snapshot.deleteManifests(table.io()).isEmpty()) {
      return List.of();
    }
    FileScanTask task = files(snapshot).get(location);
    if (task == null) {
      throw new IllegalStateException(
          "Cannot plan the changelog " + name + ": data file " + location
              + " is not live at snapshot " + snapshot.snapshotId());
    }
    return task.deletes();
  }

  /** Every data file live at the snapshot, by location, with its delete files. */
  Map<String, FileScanTask> files(Snapshot snapshot) {
    Map<String, FileScanTask> files = planned.get(snapshot.snapshotId());
    if (files != null) {
      return files;
    }
    files = new HashMap<>();
    // unfiltered: a filter would bind to the snapshot's schema, and the changelog filters files
    // itself with the table's
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        files.put(task.file().location(), task);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot plan the changelog " + name + " at snapshot " + snapshot.snapshotId(), e);
    }
    scans++;
    planned.put(snapshot.snapshotId(), files);
    return files;
  }
}
