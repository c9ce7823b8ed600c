package io.floe.spark.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;

/** What a test sees of an Iceberg table on the local disk: its snapshots and its data files. */
final class TableFiles {
  private TableFiles() {}

  /** The snapshots whose summary carries the commit id. */
  static List<Snapshot> snapshotsWithId(Table table, String commitId) {
    List<Snapshot> found = new ArrayList<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (commitId.equals(snapshot.summary().get(Committer.COMMIT_ID_KEY))) {
        found.add(snapshot);
      }
    }
    return found;
  }

  static int snapshotCount(Table table) {
    int count = 0;
    for (Snapshot ignored : table.snapshots()) {
      count += 1;
    }
    return count;
  }

  /** Every data file any snapshot of the table added, as local paths. */
  static Set<Path> referencedDataFiles(Table table) {
    Set<Path> files = new TreeSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      for (DataFile file : SnapshotChanges.builderFor(table).snapshot(snapshot).build().addedDataFiles()) {
        files.add(localPath(file.location()));
      }
    }
    return files;
  }

  /** The referenced data files that are missing from the disk. */
  static Set<Path> missingDataFiles(Table table) {
    return referencedDataFiles(table).stream()
        .filter(path -> !Files.exists(path))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The Parquet files under the table's data folder that no snapshot references. */
  static Set<Path> unreferencedDataFiles(Table table) {
    Set<Path> onDisk = dataFilesOnDisk(table);
    onDisk.removeAll(referencedDataFiles(table));
    return onDisk;
  }

  static Set<Path> dataFilesOnDisk(Table table) {
    Path data = localPath(table.location()).resolve("data");
    if (!Files.exists(data)) {
      return new TreeSet<>();
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files
          .filter(Files::isRegularFile)
          .filter(path -> path.getFileName().toString().endsWith(".parquet"))
          .collect(Collectors.toCollection(TreeSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path localPath(String location) {
    return Paths.get(URI.create(location.startsWith("file:") ? location : "file:" + location));
  }
}
