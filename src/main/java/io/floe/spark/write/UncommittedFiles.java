package io.floe.spark.write;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes files a write produced that no snapshot references, for every driver-side write (batch,
 * row-level, streaming). Callers decide that the files are certainly unreferenced; this only
 * deletes them. A failed delete is logged and skipped: the commit's own outcome, not the cleanup,
 * is what the user must see, and an orphan left behind is what remove_orphan_files is for.
 */
public final class UncommittedFiles {
  private static final Logger LOG = LoggerFactory.getLogger(UncommittedFiles.class);

  private UncommittedFiles() {}

  /** Deletes each distinct location of the files (deletion vectors of one task share a file). */
  public static void deleteQuietly(FileIO io, Collection<? extends ContentFile<?>> files) {
    Set<String> locations = new LinkedHashSet<>();
    for (ContentFile<?> file : files) {
      locations.add(file.location());
    }
    deleteLocationsQuietly(io, locations);
  }

  /** Deletes each of the locations, logging and skipping the ones that cannot be deleted. */
  public static void deleteLocationsQuietly(FileIO io, Iterable<String> locations) {
    for (String location : locations) {
      try {
        io.deleteFile(location);
      } catch (RuntimeException e) {
        LOG.warn("Could not delete uncommitted file {}", location, e);
      }
    }
  }
}
