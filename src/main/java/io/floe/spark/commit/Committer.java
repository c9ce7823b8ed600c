package io.floe.spark.commit;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.ReplacePartitions;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotAncestryValidator;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CleanableFailure;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.util.DataFileSet;
import org.apache.iceberg.util.DeleteFileSet;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a write's data files as exactly one snapshot whose summary records the commit id, and
 * never twice.
 *
 * <p>The id is looked for in the target branch's ancestry (since the write's starting snapshot, or
 * all of it for a caller-chosen id) before the commit and again inside Iceberg's commit retry loop,
 * against the refreshed table, on every attempt: two attempts racing with the same id produce one
 * snapshot. A commit whose id is found adds nothing and reports itself skipped.
 *
 * <p>The snapshot summary carries the request's snapshot properties, then the commit id, which no
 * property can replace. An overwrite or dynamic overwrite with an isolation level is validated by
 * Iceberg against the commits after the validated snapshot (serializable: conflicting data and
 * deletes; snapshot: conflicting deletes); a conflict fails with a {@link ValidationException}
 * that names the level and the snapshot, and nothing is committed.
 *
 * <p>Failures: a failure the catalog reports as certain (a {@link CleanableFailure}, or any failure
 * of a catalog that does not require strict cleanup, as Iceberg itself decides) is rethrown. When
 * the outcome is unknown, the table is refreshed and searched for the id: found means committed;
 * not found ends in {@link CommitStateUnknownError}. Once a commit has succeeded nothing is thrown.
 */
public final class Committer {
  /** The snapshot summary key that records a Floe write's commit id. */
  public static final String COMMIT_ID_KEY = "floe.commit-id";
  /** The snapshot summary key of a staged write's write-audit-publish id (Iceberg's). */
  public static final String WAP_ID_KEY = "wap.id";

  private static final Logger LOG = LoggerFactory.getLogger(Committer.class);

  private final Table table;
  private final String tableName;
  private final CommitStats stats;

  /**
   * @param table a live table (or a transaction's table) to commit to
   * @param tableName the name used in messages
   */
  public Committer(Table table, String tableName) {
    this(table, tableName, new CommitStats());
  }

  /**
   * @param table a live table (or a transaction's table) to commit to
   * @param tableName the name used in messages
   * @param stats where skips, attempts and commit time are counted
   */
  public Committer(Table table, String tableName, CommitStats stats) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.stats = Objects.requireNonNull(stats, "stats is null");
  }

  /**
   * Commits the request, or recognises that its commit id is already in the table.
   *
   * @throws CommitStateUnknownError when the outcome cannot be known; the files must stay in place
   * @throws RuntimeException a certain failure (validation, conflict after retries, I/O before the
   *     catalog was asked): nothing was committed
   */
  public CommitOutcome commit(CommitRequest request) {
    Objects.requireNonNull(request, "request is null");
    return timed(request, null);
  }

  /**
   * Commits an append whose data files the caller already wrote into a manifest, as {@link
   * #commit(CommitRequest)} does (the same id check before and inside every attempt, the same
   * summary), but adds {@code manifest} as it is instead of writing one inside Iceberg's commit.
   * The manifest must carry no snapshot id, so that the snapshot's is inherited and the manifest is
   * never rewritten (format v2 or later, or snapshot id inheritance enabled), and must list exactly
   * the request's data files; the request's summary properties must carry what Iceberg cannot
   * count from a manifest ({@code added-files-size}, {@code changed-partition-count}).
   *
   * <p>Iceberg never deletes an appended manifest: when the commit is skipped or fails with a
   * certain failure, deleting it is the caller's job; when the outcome is unknown it must stay.
   *
   * @throws IllegalArgumentException when the request is not an append
   * @throws CommitStateUnknownError when the outcome cannot be known; the files must stay in place
   */
  public CommitOutcome commitManifest(CommitRequest request, ManifestFile manifest) {
    Objects.requireNonNull(request, "request is null");
    Objects.requireNonNull(manifest, "manifest is null");
    if (request.mode() != WriteMode.APPEND || request.wapId() != null) {
      throw new IllegalArgumentException(
          "Cannot commit a manifest to " + tableName + ": write mode " + request.mode()
              + " is not an unstaged append");
    }
    return timed(request, manifest);
  }

  private CommitOutcome timed(CommitRequest request, ManifestFile manifest) {
    long start = System.nanoTime();
    try {
      return commitOnce(request, manifest);
    } finally {
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      stats.recordDuration(millis);
      LOG.info("Commit {} to {} took {} ms", request.commitId(), tableName, millis);
    }
  }

  /**
   * Commits the request together with a schema change, in one table commit: the table's schema
   * becomes {@code schema} (the table's, merged by name with a write's new columns and widened
   * types, as planned) in the same metadata commit that adds the snapshot. With no change to make
   * this is {@link #commit(CommitRequest)}.
   *
   * @throws org.apache.iceberg.exceptions.ValidationException when the table's schema changed since
   *     the write was planned, so that {@code schema} no longer follows from it; nothing is committed
   * @throws CommitStateUnknownError when the outcome cannot be known; the files must stay in place
   */
  public CommitOutcome commit(CommitRequest request, org.apache.iceberg.Schema schema) {
    Objects.requireNonNull(request, "request is null");
    Objects.requireNonNull(schema, "schema is null");
    if (table.schema().sameSchema(schema)) {
      return commit(request);
    }
    Snapshot earlier = findCommit(request);
    if (earlier != null) {
      // that run committed the schema change with its snapshot
      return skipped(request, earlier, 0, true);
    }
    org.apache.iceberg.Transaction transaction = table.newTransaction();
    transaction.updateSchema().unionByNameWith(schema).commit();
    if (!transaction.table().schema().sameSchema(schema)) {
      throw new ValidationException(
          "Cannot commit %s to %s: the table's schema changed since the write was planned (now %s);"
              + " run the write again",
          request.commitId(), tableName, table.schema().asStruct());
    }
    CommitOutcome staged = new Committer(transaction.table(), tableName, stats).commit(request);
    if (staged.skipped()) {
      return staged;
    }
    CommitOutcome failed =
        failedCommit(transaction::commitTransaction, request, new AncestryCheck(request, stats));
    if (failed != null) {
      return failed;
    }
    table.refresh();
    Long snapshotId = committedSnapshotId(request);
    LOG.info(
        "Committed {} data files and schema {} to {}{} as snapshot {} with commit id {}",
        request.dataFiles().size(), table.schema().schemaId(), tableName, onBranch(request),
        snapshotId, request.commitId());
    return new CommitOutcome(request.commitId(), snapshotId, false, false, staged.attempts());
  }

  private CommitOutcome commitOnce(CommitRequest request, ManifestFile manifest) {
    // a large commit spends its time writing manifests inside Iceberg: say up front how large
    long records = 0;
    long bytes = 0;
    for (DataFile file : request.dataFiles()) {
      records += file.recordCount();
      bytes += file.fileSizeInBytes();
    }
    LOG.info(
        "Committing {} data files ({} records, {} bytes) to {}{} as {} with commit id {}",
        request.dataFiles().size(), records, bytes, tableName, onBranch(request), request.mode(),
        request.commitId());
    Snapshot earlier = findCommit(request);
    if (earlier != null) {
      // no attempt of this run has reached the catalog yet, so the snapshot is another run's
      return skipped(request, earlier, 0, true);
    }

    AncestryCheck check = new AncestryCheck(request, stats);
    SnapshotUpdate<?> update = manifest == null ? newUpdate(request) : manifestAppend(manifest);
    request.snapshotProperties().forEach(update::set);
    update.set(COMMIT_ID_KEY, request.commitId());
    update.validateWith(check);
    if (request.branch() != null) {
      update.toBranch(request.branch());
    }
    if (request.wapId() != null) {
      update.set(WAP_ID_KEY, request.wapId());
      update.stageOnly();
    }

    CommitOutcome failed = failedCommit(update::commit, request, check);
    if (failed != null) {
      return failed;
    }

    Long snapshotId = committedSnapshotId(request);
    LOG.info(
        "Committed {} data files to {}{} as snapshot {} with commit id {} after {} attempt(s)",
        request.dataFiles().size(), tableName, onBranch(request), snapshotId, request.commitId(),
        check.attempts());
    return new CommitOutcome(request.commitId(), snapshotId, false, false, check.attempts());
  }

  /**
   * Runs the step that asks the catalog to commit: null when it succeeded, else what its failure
   * means (a certain failure is rethrown; an unknown outcome is settled by looking for the id).
   */
  private CommitOutcome failedCommit(Runnable step, CommitRequest request, AncestryCheck check) {
    try {
      step.run();
      return null;
    } catch (ValidationException e) {
      return afterValidationFailure(request, check, e);
    } catch (CommitStateUnknownException e) {
      return recoverUnknownState(request, check, e);
    } catch (RuntimeException e) {
      if (isCertainFailure(e)) {
        throw e;
      }
      return recoverUnknownState(request, check, e);
    }
  }

  /**
   * Iceberg runs an update's own validations (conflict checks of overwrites) before the ancestry
   * check, so a run that committed the same id meanwhile may surface as a conflict: look again.
   * Any other validation failure is rethrown unchanged.
   */
  private CommitOutcome afterValidationFailure(
      CommitRequest request, AncestryCheck check, ValidationException failure) {
    Snapshot found = check.found();
    if (found == null) {
      try {
        table.refresh();
        found = findCommit(request);
      } catch (RuntimeException refreshFailure) {
        failure.addSuppressed(refreshFailure);
      }
      if (found == null) {
        if (request.isolationLevel() != null) {
          throw new ValidationException(
              failure,
              "Cannot commit %s to %s: isolation-level %s found a conflicting commit after"
                  + " snapshot %s: %s",
              request.commitId(), tableName, request.isolationLevel().name().toLowerCase(Locale.ROOT),
              validateFrom(request), failure.getMessage());
        }
        throw failure;
      }
    }
    // earlier attempts of this commit failed with a certain conflict, so the id is another run's
    return skipped(request, found, check.attempts(), true);
  }

  private CommitOutcome recoverUnknownState(
      CommitRequest request, AncestryCheck check, RuntimeException cause) {
    Snapshot found = null;
    try {
      table.refresh();
      found = findCommit(request);
    } catch (RuntimeException refreshFailure) {
      cause.addSuppressed(refreshFailure);
    }
    if (found == null) {
      throw new CommitStateUnknownError(tableName, request.commitId(), cause);
    }
    if (Boolean.FALSE.equals(holdsFilesOf(found, request))) {
      // another run committed the id first; this run's files are kept all the same, because
      // nothing about its own commit is certain
      return skipped(request, found, check.attempts(), false);
    }
    LOG.info(
        "Commit {} to {} reported an unknown state ({}), but snapshot {} carries its id: committed",
        request.commitId(), tableName, cause.getClass().getSimpleName(), found.snapshotId());
    return new CommitOutcome(
        request.commitId(), found.snapshotId(), false, false, check.attempts());
  }

  private CommitOutcome skipped(
      CommitRequest request, Snapshot found, int attempts, boolean writtenFilesUnused) {
    stats.recordSkip();
    LOG.info(
        "Skipped commit to {}{}: snapshot {} already carries commit id {}; nothing was added{}",
        tableName, onBranch(request), found.snapshotId(), request.commitId(),
        writtenFilesUnused ? "" : " and this run's data files are kept");
    return new CommitOutcome(
        request.commitId(), found.snapshotId(), true, writtenFilesUnused, attempts);
  }

  /**
   * Whether the snapshot added any of the request's files, telling this run's own commit from
   * another run's with the same id: true, false, or null when its manifests cannot be read.
   */
  private Boolean holdsFilesOf(Snapshot snapshot, CommitRequest request) {
    Set<String> written = new HashSet<>();
    for (DataFile file : request.dataFiles()) {
      written.add(file.location());
    }
    for (DeleteFile file : request.changes().addedDeleteFiles()) {
      written.add(file.location());
    }
    if (written.isEmpty()) {
      return false;
    }
    try {
      SnapshotChanges changes = SnapshotChanges.builderFor(table).snapshot(snapshot).build();
      for (DataFile added : changes.addedDataFiles()) {
        if (written.contains(added.location())) {
          return true;
        }
      }
      for (DeleteFile added : changes.addedDeleteFiles()) {
        if (written.contains(added.location())) {
          return true;
        }
      }
      return false;
    } catch (RuntimeException e) {
      LOG.warn(
          "Cannot read the files of snapshot {} of {}; keeping the files of commit {}",
          snapshot.snapshotId(), tableName, request.commitId(), e);
      return null;
    }
  }

  private boolean isCertainFailure(RuntimeException failure) {
    if (failure instanceof CleanableFailure) {
      return true;
    }
    return !(table instanceof HasTableOperations)
        || !((HasTableOperations) table).operations().requireStrictCleanup();
  }

  /**
   * Finds the new snapshot in the table state Iceberg loaded after committing; a failure to read
   * the table after a successful commit is not a failure of the commit.
   */
  private Long committedSnapshotId(CommitRequest request) {
    try {
      Snapshot committed = findCommit(request);
      return committed == null ? null : committed.snapshotId();
    } catch (RuntimeException e) {
      LOG.warn(
          "Committed {} to {}, but could not read the table again to find the snapshot",
          request.commitId(), tableName, e);
      return null;
    }
  }

  /**
   * A fast append of a manifest written by the caller. Its commit runs on this thread only: with
   * Iceberg's shared worker pool, the thread that commits polls the pool every 10 ms for work
   * that, for one manifest that needs no reading, takes a fraction of that.
   */
  private SnapshotUpdate<?> manifestAppend(ManifestFile manifest) {
    return table.newFastAppend()
        .appendManifest(manifest)
        .scanManifestsWith(new CallingThreadExecutor());
  }

  private SnapshotUpdate<?> newUpdate(CommitRequest request) {
    switch (request.mode()) {
      case APPEND:
        {
          // a stream epoch appends as the official runtime's sink does: a fast append, which
          // writes one new manifest and rewrites no existing one, keeping the epoch's commit short
          var append = StreamEpoch.of(request) != null ? table.newFastAppend() : table.newAppend();
          request.dataFiles().forEach(append::appendFile);
          return append;
        }
      case OVERWRITE_BY_FILTER:
        {
          OverwriteFiles overwrite = table.newOverwrite();
          overwrite.overwriteByRowFilter(request.overwriteFilter());
          request.dataFiles().forEach(overwrite::addFile);
          validateFromSnapshot(request, overwrite::validateFromSnapshot);
          // the row filter is also the conflict detection filter (Iceberg's default for it)
          validateIsolation(
              request,
              overwrite::validateNoConflictingData,
              overwrite::validateNoConflictingDeletes);
          return overwrite;
        }
      case REPLACE_PARTITIONS:
        {
          ReplacePartitions replace = table.newReplacePartitions();
          request.dataFiles().forEach(replace::addFile);
          validateFromSnapshot(request, replace::validateFromSnapshot);
          validateIsolation(
              request, replace::validateNoConflictingData, replace::validateNoConflictingDeletes);
          return replace;
        }
      case COPY_ON_WRITE:
        {
          FileChanges changes = request.changes();
          OverwriteFiles overwrite = table.newOverwrite();
          changes.removedDataFiles().forEach(overwrite::deleteFile);
          if (!changes.removedDeleteFiles().isEmpty()) {
            overwrite.deleteFiles(DataFileSet.of(List.of()), DeleteFileSet.of(changes.removedDeleteFiles()));
          }
          request.dataFiles().forEach(overwrite::addFile);
          validateFromSnapshot(request, overwrite::validateFromSnapshot);
          overwrite.conflictDetectionFilter(changes.conflictFilter());
          validateIsolation(
              request,
              overwrite::validateNoConflictingData,
              overwrite::validateNoConflictingDeletes);
          return overwrite;
        }
      case ROW_DELTA:
        {
          FileChanges changes = request.changes();
          RowDelta delta = table.newRowDelta();
          request.dataFiles().forEach(delta::addRows);
          changes.addedDeleteFiles().forEach(delta::addDeletes);
          changes.removedDeleteFiles().forEach(delta::removeDeletes);
          changes.removedDataFiles().forEach(delta::removeRows);
          validateFromSnapshot(request, delta::validateFromSnapshot);
          delta.conflictDetectionFilter(changes.conflictFilter());
          // the rows the deletes point at must still be live, whatever the isolation level
          delta.validateDataFilesExist(changes.referencedDataFiles());
          delta.validateDeletedFiles();
          validateIsolation(
              request,
              delta::validateNoConflictingDataFiles,
              delta::validateNoConflictingDeleteFiles);
          return delta;
        }
      case REWRITE:
        {
          FileChanges changes = request.changes();
          RewriteFiles rewrite = table.newRewrite();
          changes.removedDataFiles().forEach(rewrite::deleteFile);
          changes.removedDeleteFiles().forEach(rewrite::deleteFile);
          request.dataFiles().forEach(rewrite::addFile);
          changes.addedDeleteFiles().forEach(rewrite::addFile);
          if (changes.dataSequenceNumber() != null) {
            rewrite.dataSequenceNumber(changes.dataSequenceNumber());
          }
          validateFromSnapshot(request, rewrite::validateFromSnapshot);
          return rewrite;
        }
      case DELETE_FILES:
        {
          DeleteFiles delete = table.newDelete();
          request.changes().removedDataFiles().forEach(delete::deleteFile);
          // a file rewritten or removed meanwhile must fail the delete, not be skipped silently
          delete.validateFilesExist();
          return delete;
        }
      default:
        throw new IllegalArgumentException(
            "Cannot commit to " + tableName + ": unknown write mode " + request.mode());
    }
  }

  /**
   * Validates from the request's snapshot (its validate-from snapshot, else the one it started
   * from); a request with neither validates all history.
   */
  private static void validateFromSnapshot(CommitRequest request, LongConsumer update) {
    Long from = validateFrom(request);
    if (from != null) {
      update.accept(from);
    }
  }

  private static Long validateFrom(CommitRequest request) {
    return request.validateFromSnapshotId() != null
        ? request.validateFromSnapshotId()
        : request.startingSnapshotId();
  }

  /**
   * The request's isolation level as Iceberg validations: serializable fails on conflicting data
   * and deletes, snapshot on conflicting deletes only, none on nothing.
   */
  private static void validateIsolation(
      CommitRequest request, Runnable noConflictingData, Runnable noConflictingDeletes) {
    if (request.isolationLevel() == IsolationLevel.SERIALIZABLE) {
      noConflictingData.run();
      noConflictingDeletes.run();
    } else if (request.isolationLevel() == IsolationLevel.SNAPSHOT) {
      noConflictingDeletes.run();
    }
  }

  /**
   * The snapshot in the target branch's ancestry that carries the request's commit id, or null. A
   * staged snapshot is in no branch's ancestry: for a staged write every snapshot of the table is
   * searched.
   */
  private Snapshot findCommit(CommitRequest request) {
    if (request.wapId() != null) {
      for (Snapshot snapshot : table.snapshots()) {
        if (snapshot.summary() != null
            && request.commitId().equals(snapshot.summary().get(COMMIT_ID_KEY))) {
          return snapshot;
        }
      }
      return null;
    }
    Snapshot head = headOf(request.branch());
    if (head == null) {
      return null;
    }
    return search(SnapshotUtil.ancestorsOf(head.snapshotId(), table::snapshot), request);
  }

  /**
   * The head a commit to the branch builds on, as Iceberg's snapshot producer picks it: a branch
   * that does not exist yet starts from the main branch's head.
   */
  private Snapshot headOf(String branch) {
    if (branch == null || SnapshotRef.MAIN_BRANCH.equals(branch)) {
      return table.currentSnapshot();
    }
    SnapshotRef ref = table.refs().get(branch);
    return ref == null ? table.currentSnapshot() : table.snapshot(ref.snapshotId());
  }

  private static String onBranch(CommitRequest request) {
    return request.branch() == null ? "" : " (branch " + request.branch() + ")";
  }

  /**
   * The first snapshot of the ancestry (newest first) that carries the request's commit id; for an
   * id chosen per write, the search stops at the write's starting snapshot. For a stream epoch
   * ({@link StreamEpoch}) the first snapshot of the same query decides: its epoch, if the same or
   * later, is found; an earlier one ends the search, since epochs commit in order.
   */
  static Snapshot search(Iterable<Snapshot> ancestry, CommitRequest request) {
    StreamEpoch epoch = StreamEpoch.of(request);
    for (Snapshot snapshot : ancestry) {
      if (!request.searchWholeAncestry()
          && request.startingSnapshotId() != null
          && snapshot.snapshotId() == request.startingSnapshotId()) {
        return null;
      }
      if (snapshot.summary() != null
          && request.commitId().equals(snapshot.summary().get(COMMIT_ID_KEY))) {
        return snapshot;
      }
      if (epoch != null) {
        StreamEpoch recorded = StreamEpoch.fromSummary(snapshot.summary());
        if (recorded != null && recorded.queryId().equals(epoch.queryId())) {
          return recorded.epochId() >= epoch.epochId() ? snapshot : null;
        }
      }
    }
    return null;
  }

  /**
   * Runs inside every commit attempt, on the ancestry of the refreshed target branch: fails the
   * attempt (which Iceberg does not retry) when the ancestry already carries the commit id, and
   * remembers the snapshot that does.
   */
  private static final class AncestryCheck implements SnapshotAncestryValidator {
    private final CommitRequest request;
    private final CommitStats stats;
    private volatile Snapshot found;
    private volatile int attempts;

    AncestryCheck(CommitRequest request, CommitStats stats) {
      this.request = request;
      this.stats = stats;
    }

    @Override
    public boolean validate(Iterable<Snapshot> baseSnapshots) {
      attempts += 1;
      stats.recordAttempt();
      if (attempts > 1) {
        // a retry: another writer committed meanwhile, so the manifests are being rewritten
        LOG.info("Commit {}: attempt {} after a concurrent change", request.commitId(), attempts);
      }
      this.found = search(baseSnapshots, request);
      return found == null;
    }

    @Override
    public String errorMessage() {
      Snapshot snapshot = found;
      return "commit id "
          + request.commitId()
          + " is already committed in snapshot "
          + (snapshot == null ? null : snapshot.snapshotId());
    }

    Snapshot found() {
      return found;
    }

    int attempts() {
      return attempts;
    }
  }
}
