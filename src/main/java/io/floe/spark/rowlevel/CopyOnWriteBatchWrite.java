package io.floe.spark.rowlevel;

import io.floe.spark.commit.CommitOutcome;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.CommitStateUnknownError;
import io.floe.spark.commit.CommitStats;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.FileChanges;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.write.FloeBatchWrite;
import io.floe.spark.write.FloeCommitMessage;
import io.floe.spark.write.FloeDataWriterFactory;
import io.floe.spark.write.UncommittedFiles;
import io.floe.spark.write.WriteContext;
import io.floe.spark.write.exec.RowLineageSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.MergeSummary;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.connector.write.WriteSummary;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of a copy-on-write DELETE, UPDATE or MERGE: executors write the rows that stay
 * (copied and changed) with Floe's data writers; the commit is one OverwriteFiles that removes the
 * files the scan read, with their deletion vectors and file-scoped position deletes, and adds the
 * new files. It is validated from the scan's snapshot with the scan's condition as the
 * conflict-detection filter, under the operation's isolation level, and carries {@code
 * floe.commit-id}. A MERGE's counts from Spark ({@link MergeSummary}) go into the snapshot summary
 * under the official runtime's keys, {@code spark.merge-into.num-target-rows-*}.
 *
 * <p>Failures: a conflict fails with a message naming the table, the isolation level, the scan's
 * snapshot and the snapshots committed since; the written files are then deleted. They are kept
 * when the commit's outcome is unknown or once it succeeded.
 */
final class CopyOnWriteBatchWrite implements BatchWrite {
  private static final Logger LOG = LoggerFactory.getLogger(CopyOnWriteBatchWrite.class);

  private final WriteContext context;
  private final Command command;
  private final CopyOnWriteScan scan;
  private final IsolationLevel isolationLevel;
  private final CommitStats commitStats;
  private final RowLineageSource lineage;
  private final AtomicBoolean keepFiles = new AtomicBoolean(false);

  /**
   * @param scan the operation's scan, or null when Spark read nothing (the condition is false)
   * @param lineage where the row lineage of a format v3 table comes from, or null for v2
   */
  CopyOnWriteBatchWrite(
      WriteContext context,
      Command command,
      CopyOnWriteScan scan,
      IsolationLevel isolationLevel,
      CommitStats commitStats,
      RowLineageSource lineage) {
    this.lineage = lineage;
    this.context = Objects.requireNonNull(context, "context is null");
    this.command = Objects.requireNonNull(command, "command is null");
    this.scan = scan;
    this.isolationLevel = Objects.requireNonNull(isolationLevel, "isolationLevel is null");
    this.commitStats = Objects.requireNonNull(commitStats, "commitStats is null");
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    if (lineage == null) {
      return new FloeBatchWrite(context, commitStats).createBatchWriterFactory(info);
    }
    return new FloeDataWriterFactory(
        context.writerSettings().withLineage(lineage), context.commitId());
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
    if (scan != null) {
      scan.releasePlan();
    }
    List<DataFile> added = FloeCommitMessage.dataFilesOf(messages);
    commitStats.recordWritten(
        added.size(), added.stream().mapToLong(DataFile::fileSizeInBytes).sum());
    List<DataFile> removed = scan == null ? List.of() : scan.readFiles();
    List<DeleteFile> removedDeletes = scan == null ? List.of() : scan.fileScopedDeletes();
    if (added.isEmpty() && removed.isEmpty()) {
      LOG.info(
          "Nothing to commit for {} on {}: no file held a row it changes, and it wrote none",
          command, context.tableName());
      return;
    }
    Long scanSnapshotId = scan == null ? null : scan.snapshotId();
    Map<String, String> properties = new HashMap<>(context.options().snapshotProperties());
    if (summary instanceof MergeSummary merge) {
      properties.putAll(MergeSummaryProperties.of(merge));
    }
    CommitRequest request =
        new CommitRequest(
            WriteMode.COPY_ON_WRITE,
            added,
            null,
            context.commitId(),
            context.callerChosenCommitId(),
            context.startingSnapshotId(),
            context.options().branch(),
            context.options().wapId(),
            properties,
            // a scan that read nothing depends on no table state (Spark proved the condition false)
            scan == null ? null : isolationLevel,
            scanSnapshotId,
            new FileChanges(
                removed, List.of(), removedDeletes, List.of(),
                scan == null ? null : scan.filter(), null));
    Table live = context.loader().load();
    CommitOutcome outcome;
    try {
      outcome = new Committer(live, context.tableName(), commitStats).commit(request);
    } catch (CommitStateUnknownError | Error e) {
      keepFiles.set(true);
      throw e;
    } catch (ValidationException e) {
      throw conflict(live, scanSnapshotId, e);
    }
    if (outcome.writtenFilesUnused()) {
      UncommittedFiles.deleteQuietly(context.table().io(), added);
    } else {
      keepFiles.set(true);
    }
    LOG.info(
        "Copy-on-write {} on {}{}: removed {} data files and {} delete files, added {} data files"
            + " ({} records); read snapshot {}, isolation {}, snapshot {}{}",
        command, context.tableName(),
        context.options().branch() == null ? "" : " (branch " + context.options().branch() + ")",
        removed.size(), removedDeletes.size(), added.size(),
        added.stream().mapToLong(DataFile::recordCount).sum(), scanSnapshotId,
        RowLevelIsolation.name(isolationLevel), outcome.snapshotId(),
        outcome.skipped() ? " (already committed by an earlier run; nothing added)" : "");
  }

  /**
   * The conflict as the user should read it: the table, the isolation level, the snapshot the
   * operation read and the snapshots committed on its branch since, with Iceberg's reason.
   */
  private ValidationException conflict(Table live, Long scanSnapshotId, ValidationException e) {
    List<String> since = new ArrayList<>();
    try {
      live.refresh();
      String branch = context.options().branch();
      SnapshotRef ref = branch == null ? null : live.refs().get(branch);
      Snapshot snapshot = ref == null ? live.currentSnapshot() : live.snapshot(ref.snapshotId());
      while (snapshot != null
          && (scanSnapshotId == null || snapshot.snapshotId() != scanSnapshotId)) {
        since.add(0, snapshot.snapshotId() + " (" + snapshot.operation() + ")");
        snapshot = snapshot.parentId() == null ? null : live.snapshot(snapshot.parentId());
      }
    } catch (RuntimeException refreshFailure) {
      e.addSuppressed(refreshFailure);
    }
    return new ValidationException(
        e,
        "Cannot commit %s on %s: isolation level %s found a conflicting commit after snapshot %s"
            + " (conflicting snapshots committed since: %s): %s",
        command, context.tableName(), RowLevelIsolation.name(isolationLevel), scanSnapshotId,
        since.isEmpty() ? "unknown" : String.join(", ", since), e.getMessage());
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    if (scan != null) {
      scan.releasePlan();
    }
    if (keepFiles.get()) {
      LOG.warn(
          "Not deleting the files of {} {} on {}: its commit succeeded or its outcome is unknown",
          command, context.commitId(), context.tableName());
      return;
    }
    UncommittedFiles.deleteQuietly(context.table().io(), FloeCommitMessage.dataFilesOf(messages));
  }



  @Override
  public String toString() {
    return "CopyOnWriteBatchWrite{" + command + ", " + context + ", isolation="
        + RowLevelIsolation.name(isolationLevel) + "}";
  }
}
