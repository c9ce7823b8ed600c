package io.floe.spark.commit;

import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.ReplacePartitions;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotAncestryValidator;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a write's data files as exactly one snapshot whose summary records the commit id, and
 * never twice.
 *
 * <p>The check for an earlier snapshot with the same id runs inside Iceberg's commit retry loop,
 * against the refreshed table, on every attempt: two attempts racing with the same id produce one
 * snapshot. When the catalog cannot say whether a commit landed, the table is refreshed and searched
 * for the id; the written files are never deleted in that case.
 */
public final class Committer {
  /** The snapshot summary key that records a Floe write's commit id. */
  public static final String COMMIT_ID_KEY = "floe.commit-id";

  private static final Logger LOG = LoggerFactory.getLogger(Committer.class);

  private final Table table;
  private final String tableName;

  /**
   * @param table a live table (or a transaction's table) to commit to
   * @param tableName the name used in messages
   */
  public Committer(Table table, String tableName) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
  }

  /**
   * Commits the request, or recognises that its commit id is already in the table.
   *
   * @throws CommitStateUnknownError when the outcome cannot be known; the files stay in place
   * @throws RuntimeException any certain failure (validation, conflict after retries, I/O)
   */
  public CommitOutcome commit(CommitRequest request) {
    Objects.requireNonNull(request, "request is null");
    String commitId = request.commitId();
    Long found = findCommit(request);
    if (found != null) {
      return skipped(request, found, 0);
    }

    AncestryCheck check = new AncestryCheck(request);
    SnapshotUpdate<?> update = newUpdate(request);
    update.set(COMMIT_ID_KEY, commitId);
    update.validateWith(check);
    if (request.branch() != null) {
      update.toBranch(request.branch());
    }

    try {
      update.commit();
    } catch (ValidationException e) {
      if (check.foundSnapshotId() != null) {
        return skipped(request, check.foundSnapshotId(), check.attempts());
      }
      throw e;
    } catch (CommitStateUnknownException e) {
      return recoverUnknownState(request, check, e);
    }

    Long snapshotId = latestOnBranch(request.branch());
    LOG.info(
        "Committed {} data files to {} as snapshot {} with commit id {} after {} attempt(s)",
        request.dataFiles().size(), tableName, snapshotId, commitId, check.attempts());
    return new CommitOutcome(commitId, snapshotId, false, check.attempts());
  }

  private CommitOutcome recoverUnknownState(
      CommitRequest request, AncestryCheck check, CommitStateUnknownException cause) {
    try {
      table.refresh();
      Long found = findCommit(request);
      if (found != null) {
        LOG.info(
            "Commit {} to {} reported an unknown state, but snapshot {} carries its id: committed",
            request.commitId(), tableName, found);
        return new CommitOutcome(request.commitId(), found, false, check.attempts());
      }
    } catch (RuntimeException refreshFailure) {
      cause.addSuppressed(refreshFailure);
    }
    throw new CommitStateUnknownError(tableName, request.commitId(), cause);
  }

  private CommitOutcome skipped(CommitRequest request, long snapshotId, int attempts) {
    LOG.info(
        "Skipped commit to {}: snapshot {} already carries commit id {}",
        tableName, snapshotId, request.commitId());
    return new CommitOutcome(request.commitId(), snapshotId, true, attempts);
  }

  private SnapshotUpdate<?> newUpdate(CommitRequest request) {
    switch (request.mode()) {
      case APPEND:
        {
          var append = table.newAppend();
          request.dataFiles().forEach(append::appendFile);
          return append;
        }
      case OVERWRITE_BY_FILTER:
        {
          OverwriteFiles overwrite = table.newOverwrite();
          overwrite.overwriteByRowFilter(request.overwriteFilter());
          request.dataFiles().forEach(overwrite::addFile);
          if (request.startingSnapshotId() != null) {
            overwrite.validateFromSnapshot(request.startingSnapshotId());
          }
          return overwrite;
        }
      case REPLACE_PARTITIONS:
        {
          ReplacePartitions replace = table.newReplacePartitions();
          request.dataFiles().forEach(replace::addFile);
          if (request.startingSnapshotId() != null) {
            replace.validateFromSnapshot(request.startingSnapshotId());
          }
          return replace;
        }
      default:
        throw new IllegalArgumentException("Cannot commit: unknown write mode " + request.mode());
    }
  }

  /** The id of the snapshot that carries the request's commit id, or null when none does. */
  private Long findCommit(CommitRequest request) {
    Snapshot head = headOf(request.branch());
    if (head == null) {
      return null;
    }
    return search(SnapshotUtil.ancestorsOf(head.snapshotId(), table::snapshot), request);
  }

  private Snapshot headOf(String branch) {
    return branch == null ? table.currentSnapshot() : table.snapshot(branch);
  }

  private Long latestOnBranch(String branch) {
    table.refresh();
    Snapshot head = headOf(branch);
    return head == null ? null : head.snapshotId();
  }

  static Long search(Iterable<Snapshot> ancestry, CommitRequest request) {
    for (Snapshot snapshot : ancestry) {
      if (!request.searchWholeAncestry()
          && request.startingSnapshotId() != null
          && snapshot.snapshotId() == request.startingSnapshotId()) {
        return null;
      }
      if (snapshot.summary() != null
          && request.commitId().equals(snapshot.summary().get(COMMIT_ID_KEY))) {
        return snapshot.snapshotId();
      }
    }
    return null;
  }

  /**
   * Runs inside every commit attempt, after Iceberg refreshed the table: fails the attempt (so it
   * is not retried) when the ancestry already carries the commit id, and remembers where.
   */
  private static final class AncestryCheck implements SnapshotAncestryValidator {
    private final CommitRequest request;
    private volatile Long foundSnapshotId;
    private volatile int attempts;

    AncestryCheck(CommitRequest request) {
      this.request = request;
    }

    @Override
    public boolean validate(Iterable<Snapshot> baseSnapshots) {
      attempts += 1;
      this.foundSnapshotId = search(baseSnapshots, request);
      return foundSnapshotId == null;
    }

    @Override
    public String errorMessage() {
      return "commit id " + request.commitId() + " is already committed in snapshot " + foundSnapshotId;
    }

    Long foundSnapshotId() {
      return foundSnapshotId;
    }

    int attempts() {
      return Math.max(attempts, 1);
    }
  }
}
