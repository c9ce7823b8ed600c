package io.floe.spark.procedures;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files snapshot expiration found unreferenced, sorted by kind and then deleted, so that {@code
 * expire_snapshots} reports the official runtime's counts per kind.
 *
 * <p>Which files to delete is Iceberg core's decision ({@code ExpireSnapshots} with its cleanup
 * strategy, which keeps every file a retained snapshot, branch or tag references); this class only
 * receives those paths after the commit. A path is classified from the metadata before the
 * expiration: manifest lists and statistics files by the expired snapshots, manifests by their
 * lists, and data and delete files by reading the deleted manifests, where every deleted content
 * file is still listed as live (a file live in a retained manifest is never deleted).
 */
final class ExpiredFiles {
  /** The kinds the output counts, in the order of its columns. */
  enum Kind {
    DATA,
    POSITION_DELETES,
    EQUALITY_DELETES,
    MANIFEST,
    MANIFEST_LIST,
    STATISTICS
  }

  private static final Logger LOG = LoggerFactory.getLogger(ExpiredFiles.class);

  private final String table;
  private final FileIO io;
  private final TableMetadata before;
  private final Set<Long> retained;
  private final Set<String> paths;

  /**
   * @param table the table's name, for messages
   * @param before the metadata before the expiration
   * @param after the metadata after it
   * @param paths the files Iceberg found unreferenced
   */
  ExpiredFiles(
      String table,
      FileIO io,
      TableMetadata before,
      TableMetadata after,
      Collection<String> paths) {
    this.table = table;
    this.io = io;
    this.before = before;
    this.retained =
        after.snapshots().stream().map(Snapshot::snapshotId).collect(Collectors.toSet());
    this.paths = new HashSet<>(paths);
  }

  /**
   * Deletes the files: in bulk when the FileIO can, else on {@code threads} threads. A file that
   * cannot be deleted is logged and not counted.
   *
   * @return the number of files deleted per kind
   */
  Map<Kind, Long> delete(Integer threads) {
    Map<String, Kind> kinds = classify();
    Map<Kind, AtomicLong> counts = new EnumMap<>(Kind.class);
    for (Kind kind : Kind.values()) {
      counts.put(kind, new AtomicLong());
    }
    if (io instanceof SupportsBulkOperations) {
      if (threads != null) {
        LOG.warn(
            "Ignoring max_concurrent_deletes for {}: its FileIO {} deletes in bulk",
            table,
            io.getClass().getName());
      }
      try {
        ((SupportsBulkOperations) io).deleteFiles(paths);
        paths.forEach(path -> counts.get(kinds.get(path)).incrementAndGet());
      } catch (BulkDeletionFailureException e) {
        LOG.warn(
            "Cannot delete {} expired files of {}; they stay in place",
            e.numberFailedObjects(),
            table,
            e);
        paths.stream()
            .filter(path -> !io.newInputFile(path).exists())
            .forEach(path -> counts.get(kinds.get(path)).incrementAndGet());
      }
    } else {
      deleteInParallel(threads == null ? 1 : threads, kinds, counts);
    }
    Map<Kind, Long> result = new EnumMap<>(Kind.class);
    counts.forEach((kind, count) -> result.put(kind, count.get()));
    LOG.info("Expired snapshots of {}: deleted {}", table, result);
    return result;
  }

  private void deleteInParallel(
      int threads, Map<String, Kind> kinds, Map<Kind, AtomicLong> counts) {
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            runnable -> {
              Thread thread = new Thread(runnable, "floe-expire-snapshots");
              thread.setDaemon(true);
              return thread;
            });
    try {
      List<Future<?>> deletes =
          paths.stream()
              .map(path -> pool.submit(() -> deleteOne(path, kinds.get(path), counts)))
              .collect(Collectors.toList());
      for (Future<?> delete : deletes) {
        delete.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while deleting expired files of " + table, e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("Cannot delete expired files of " + table, e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  private void deleteOne(String path, Kind kind, Map<Kind, AtomicLong> counts) {
    try {
      io.deleteFile(path);
      counts.get(kind).incrementAndGet();
    } catch (RuntimeException e) {
      LOG.warn("Cannot delete expired file {} of {}; it stays in place", path, table, e);
    }
  }

  private Map<String, Kind> classify() {
    Map<String, Kind> kinds = new HashMap<>();
    before.statisticsFiles().forEach(file -> kinds.put(file.path(), Kind.STATISTICS));
    before.partitionStatisticsFiles().forEach(file -> kinds.put(file.path(), Kind.STATISTICS));
    for (Snapshot snapshot : before.snapshots()) {
      if (retained.contains(snapshot.snapshotId())) {
        continue;
      }
      if (snapshot.manifestListLocation() != null) {
        kinds.put(snapshot.manifestListLocation(), Kind.MANIFEST_LIST);
      }
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        if (kinds.putIfAbsent(manifest.path(), Kind.MANIFEST) == null
            && paths.contains(manifest.path())) {
          classifyContent(manifest, kinds);
        }
      }
    }
    for (String path : paths) {
      if (kinds.putIfAbsent(path, Kind.DATA) == null) {
        LOG.warn(
            "Expired file {} of {} is in no expired manifest; counted as a data file", path, table);
      }
    }
    return kinds;
  }

  private void classifyContent(ManifestFile manifest, Map<String, Kind> kinds) {
    if (manifest.content() == ManifestContent.DATA) {
      try (CloseableIterable<String> files =
          ManifestFiles.readPaths(manifest, io, before.specsById())) {
        files.forEach(path -> kinds.putIfAbsent(path, Kind.DATA));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    } else {
      try (CloseableIterable<DeleteFile> files =
          ManifestFiles.readDeleteManifest(manifest, io, before.specsById())) {
        for (ContentFile<?> file : files) {
          kinds.putIfAbsent(
              file.location(),
              file.content() == FileContent.EQUALITY_DELETES
                  ? Kind.EQUALITY_DELETES
                  : Kind.POSITION_DELETES);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
