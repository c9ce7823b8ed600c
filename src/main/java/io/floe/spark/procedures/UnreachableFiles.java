package io.floe.spark.procedures;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

/**
 * The files a snapshot expiration left unreachable, each with its kind: what the snapshots, branches
 * and tags before the expiration reached and the table's metadata after it no longer reaches.
 *
 * <p>This is the official runtime's rule (every file no retained snapshot references is freed at
 * once), not Iceberg core's incremental cleanup (a data file is freed only once the snapshot that
 * removed it has expired). Only files the metadata before the expiration reached are candidates,
 * so a file a concurrent writer added is never one; and the metadata after is the table's latest,
 * so a file any snapshot committed since still references is kept. Data and delete files are
 * compared by path over live manifest entries, so a deletion-vector file shared by a retained
 * snapshot is kept.
 */
final class UnreachableFiles {
  private final FileIO io;
  private final TableMetadata before;
  private final TableMetadata after;

  /**
   * @param before the metadata before the expiration
   * @param after the table's metadata after it, refreshed after the commit
   */
  UnreachableFiles(FileIO io, TableMetadata before, TableMetadata after) {
    this.io = io;
    this.before = before;
    this.after = after;
  }

  /** Finds the unreachable files; reads retained manifests only when a content file may be freed. */
  Map<String, ExpiredFiles.Kind> find() {
    Set<Long> retainedIds = new HashSet<>();
    after.snapshots().forEach(snapshot -> retainedIds.add(snapshot.snapshotId()));
    Map<String, ExpiredFiles.Kind> unreachable = new HashMap<>();

    Map<String, ManifestFile> expiredManifests = new HashMap<>();
    for (Snapshot snapshot : before.snapshots()) {
      if (retainedIds.contains(snapshot.snapshotId())) {
        continue;
      }
      if (snapshot.manifestListLocation() != null) {
        unreachable.put(snapshot.manifestListLocation(), ExpiredFiles.Kind.MANIFEST_LIST);
      }
      snapshot.allManifests(io).forEach(manifest -> expiredManifests.put(manifest.path(), manifest));
    }
    if (unreachable.isEmpty() && expiredManifests.isEmpty()) {
      return unreachable;
    }

    Map<String, ManifestFile> retainedManifests = new HashMap<>();
    for (Snapshot snapshot : after.snapshots()) {
      // a manifest list is never shared, but a retained one must never be deleted
      unreachable.remove(snapshot.manifestListLocation());
      snapshot.allManifests(io).forEach(manifest -> retainedManifests.put(manifest.path(), manifest));
    }
    expiredManifests.keySet().removeAll(retainedManifests.keySet());

    Map<String, ExpiredFiles.Kind> content = new HashMap<>();
    for (ManifestFile manifest : expiredManifests.values()) {
      unreachable.put(manifest.path(), ExpiredFiles.Kind.MANIFEST);
      liveContent(manifest, before.specsById(), content);
    }
    if (!content.isEmpty()) {
      for (ManifestFile manifest : retainedManifests.values()) {
        content.keySet().removeAll(livePaths(manifest, after.specsById()));
        if (content.isEmpty()) {
          break;
        }
      }
    }
    unreachable.putAll(content);

    Set<String> retainedStatistics = statisticsPaths(after);
    for (String path : statisticsPaths(before)) {
      if (!retainedStatistics.contains(path)) {
        unreachable.put(path, ExpiredFiles.Kind.STATISTICS);
      }
    }
    return unreachable;
  }

  private void liveContent(
      ManifestFile manifest,
      Map<Integer, PartitionSpec> specs,
      Map<String, ExpiredFiles.Kind> content) {
    if (manifest.content() == ManifestContent.DATA) {
      livePaths(manifest, specs).forEach(path -> content.put(path, ExpiredFiles.Kind.DATA));
      return;
    }
    try (CloseableIterable<DeleteFile> files =
        ManifestFiles.readDeleteManifest(manifest, io, specs)) {
      for (DeleteFile file : files) {
        content.put(
            file.location(),
            file.content() == FileContent.EQUALITY_DELETES
                ? ExpiredFiles.Kind.EQUALITY_DELETES
                : ExpiredFiles.Kind.POSITION_DELETES);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read delete manifest " + manifest.path(), e);
    }
  }

  /** The locations of a manifest's live entries, data or delete files alike. */
  private Set<String> livePaths(ManifestFile manifest, Map<Integer, PartitionSpec> specs) {
    Set<String> paths = new HashSet<>();
    if (manifest.content() == ManifestContent.DATA) {
      // ManifestFiles.readPaths refuses delete manifests, so those are read as delete files below
      try (CloseableIterable<String> files = ManifestFiles.readPaths(manifest, io, specs)) {
        files.forEach(paths::add);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
    } else {
      try (CloseableIterable<DeleteFile> files =
          ManifestFiles.readDeleteManifest(manifest, io, specs)) {
        files.forEach(file -> paths.add(file.location()));
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read delete manifest " + manifest.path(), e);
      }
    }
    return paths;
  }

  private static Set<String> statisticsPaths(TableMetadata metadata) {
    Set<String> paths = new HashSet<>();
    metadata.statisticsFiles().forEach(file -> paths.add(file.path()));
    metadata.partitionStatisticsFiles().forEach(file -> paths.add(file.path()));
    return paths;
  }
}
