package io.floe.spark.rowlevel;

import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.FileChanges;
import io.floe.spark.write.UncommittedFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rescues a format v3 row delta that failed validation only because other operations committed
 * deletion vectors for the same data files meanwhile: each of this operation's vectors is merged
 * with the other operation's live vector of the file into a new vector (written on the driver),
 * which replaces both, and the commit is tried again, validated from the head it was merged with.
 *
 * <p>It gives up (the caller then reports the original conflict) unless every commit after the
 * validated snapshot is one the retry may safely build on: none removes a data file this operation
 * deletes from; none adds a delete file other than a deletion vector; under serializable isolation
 * none adds a data file that may hold rows the operation read (its conflict filter); and, for an
 * UPDATE or MERGE, no other vector deletes a row this operation deleted (the row would have been
 * changed twice). Two DELETEs of the same row are harmless and are merged. A DELETE is also tried
 * again, unmerged, when the other operations only deleted rows of other data files.
 */
final class ConcurrentDeletionVectors {
  private static final Logger LOG = LoggerFactory.getLogger(ConcurrentDeletionVectors.class);

  /**
   * A merged request and the Puffin files written for it.
   *
   * @param request the request to commit instead
   * @param written the locations of the Puffin files written for the merged vectors
   */
  record Resolution(CommitRequest request, List<String> written) {}

  private ConcurrentDeletionVectors() {}

  /**
   * The request with its vectors merged with those committed since it was validated from, or
   * empty when the conflict is not one of concurrent vectors only.
   *
   * @param live the table, refreshed here
   * @param command the operation
   * @param request the request that failed validation
   */
  static Optional<Resolution> resolve(Table live, Command command, CommitRequest request) {
    Long from =
        request.validateFromSnapshotId() != null
            ? request.validateFromSnapshotId()
            : request.startingSnapshotId();
    FileChanges changes = request.changes();
    if (from == null || changes.addedDeleteFiles().isEmpty()) {
      return giveUp(live, "it validates from no snapshot or adds no deletion vector");
    }
    live.refresh();
    Snapshot head =
        request.branch() == null ? live.currentSnapshot() : live.snapshot(request.branch());
    if (head == null || head.snapshotId() == from) {
      return giveUp(live, "nothing was committed after snapshot " + from);
    }
    List<Snapshot> since = new ArrayList<>();
    SnapshotUtil.ancestorsBetween(head.snapshotId(), from, live::snapshot).forEach(since::add);
    if (since.isEmpty() || !Objects.equals(since.get(since.size() - 1).parentId(), from)) {
      return giveUp(live, "the validated snapshot is no longer in the branch's ancestry");
    }

    Map<String, DeleteFile> ours = new LinkedHashMap<>();
    for (DeleteFile dv : changes.addedDeleteFiles()) {
      if (!ContentFileUtil.isDV(dv)) {
        return giveUp(live, "it adds delete files other than deletion vectors");
      }
      ours.put(dv.referencedDataFile(), dv);
    }
    Map<String, DeleteFile> ourPrevious = new HashMap<>();
    for (DeleteFile previous : changes.removedDeleteFiles()) {
      String dataFile = ContentFileUtil.referencedDataFileLocation(previous);
      if (dataFile != null) {
        ourPrevious.put(dataFile, previous);
      }
    }
    InclusiveMetricsEvaluator readRows =
        new InclusiveMetricsEvaluator(live.schema(), changes.conflictFilter());
    // the other operations' live vector of each data file this operation deletes from
    Map<String, DeleteFile> theirs = new HashMap<>();
    Set<String> removedSince = new HashSet<>();
    for (int i = since.size() - 1; i >= 0; i -= 1) {
      SnapshotChanges snapshot = SnapshotChanges.builderFor(live).snapshot(since.get(i)).build();
      for (DataFile removed : snapshot.removedDataFiles()) {
        if (ours.containsKey(removed.location())) {
          return giveUp(live, "data file " + removed.location() + " was removed meanwhile");
        }
      }
      if (request.isolationLevel() == IsolationLevel.SERIALIZABLE) {
        for (DataFile added : snapshot.addedDataFiles()) {
          if (readRows.eval(added)) {
            return giveUp(live, "data file " + added.location() + " may hold rows it read");
          }
        }
      }
      for (DeleteFile removed : snapshot.removedDeleteFiles()) {
        removedSince.add(dvKey(removed));
        String dataFile = ContentFileUtil.referencedDataFileLocation(removed);
        DeleteFile current = dataFile == null ? null : theirs.get(dataFile);
        if (current != null && dvKey(current).equals(dvKey(removed))) {
          theirs.remove(dataFile);
        }
      }
      for (DeleteFile added : snapshot.addedDeleteFiles()) {
        if (!ContentFileUtil.isDV(added)) {
          return giveUp(live, "delete file " + added.location() + " is not a deletion vector");
        }
        if (ours.containsKey(added.referencedDataFile())) {
          theirs.put(added.referencedDataFile(), added);
        }
      }
    }
    if (theirs.isEmpty()) {
      if (command != Command.DELETE) {
        return giveUp(live, "no other vector of its data files was committed");
      }
      // other data files' rows were deleted: a DELETE's outcome does not depend on them
      LOG.info(
          "Vectors of other data files of {} were committed up to snapshot {}; committing again",
          live.name(), head.snapshotId());
      return Optional.of(
          new Resolution(retry(request, request.changes(), head.snapshotId()), List.of()));
    }
    return merge(live, command, request, ours, ourPrevious, theirs, removedSince, head);
  }

  private static Optional<Resolution> merge(
      Table live,
      Command command,
      CommitRequest request,
      Map<String, DeleteFile> ours,
      Map<String, DeleteFile> ourPrevious,
      Map<String, DeleteFile> theirs,
      Set<String> removedSince,
      Snapshot head) {
    DeleteLoader loader = new BaseDeleteLoader(file -> live.io().newInputFile(file));
    OutputFileFactory files =
        OutputFileFactory.builderFor(live, 0, 0)
            .format(FileFormat.PUFFIN)
            .operationId("merged-" + UUID.randomUUID())
            .suffix("deletes")
            .build();
    List<String> written = new ArrayList<>();
    BaseDVFileWriter writer =
        new BaseDVFileWriter(
            () -> {
              var file = files.newOutputFile().encryptingOutputFile();
              written.add(file.location());
              return file;
            },
            path -> null);
    List<DeleteFile> removed = new ArrayList<>(request.changes().removedDeleteFiles());
    for (Map.Entry<String, DeleteFile> entry : theirs.entrySet()) {
      String dataFile = entry.getKey();
      DeleteFile mine = ours.get(dataFile);
      PositionDeleteIndex minePositions = loader.loadPositionDeletes(List.of(mine), dataFile);
      PositionDeleteIndex theirPositions =
          loader.loadPositionDeletes(List.of(entry.getValue()), dataFile);
      DeleteFile previous = ourPrevious.get(dataFile);
      PositionDeleteIndex previousPositions =
          previous == null ? null : loader.loadPositionDeletes(List.of(previous), dataFile);
      if (command != Command.DELETE
          && changedTwice(minePositions, theirPositions, previousPositions)) {
        LOG.info(
            "Cannot merge the deletion vectors of {} for {}: both operations changed one row",
            dataFile, live.name());
        deleteQuietly(live, written);
        return Optional.empty();
      }
      PartitionSpec spec = live.specs().get(mine.specId());
      writer.delete(dataFile, minePositions, spec, mine.partition());
      writer.delete(dataFile, theirPositions, spec, mine.partition());
      if (previous != null && removedSince.contains(dvKey(previous))) {
        // the other operation replaced the vector this one started from
        removed.removeIf(file -> dvKey(file).equals(dvKey(previous)));
      }
      removed.add(entry.getValue());
    }
    DeleteWriteResult result;
    try {
      writer.close();
      result = writer.result();
    } catch (IOException | RuntimeException e) {
      deleteQuietly(live, written);
      if (e instanceof IOException io) {
        throw new UncheckedIOException("Cannot write merged deletion vectors of " + live.name(), io);
      }
      throw (RuntimeException) e;
    }

    List<DeleteFile> added = new ArrayList<>(result.deleteFiles());
    for (Map.Entry<String, DeleteFile> entry : ours.entrySet()) {
      if (!theirs.containsKey(entry.getKey())) {
        added.add(entry.getValue());
      }
    }
    FileChanges changes = request.changes();
    FileChanges merged =
        new FileChanges(
            changes.removedDataFiles(),
            added,
            removed,
            changes.referencedDataFiles(),
            changes.conflictFilter(),
            changes.dataSequenceNumber());
    CommitRequest retry = retry(request, merged, head.snapshotId());
    LOG.info(
        "Merged {} deletion vectors of {} with those committed concurrently up to snapshot {};"
            + " committing again",
        theirs.size(), live.name(), head.snapshotId());
    return Optional.of(new Resolution(retry, written));
  }

  /** The request with other changes, validated from another snapshot. */
  private static CommitRequest retry(CommitRequest request, FileChanges changes, long from) {
    return new CommitRequest(
        request.mode(),
        request.dataFiles(),
        request.overwriteFilter(),
        request.commitId(),
        request.searchWholeAncestry(),
        request.startingSnapshotId(),
        request.branch(),
        request.wapId(),
        request.snapshotProperties(),
        request.isolationLevel(),
        from,
        changes);
  }

  private static Optional<Resolution> giveUp(Table live, String why) {
    LOG.info("Cannot merge concurrent deletion vectors of {}: {}", live.name(), why);
    return Optional.empty();
  }

  /**
   * Whether a row this operation deleted was also deleted by the other operation (positions that
   * neither vector's common starting vector held).
   */
  private static boolean changedTwice(
      PositionDeleteIndex mine, PositionDeleteIndex theirs, PositionDeleteIndex previous) {
    AtomicBoolean both = new AtomicBoolean(false);
    mine.forEach(
        position -> {
          if (theirs.isDeleted(position) && (previous == null || !previous.isDeleted(position))) {
            both.set(true);
          }
        });
    return both.get();
  }

  /** A deletion vector's identity: vectors of one Puffin file differ by their offset. */
  private static String dvKey(DeleteFile file) {
    return file.location() + "@" + file.contentOffset();
  }

  static void deleteQuietly(Table table, Iterable<String> locations) {
    UncommittedFiles.deleteLocationsQuietly(table.io(), locations);
  }
}
