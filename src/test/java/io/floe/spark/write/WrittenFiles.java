package io.floe.spark.write;

import io.floe.spark.FloeCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.SparkSession;

/**
 * What the distribution tests look at after a write: the data files the last snapshot added, which
 * table partition each holds, which writer task wrote it, and the Parquet files on disk.
 */
final class WrittenFiles {
  private WrittenFiles() {}

  /** The Iceberg table {@code floe.<name>} as the Floe catalog loads it now. */
  static Table table(SparkSession spark, String name) {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    return catalog.icebergCatalog().loadTable(TableIdentifier.parse(name));
  }

  /** The data files the current snapshot added. */
  static List<DataFile> added(Table table) {
    Snapshot current = table.currentSnapshot();
    List<DataFile> files = new ArrayList<>();
    current.addedDataFiles(table.io()).forEach(files::add);
    return files;
  }

  /** The table partitions (as their paths) of some data files, each once. */
  static Set<String> partitions(Table table, List<DataFile> files) {
    return files.stream()
        .map(file -> table.specs().get(file.specId()).partitionToPath(file.partition()))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /**
   * How many files each (table partition, writer task) pair got. Iceberg names a data file
   * {@code <spark partition id>-<task id>-<operation id>-<file number>}, so the writer task is the
   * name's first two parts.
   */
  static Map<String, Integer> filesPerPartitionAndTask(Table table, List<DataFile> files) {
    Map<String, Integer> counts = new HashMap<>();
    for (DataFile file : files) {
      String name = Paths.get(URI.create(file.location())).getFileName().toString();
      String[] parts = name.split("-");
      String key =
          table.specs().get(file.specId()).partitionToPath(file.partition())
              + " @ task "
              + parts[0]
              + "-"
              + parts[1];
      counts.merge(key, 1, Integer::sum);
    }
    return counts;
  }

  /** The writer tasks (Spark partition ids) that wrote some data files. */
  static Set<String> writerTasks(List<DataFile> files) {
    return files.stream()
        .map(file -> Paths.get(URI.create(file.location())).getFileName().toString().split("-")[0])
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** Every Parquet file under the table's data folder, whether any snapshot references it or not. */
  static Set<Path> parquetFilesOnDisk(Table table) {
    Path data = Paths.get(URI.create(table.location() + "/data"));
    if (!Files.exists(data)) {
      return Set.of();
    }
    try (Stream<Path> paths = Files.walk(data)) {
      return paths
          .filter(path -> path.getFileName().toString().endsWith(".parquet"))
          .collect(Collectors.toCollection(TreeSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static int snapshotCount(Table table) {
    int count = 0;
    for (Snapshot ignored : table.snapshots()) {
      count += 1;
    }
    return count;
  }
}
