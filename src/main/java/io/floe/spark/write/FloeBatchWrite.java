package io.floe.spark.write;

import io.floe.spark.commit.CommitOutcome;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.CommitStateUnknownError;
import io.floe.spark.commit.CommitStats;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.WriteMode;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of a write: hands executors a writer factory, then commits every task's data
 * files in one snapshot carrying the write's commit id. A commit whose id another run already
 * committed adds nothing and removes the files this run wrote. {@link #abort} deletes the written
 * files only when the failure is certain: never after a commit whose outcome is unknown, and never
 * once the commit has succeeded.
 */
public final class FloeBatchWrite implements BatchWrite, Serializable {
  private static final Logger LOG = LoggerFactory.getLogger(FloeBatchWrite.class);

  private final WriteContext context;
  private final CommitStats commitStats;
  // set once the files may be referenced by the table (committed, or outcome unknown)
  private final AtomicBoolean keepFiles = new AtomicBoolean(false);

  /**
   * @param context what the write was planned from
   * @param commitStats where the commit's skips, attempts, time and files are counted
   */
  public FloeBatchWrite(WriteContext context, CommitStats commitStats) {
    this.context = Objects.requireNonNull(context, "context is null");
    this.commitStats = Objects.requireNonNull(commitStats, "commitStats is null");
  }

  public WriteContext context() {
    return context;
  }

  /** Where this write's commit is counted (driver-side state, not part of equality). */
  public CommitStats commitStats() {
    return commitStats;
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return new FloeDataWriterFactory(context.writerSettings(), context.commitId());
  }

  @Override
  public boolean useCommitCoordinator() {
    return false;
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    List<DataFile> files = FloeCommitMessage.dataFilesOf(messages);
    commitStats.recordWritten(
        files.size(), files.stream().mapToLong(DataFile::fileSizeInBytes).sum());
    if (files.isEmpty() && context.mode() != WriteMode.OVERWRITE_BY_FILTER) {
      LOG.info("Nothing to commit to {}: the write produced no data files", context.tableName());
      return;
    }
    CommitRequest request =
        new CommitRequest(
            context.mode(),
            files,
            context.overwriteFilter(),
            context.commitId(),
            context.callerChosenCommitId(),
            context.startingSnapshotId(),
            context.options().branch(),
            context.options().wapId(),
            context.options().snapshotProperties(),
            context.options().isolationLevel(),
            context.options().validateFromSnapshotId());
    CommitOutcome outcome;
    try {
      Table live = context.loader().load();
      Committer committer = new Committer(live, context.tableName(), commitStats);
      outcome =
          context.options().mergeSchema()
              ? committer.commit(request, context.schema())
              : committer.commit(request);
    } catch (CommitStateUnknownError | Error e) {
      // an Error may strike after the catalog accepted the commit: nothing about it is certain
      keepFiles.set(true);
      throw e;
    }
    if (outcome.writtenFilesUnused()) {
      UncommittedFiles.deleteQuietly(context.table().io(), files);
    } else {
      keepFiles.set(true);
    }
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    if (keepFiles.get()) {
      LOG.warn(
          "Not deleting the files of write {} to {}: its commit succeeded or its outcome is unknown",
          context.commitId(), context.tableName());
      return;
    }
    UncommittedFiles.deleteQuietly(context.table().io(), FloeCommitMessage.dataFilesOf(messages));
  }



  @Override
  public boolean equals(Object other) {
    return this == other
        || (other instanceof FloeBatchWrite && context.equals(((FloeBatchWrite) other).context));
  }

  @Override
  public int hashCode() {
    return context.hashCode();
  }

  @Override
  public String toString() {
    return "FloeBatchWrite{" + context + "}";
  }
}
