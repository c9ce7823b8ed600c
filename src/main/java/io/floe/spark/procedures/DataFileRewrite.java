package io.floe.spark.procedures;

import io.floe.spark.commit.CommitOutcome;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.CommitStateUnknownError;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.FileChanges;
import io.floe.spark.commit.WriteMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.FileRewritePlan;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of {@code rewrite_data_files}: plans the file groups on the driver with Iceberg core's
 * {@link BinPackRewriteFilePlanner} from the branch head, rewrites each group as a Spark job
 * ({@link FileGroupRewriter}) on up to {@code max-concurrent-file-group-rewrites} threads, and
 * commits the groups through the {@link Committer} as one {@link WriteMode#REWRITE} (Iceberg's
 * {@code RewriteFiles}, validated from the starting snapshot, with {@code floe.commit-id}).
 *
 * <p>Without partial progress, all groups are committed in one snapshot once every group is
 * written; any failing group fails the call and deletes every group's new files. With {@code
 * partial-progress.enabled}, groups are committed in up to {@code partial-progress.max-commits}
 * snapshots as they finish; a failing group is counted in {@code failed_data_files_count}, and
 * failed commits fail the call only beyond {@code partial-progress.max-failed-commits}.
 *
 * <p>Concurrent commits: appends that land meanwhile do not fail the rewrite; a delete file added
 * meanwhile against a rewritten data file does (Iceberg's validation), and then nothing of the
 * rewrite is committed and its files are deleted.
 */
final class DataFileRewrite {
  private static final Logger LOG = LoggerFactory.getLogger(DataFileRewrite.class);

  /** The planned run: the starting snapshot and the groups to rewrite, in job order. */
  record Plan(long startingSnapshotId, List<RewriteFileGroup> groups) {}

  /** The counts the procedure reports. */
  record Outcome(
      int rewrittenDataFiles, int addedDataFiles, long rewrittenBytes, int failedDataFiles,
      int removedDeleteFiles) {}

  private final String procedure;
  private final Table table;
  private final String branch;
  private final RewriteDataFilesOptions options;
  private final FileGroupRewriterFactory rewriters;

  /** Makes the rewriter of a run once its starting snapshot is known. */
  interface FileGroupRewriterFactory {
    FileGroupRewriter create(Table table, long startingSnapshotId);
  }

  DataFileRewrite(
      String procedure,
      Table table,
      String branch,
      RewriteDataFilesOptions options,
      FileGroupRewriterFactory rewriters) {
    this.procedure = Objects.requireNonNull(procedure, "procedure is null");
    this.table = Objects.requireNonNull(table, "table is null");
    this.branch = branch == null ? SnapshotRef.MAIN_BRANCH : branch;
    this.options = Objects.requireNonNull(options, "options is null");
    this.rewriters = Objects.requireNonNull(rewriters, "rewriters is null");
  }

  /**
   * Plans the groups from the branch head, or returns null when the table has no snapshot.
   *
   * @throws IllegalArgumentException when the branch does not exist, or an option is invalid
   */
  Plan plan(Expression filter, boolean caseSensitive) {
    if (table.currentSnapshot() == null) {
      return null;
    }
    if (table.snapshot(branch) == null) {
      throw new IllegalArgumentException(
          "Cannot call " + procedure + ": branch " + branch + " of " + table.name()
              + " does not exist");
    }
    long startingSnapshotId = table.snapshot(branch).snapshotId();
    BinPackRewriteFilePlanner planner;
    try {
      planner = options.newPlanner(table, filter, startingSnapshotId, caseSensitive);
    } catch (IllegalArgumentException e) {
      // Iceberg's planner checks the values of its options when it is made
      throw new IllegalArgumentException(
          "Cannot call " + procedure + ": argument 'options' is invalid: " + e.getMessage(), e);
    }
    FileRewritePlan<RewriteDataFiles.FileGroupInfo, FileScanTask, DataFile, RewriteFileGroup>
        plan = planner.plan();
    List<RewriteFileGroup> groups = new ArrayList<>();
    try (CloseableIterable<RewriteFileGroup> planned = plan.groups()) {
      planned.forEach(groups::add);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan the rewrite of " + table.name(), e);
    }
    return new Plan(startingSnapshotId, groups);
  }

  /** Plans, rewrites and commits. */
  Outcome run(Expression filter, boolean caseSensitive) {
    Plan plan = plan(filter, caseSensitive);
    if (plan == null || plan.groups().isEmpty()) {
      LOG.info("{}: nothing to rewrite in {}", procedure, table.name());
      return new Outcome(0, 0, 0L, 0, 0);
    }
    Outcome outcome;
    if (options.partialProgress()) {
      outcome = runWithPartialProgress(plan);
    } else {
      outcome = commit(plan, rewriteAll(plan));
    }
    if (!options.removeDanglingDeletes()) {
      return outcome;
    }
    int removed = removeDanglingDeletes();
    return new Outcome(
        outcome.rewrittenDataFiles(), outcome.addedDataFiles(), outcome.rewrittenBytes(),
        outcome.failedDataFiles(), outcome.removedDeleteFiles() + removed);
  }

  /**
   * Removes the delete files of the branch head that no longer apply to any live row, in one more
   * {@code replace} snapshot; returns how many.
   */
  int removeDanglingDeletes() {
    table.refresh();
    org.apache.iceberg.Snapshot head = table.snapshot(branch);
    List<DeleteFile> dangling = DanglingDeletes.find(table, head);
    if (dangling.isEmpty()) {
      return 0;
    }
    CommitRequest request =
        new CommitRequest(
            WriteMode.REWRITE,
            List.of(),
            null,
            UUID.randomUUID().toString(),
            false,
            head.snapshotId(),
            SnapshotRef.MAIN_BRANCH.equals(branch) ? null : branch,
            null,
            Map.of(),
            null,
            null,
            new FileChanges(List.of(), List.of(), dangling, List.of(), null, null));
    new Committer(table, table.name()).commit(request);
    LOG.info("{} on {}: removed {} dangling delete files", procedure, table.name(), dangling.size());
    return dangling.size();
  }

  /** A group and the files its job wrote. */
  record RewrittenGroup(RewriteFileGroup group, List<DataFile> added) {}

  /**
   * Rewrites every group; if one fails, deletes the files of those written and rethrows.
   */
  List<RewrittenGroup> rewriteAll(Plan plan) {
    FileGroupRewriter rewriter = rewriters.create(table, plan.startingSnapshotId());
    List<RewrittenGroup> done = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(options.maxConcurrentRewrites());
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < plan.groups().size(); i++) {
        RewriteFileGroup group = plan.groups().get(i);
        int index = i + 1;
        futures.add(
            pool.submit(() -> done.add(rewriteOne(rewriter, group, index, plan.groups().size()))));
      }
      RuntimeException failure = null;
      for (Future<?> future : futures) {
        try {
          future.get();
        } catch (java.util.concurrent.CancellationException e) {
          // a group that never started after another failed
        } catch (ExecutionException e) {
          failure = merge(failure, e.getCause());
          // stop groups that have not started: the call fails anyway
          futures.forEach(f -> f.cancel(false));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          failure = merge(failure, e);
        }
      }
      if (failure != null) {
        pool.shutdown();
        awaitQuietly(pool);
        synchronized (done) {
          done.forEach(group -> rewriter.deleteUncommitted(group.added()));
        }
        throw failure;
      }
      return new ArrayList<>(done);
    } finally {
      pool.shutdownNow();
    }
  }

  private RewrittenGroup rewriteOne(
      FileGroupRewriter rewriter, RewriteFileGroup group, int index, int total) {
    String description =
        String.format(
            "%s on %s: rewriting %d files (%s, file group %d/%d%s)",
            procedure, table.name(), group.rewrittenFiles().size(), options.strategyName(), index,
            total, group.info().partition().size() > 0 ? ", partition " + group.info().partition() : "");
    FileGroupRewriter.Result result = rewriter.rewrite(group, description);
    LOG.info(
        "{} on {}: file group {}/{} done, {} files ({} bytes) rewritten into {} files in {} ms",
        procedure, table.name(), index, total, group.rewrittenFiles().size(),
        group.inputFilesSizeInBytes(), result.files().size(), result.millis());
    return new RewrittenGroup(group, result.files());
  }

  /**
   * Commits the groups in one snapshot; on a certain failure deletes their new files and fails
   * naming the conflict.
   */
  Outcome commit(Plan plan, List<RewrittenGroup> groups) {
    FileGroupRewriter rewriter = rewriters.create(table, plan.startingSnapshotId());
    commitBatch(plan, groups, rewriter);
    return outcome(groups, 0);
  }

  private void commitBatch(Plan plan, List<RewrittenGroup> groups, FileGroupRewriter rewriter) {
    List<DataFile> removed = new ArrayList<>();
    List<DataFile> added = new ArrayList<>();
    List<DeleteFile> danglingDvs = new ArrayList<>();
    for (RewrittenGroup group : groups) {
      removed.addAll(group.group().rewrittenFiles());
      added.addAll(group.added());
      danglingDvs.addAll(group.group().danglingDVs());
    }
    Long sequenceNumber =
        options.useStartingSequenceNumber()
            ? table.snapshot(plan.startingSnapshotId()).sequenceNumber()
            : null;
    CommitRequest request =
        new CommitRequest(
            WriteMode.REWRITE,
            added,
            null,
            UUID.randomUUID().toString(),
            false,
            plan.startingSnapshotId(),
            SnapshotRef.MAIN_BRANCH.equals(branch) ? null : branch,
            null,
            Map.of(),
            null,
            null,
            new FileChanges(removed, List.of(), danglingDvs, List.of(), null, sequenceNumber));
    CommitOutcome outcome;
    try {
      outcome = new Committer(table, table.name()).commit(request);
    } catch (CommitStateUnknownError e) {
      throw e;
    } catch (RuntimeException e) {
      rewriter.deleteUncommitted(added);
      throw new IllegalStateException(
          "Cannot commit the rewrite of " + removed.size() + " data files of " + table.name()
              + ": it conflicts with a concurrent commit (" + e.getMessage() + "); nothing was "
              + "committed and the new files were deleted. Enabling partial-progress.enabled "
              + "commits groups separately, so that one conflict does not fail the others",
          e);
    }
    if (outcome.writtenFilesUnused()) {
      rewriter.deleteUncommitted(added);
    }
    LOG.info(
        "{} on {}: committed {} file groups ({} data files replaced by {}) as snapshot {}",
        procedure, table.name(), groups.size(), removed.size(), added.size(),
        outcome.snapshotId());
  }

  private Outcome runWithPartialProgress(Plan plan) {
    FileGroupRewriter rewriter = rewriters.create(table, plan.startingSnapshotId());
    int total = plan.groups().size();
    int maxCommits = options.maxCommits();
    int perCommit = (total + maxCommits - 1) / maxCommits;
    List<RewrittenGroup> pending = new ArrayList<>();
    List<RewrittenGroup> committed = new ArrayList<>();
    int[] failedFiles = {0};
    int[] failedCommits = {0};
    Object lock = new Object();
    ExecutorService pool = Executors.newFixedThreadPool(options.maxConcurrentRewrites());
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < total; i++) {
        RewriteFileGroup group = plan.groups().get(i);
        int index = i + 1;
        futures.add(
            pool.submit(
                () -> {
                  RewrittenGroup done;
                  try {
                    done = rewriteOne(rewriter, group, index, total);
                  } catch (RuntimeException e) {
                    LOG.error("{} on {}: file group {}/{} failed", procedure, table.name(), index,
                        total, e);
                    synchronized (lock) {
                      failedFiles[0] += group.rewrittenFiles().size();
                    }
                    return;
                  }
                  synchronized (lock) {
                    pending.add(done);
                    if (pending.size() >= perCommit) {
                      commitPartial(plan, pending, committed, failedCommits, rewriter);
                    }
                  }
                }));
      }
      for (Future<?> future : futures) {
        try {
          future.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException("Cannot rewrite " + table.name(), e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("Interrupted while rewriting " + table.name(), e);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    synchronized (lock) {
      if (!pending.isEmpty()) {
        commitPartial(plan, pending, committed, failedCommits, rewriter);
      }
      int maxFailedCommits = options.maxFailedCommits();
      if (failedCommits[0] > maxFailedCommits) {
        throw new IllegalStateException(
            "Cannot call " + procedure + ": partial-progress.enabled is true but "
                + failedCommits[0] + " rewrite commits of " + table.name()
                + " failed, more than partial-progress.max-failed-commits (" + maxFailedCommits
                + "); see the log for why each failed");
      }
      return outcome(committed, failedFiles[0]);
    }
  }

  private void commitPartial(
      Plan plan,
      List<RewrittenGroup> pending,
      List<RewrittenGroup> committed,
      int[] failedCommits,
      FileGroupRewriter rewriter) {
    List<RewrittenGroup> batch = new ArrayList<>(pending);
    pending.clear();
    try {
      commitBatch(plan, batch, rewriter);
      committed.addAll(batch);
    } catch (CommitStateUnknownError e) {
      throw e;
    } catch (RuntimeException e) {
      failedCommits[0] += 1;
      LOG.warn("{} on {}: a partial-progress commit failed", procedure, table.name(), e);
    }
  }

  private static Outcome outcome(List<RewrittenGroup> groups, int failedFiles) {
    int rewritten = 0;
    int added = 0;
    long bytes = 0;
    int removedDeletes = 0;
    for (RewrittenGroup group : groups) {
      rewritten += group.group().rewrittenFiles().size();
      added += group.added().size();
      bytes += group.group().inputFilesSizeInBytes();
      removedDeletes += group.group().danglingDVs().size();
    }
    return new Outcome(rewritten, added, bytes, failedFiles, removedDeletes);
  }

  private static RuntimeException merge(RuntimeException first, Throwable next) {
    if (first != null) {
      first.addSuppressed(next);
      return first;
    }
    if (next instanceof RuntimeException) {
      return (RuntimeException) next;
    }
    if (next instanceof Error) {
      throw (Error) next;
    }
    return new IllegalStateException(next);
  }

  private static void awaitQuietly(ExecutorService pool) {
    try {
      pool.awaitTermination(Long.MAX_VALUE, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
