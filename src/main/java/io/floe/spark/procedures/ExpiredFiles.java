package io.floe.spark.procedures;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files a snapshot expiration left unreachable, deleted and counted by kind, so that {@code
 * expire_snapshots} reports the official runtime's counts per kind.
 *
 * <p>Which files to delete, and their kinds, is {@link UnreachableFiles}' decision, made after the
 * metadata commit; this class only deletes them.
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
  private final Map<String, Kind> kinds;
  private final Set<String> paths;

  /**
   * @param table the table's name, for messages
   * @param kinds the files to delete, each with its kind
   */
  ExpiredFiles(String table, FileIO io, Map<String, Kind> kinds) {
    this.table = table;
    this.io = io;
    this.kinds = kinds;
    this.paths = kinds.keySet();
  }

  /**
   * Deletes the files: in bulk when the FileIO can, else on {@code threads} threads. A file that
   * cannot be deleted is logged and not counted.
   *
   * @return the number of files deleted per kind
   */
  Map<Kind, Long> delete(Integer threads) {
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
}
