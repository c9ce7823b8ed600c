package io.floe.spark.rowlevel;

import io.floe.spark.commit.CommitOutcome;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.CommitStateUnknownError;
import io.floe.spark.commit.CommitStats;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.FileChanges;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.write.UncommittedFiles;
import io.floe.spark.write.exec.DeltaTaskResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.util.DeleteFileSet;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;
import org.apache.spark.sql.connector.write.MergeSummary;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteSummary;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of a merge-on-read write: hands executors a {@link FloeDeltaWriterFactory},
 * then commits every task's data files and delete files in one row delta carrying the operation's
 * commit id ({@link WriteMode#ROW_DELTA}): validated from the scan's snapshot with the scan's
 * filter under the isolation level, the data files the deletes point at must still be live, and the
 * deletion vectors the new ones merged are removed.
 *
 * <p>A commit whose id another run already committed adds nothing and deletes the files this run
 * wrote. {@link #abort} deletes the written files only when the failure is certain: never after a
 * commit whose outcome is unknown, and never once the commit has succeeded.
 *
 * <p>For a MERGE, Spark's merge metrics go to the snapshot summary under the official runtime's
 * keys ({@code spark.merge-into.num-target-rows-*}).
 */
public final class FloeDeltaBatchWrite implements DeltaBatchWrite {
  private static final Logger LOG = LoggerFactory.getLogger(FloeDeltaBatchWrite.class);
  private static final int MAX_VECTOR_MERGES = 3;

  private final DeltaContext context;
  private final CommitStats commitStats;
  // set once the files may be referenced by the table (committed, or outcome unknown)
  private final AtomicBoolean keepFiles = new AtomicBoolean(false);

  public FloeDeltaBatchWrite(DeltaContext context, CommitStats commitStats) {
    this.context = Objects.requireNonNull(context, "context is null");
    this.commitStats = Objects.requireNonNull(commitStats, "commitStats is null");
  }

  public DeltaContext context() {
    return context;
  }

  @Override
  public DeltaWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return new FloeDeltaWriterFactory(context.writerSettings(), context.commitId());
  }

  @Override
  public boolean useCommitCoordinator() {
    return false;
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    commit(messages, null);
  }

  @Override
  public void commit(WriterCommitMessage[] messages, WriteSummary summary) {
    List<DeltaTaskResult> results = results(messages);
    List<DataFile> dataFiles = new ArrayList<>();
    List<DeleteFile> deleteFiles = new ArrayList<>();
    DeleteFileSet rewritten = DeleteFileSet.create();
    Set<String> referenced = new LinkedHashSet<>();
    for (DeltaTaskResult result : results) {
      dataFiles.addAll(result.dataFiles());
      deleteFiles.addAll(result.deleteFiles());
      rewritten.addAll(result.rewrittenDeleteFiles());
      referenced.addAll(result.referencedDataFiles());
    }
    List<ContentFile<?>> written = written(results);
    Map<String, Long> sizes = sizesByLocation(written);
    commitStats.recordWritten(
        sizes.size(), sizes.values().stream().mapToLong(Long::longValue).sum());
    if (dataFiles.isEmpty() && deleteFiles.isEmpty()) {
      LOG.info(
          "Nothing to commit to {}: the {} changed no row", context.tableName(), context.command());
      return;
    }

    Map<String, String> properties = new HashMap<>(context.options().snapshotProperties());
    if (summary instanceof MergeSummary merge) {
      properties.putAll(MergeSummaryProperties.of(merge));
    }
    FileChanges changes =
        new FileChanges(
            List.of(),
            deleteFiles,
            new ArrayList<>(rewritten),
            new ArrayList<>(referenced),
            context.conflictFilter(),
            null);
    CommitRequest request =
        new CommitRequest(
            WriteMode.ROW_DELTA,
            dataFiles,
            null,
            context.commitId(),
            context.callerChosenCommitId(),
            context.startingSnapshotId(),
            context.options().branch(),
            context.options().wapId(),
            properties,
            context.isolationLevel(),
            context.validateFromSnapshotId(),
            changes);
    LOG.info(
        "Committing {} on {}: {} data files, {} delete files, {} replaced delete files,"
            + " validated from snapshot {} with filter {} under {} isolation",
        context.command(), context.tableName(), dataFiles.size(), deleteFiles.size(),
        rewritten.size(), context.validateFromSnapshotId(), context.conflictFilter(),
        context.isolationLevel());
    Table live = context.loader().load();
    CommitOutcome outcome;
    List<String> merged = new ArrayList<>();
    CommitRequest[] committed = {request};
    try {
      outcome = commitMergingVectors(live, committed, merged);
    } catch (CommitStateUnknownError | Error e) {
      // an Error may strike after the catalog accepted the commit: nothing about it is certain
      keepFiles.set(true);
      throw e;
    } catch (RuntimeException e) {
      // certain: the vectors merged for a retry are referenced by nothing; abort removes the rest
      ConcurrentDeletionVectors.deleteQuietly(live, merged);
      throw e;
    }
    if (outcome.writtenFilesUnused()) {
      UncommittedFiles.deleteQuietly(context.table().io(), written);
      ConcurrentDeletionVectors.deleteQuietly(live, merged);
    } else {
      keepFiles.set(true);
      // Puffin files whose every vector a merged one replaced are referenced by nothing
      Set<String> unused = new LinkedHashSet<>(merged);
      deleteFiles.forEach(file -> unused.add(file.location()));
      committed[0].changes().addedDeleteFiles().forEach(file -> unused.remove(file.location()));
      ConcurrentDeletionVectors.deleteQuietly(live, unused);
    }
  }

  /**
   * Commits the request; on a format v3 table whose validation failed because other operations
   * committed deletion vectors for the same data files, merges the vectors and commits again (a
   * few times at most), as {@link ConcurrentDeletionVectors} decides it may.
   */
  private CommitOutcome commitMergingVectors(
      Table live, CommitRequest[] committed, List<String> merged) {
    CommitRequest request = committed[0];
    for (int attempt = 1; ; attempt += 1) {
      try {
        return new Committer(live, context.tableName(), commitStats).commit(request);
      } catch (ValidationException e) {
        if (!context.writerSettings().deletionVectors() || attempt > MAX_VECTOR_MERGES) {
          throw e;
        }
        Optional<ConcurrentDeletionVectors.Resolution> resolution;
        try {
          resolution = ConcurrentDeletionVectors.resolve(live, context.command(), request);
        } catch (RuntimeException mergeFailure) {
          e.addSuppressed(mergeFailure);
          throw e;
        }
        if (resolution.isEmpty()) {
          throw e;
        }
        merged.addAll(resolution.get().written());
        request = resolution.get().request();
        committed[0] = request;
      }
    }
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    if (keepFiles.get()) {
      LOG.warn(
          "Not deleting the files of {} {} on {}: its commit succeeded or its outcome is unknown",
          context.command(), context.commitId(), context.tableName());
      return;
    }
    UncommittedFiles.deleteQuietly(context.table().io(), written(results(messages)));
  }

  private static Map<String, Long> sizesByLocation(List<ContentFile<?>> files) {
    Map<String, Long> sizes = new LinkedHashMap<>();
    for (ContentFile<?> file : files) {
      sizes.put(file.location(), file.fileSizeInBytes());
    }
    return sizes;
  }

  private static List<ContentFile<?>> written(List<DeltaTaskResult> results) {
    List<ContentFile<?>> files = new ArrayList<>();
    for (DeltaTaskResult result : results) {
      files.addAll(result.dataFiles());
      files.addAll(result.deleteFiles());
    }
    return files;
  }

  private static List<DeltaTaskResult> results(WriterCommitMessage[] messages) {
    List<DeltaTaskResult> results = new ArrayList<>();
    if (messages != null) {
      for (WriterCommitMessage message : messages) {
        if (message instanceof DeltaTaskResult result) {
          results.add(result);
        }
      }
    }
    return results;
  }

  @Override
  public boolean equals(Object other) {
    return this == other
        || (other instanceof FloeDeltaBatchWrite that && context.equals(that.context));
  }

  @Override
  public int hashCode() {
    return context.hashCode();
  }

  @Override
  public String toString() {
    return "FloeDeltaBatchWrite{" + context + "}";
  }
}
