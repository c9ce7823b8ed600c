package io.floe.spark.streaming;

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
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** What the streaming tests see of a table and a query: snapshots, files, rows. */
final class StreamTables {
  private StreamTables() {}

  static Table load(Path warehouse, String namespace, String name) {
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
    return catalog.loadTable(TableIdentifier.of(namespace, name));
  }

  /** The snapshots of a branch's ancestry, oldest first. */
  static List<Snapshot> ancestry(Table table, String branch) {
    Snapshot head = branch == null ? table.currentSnapshot() : table.snapshot(branch);
    List<Snapshot> snapshots = new ArrayList<>();
    if (head != null) {
      for (Snapshot snapshot : SnapshotUtil.ancestorsOf(head.snapshotId(), table::snapshot)) {
        snapshots.add(0, snapshot);
      }
    }
    return snapshots;
  }

  /** The data files on disk under the table's data folder. */
  static Set<Path> dataFilesOnDisk(Table table) {
    Path data = localPath(table.location()).resolve("data");
    if (!Files.exists(data)) {
      return Set.of();
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

  /** The data files the table's snapshots reference (any snapshot, any branch). */
  static Set<Path> referencedDataFiles(Table table) {
    Set<Path> files = new TreeSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        for (FileScanTask task : tasks) {
          DataFile file = task.file();
          files.add(localPath(file.location()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }

  /** The manifests on disk in the table's metadata folder (Avro files that are no manifest list). */
  static Set<Path> manifestsOnDisk(Table table) {
    Path metadata = localPath(table.location()).resolve("metadata");
    try (Stream<Path> files = Files.list(metadata)) {
      return files
          .filter(path -> path.getFileName().toString().endsWith(".avro"))
          .filter(path -> !path.getFileName().toString().startsWith("snap-"))
          .collect(Collectors.toCollection(TreeSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The manifests the table's snapshots list (any snapshot, any branch). */
  static Set<Path> referencedManifests(Table table) {
    Set<Path> manifests = new TreeSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        manifests.add(localPath(manifest.path()));
      }
    }
    return manifests;
  }

  static Path localPath(String location) {
    return location.startsWith("file:") ? Paths.get(URI.create(location)) : Paths.get(location);
  }

  /** A dataset's rows as sorted text, to compare without regard to order. */
  static List<String> sortedRows(Dataset<Row> rows) {
    List<String> text = new ArrayList<>();
    for (Row row : rows.collectAsList()) {
      text.add(row.toString());
    }
    text.sort(null);
    return text;
  }
}
