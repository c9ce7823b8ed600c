package io.floe.spark.streaming;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.MicroBatches;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.Pair;

/**
 * The data files a snapshot added (or, for a stream that starts with all of a snapshot's files,
 * all its live files), each with its position as Iceberg's {@code MicroBatches} numbers them: the
 * numbering offsets carry, the same as the official runtime's. Positions grow in file order but
 * may skip numbers (a merged manifest counts its existing files too).
 *
 * <p>Driver-side only; it remembers the files of the last few snapshots it read, since finding the
 * end of a micro-batch and planning it read the same snapshots.
 */
final class SnapshotFiles {
  private static final int REMEMBERED = 16;

  /** A data file task and its position in its snapshot. */
  record Positioned(long position, FileScanTask task) {}

  private final Map<String, List<Positioned>> remembered =
      new LinkedHashMap<>(REMEMBERED, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, List<Positioned>> eldest) {
          return size() > REMEMBERED;
        }
      };

  /** The snapshot's files in position order. */
  List<Positioned> of(Table table, Snapshot snapshot, boolean allFiles, boolean caseSensitive) {
    String key = snapshot.snapshotId() + (allFiles ? "/all" : "/added");
    List<Positioned> files = remembered.get(key);
    if (files == null) {
      files = read(table, snapshot, allFiles, caseSensitive);
      remembered.put(key, files);
    }
    return files;
  }

  private static List<Positioned> read(
      Table table, Snapshot snapshot, boolean allFiles, boolean caseSensitive) {
    List<Positioned> files = new ArrayList<>();
    List<Pair<ManifestFile, Integer>> manifests =
        MicroBatches.skippedManifestIndexesFromSnapshot(table.io(), snapshot, 0, allFiles);
    for (Pair<ManifestFile, Integer> manifest : manifests) {
      long position = manifest.second();
      try (CloseableIterable<FileScanTask> tasks =
          MicroBatches.openManifestFile(
              table.io(), table.specs(), caseSensitive, snapshot, manifest.first(), allFiles)) {
        for (FileScanTask task : tasks) {
          files.add(new Positioned(position, task));
          position += 1;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot read manifest " + manifest.first().path() + " of snapshot " + snapshot.snapshotId(), e);
      }
    }
    return List.copyOf(files);
  }
}
