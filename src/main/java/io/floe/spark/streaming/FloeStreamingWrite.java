package io.floe.spark.streaming;

import io.floe.spark.commit.CommitOutcome;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.CommitStateUnknownError;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.StreamEpoch;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.write.FloeCommitMessage;
import io.floe.spark.write.UncommittedFiles;
import io.floe.spark.write.WriteContext;
import io.floe.spark.write.WriteOptions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream sink on the driver: commits each epoch's data files as one snapshot through the {@link
 * Committer}, exactly once. The snapshot's summary records the query and epoch ({@link
 * StreamEpoch}: the official runtime's keys, and {@code floe.commit-id} derived from them).
 *
 * <p>An epoch already in the target branch (committed before a crash that came between the table
 * commit and Spark's checkpoint commit, or by the official runtime on the same checkpoint) is found
 * before the commit and again inside every commit attempt; it adds nothing and the files this run
 * wrote for it are deleted. The search ends at the query's previous epoch, so it reads only the
 * snapshots committed since then (the whole ancestry once, for a query's first commit).
 *
 * <p>Append mode appends the files; an epoch that wrote nothing commits nothing. Complete mode
 * replaces every row of the table (of the branch) with the epoch's rows, in one overwrite snapshot,
 * also when the epoch is empty. Neither validates against concurrent commits: a commit never fails
 * because another writer appended meanwhile (Iceberg retries it on the new head).
 *
 * <p>An append writes the epoch's manifest itself, on the driver ({@link EpochManifest}), and
 * commits it as it is, where that gives the snapshot a plain append would; a skipped epoch and a
 * commit that certainly failed delete that manifest, an unknown outcome keeps it.
 *
 * <p>{@link #abort} deletes an epoch's files unless that epoch's commit succeeded or its outcome is
 * unknown.
 */
public final class FloeStreamingWrite implements StreamingWrite {
  private static final Logger LOG = LoggerFactory.getLogger(FloeStreamingWrite.class);

  private final WriteContext context;
  private final String queryId;
  // epochs whose files the table may reference (committed, or outcome unknown)
  private final Set<Long> keptEpochs = ConcurrentHashMap.newKeySet();

  /**
   * @param context what the write was planned from; {@link WriteMode#APPEND} or, for complete
   *     mode, {@link WriteMode#OVERWRITE_BY_FILTER} of every row
   * @param queryId the streaming query's id
   * @throws IllegalArgumentException for a write mode or option a stream cannot use
   */
  public FloeStreamingWrite(WriteContext context, String queryId) {
    this.context = Objects.requireNonNull(context, "context is null");
    this.queryId = Objects.requireNonNull(queryId, "queryId is null");
    boolean complete =
        context.mode() == WriteMode.OVERWRITE_BY_FILTER
            && context.overwriteFilter().op() == Expressions.alwaysTrue().op();
    if (context.mode() != WriteMode.APPEND && !complete) {
      throw new IllegalArgumentException(
          "Cannot write a stream to " + context.tableName() + ": write mode " + context.mode()
              + " is not append or complete");
    }
    if (context.callerChosenCommitId()) {
      throw new IllegalArgumentException(
          "Cannot write a stream to " + context.tableName() + ": option '" + WriteOptions.COMMIT_ID
              + "' is for batch writes; each epoch's commit id is derived from the query and epoch");
    }
    if (context.options().wapId() != null) {
      throw new IllegalArgumentException(
          "Cannot write a stream to " + context.tableName() + ": a stream's epochs cannot be"
              + " staged for write-audit-publish (spark.wap.id); write to a branch instead");
    }
  }

  public WriteContext context() {
    return context;
  }

  public String queryId() {
    return queryId;
  }

  @Override
  public StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo info) {
    return new FloeStreamingWriterFactory(context.writerSettings());
  }

  @Override
  public boolean useCommitCoordinator() {
    return false;
  }

  @Override
  public void commit(long epochId, WriterCommitMessage[] messages) {
    StreamEpoch epoch = new StreamEpoch(queryId, epochId);
    List<DataFile> files = FloeCommitMessage.dataFilesOf(messages);
    if (files.isEmpty() && context.mode() == WriteMode.APPEND) {
      LOG.info(
          "Nothing to commit to {} for epoch {} of query {}: no data files",
          context.tableName(), epochId, queryId);
      return;
    }
    // a failure before the commit leaves the table out of SinkTables: the next epoch loads it again
    Table table = liveTable();
    ManifestFile manifest = null;
    Map<String, String> properties = new HashMap<>(context.options().snapshotProperties());
    if (context.mode() == WriteMode.APPEND && EpochManifest.canWrite(table, files)) {
      manifest = EpochManifest.write(table, files);
      properties.putAll(EpochManifest.summaryProperties(files));
    }
    properties.putAll(epoch.summaryProperties());
    CommitRequest request =
        new CommitRequest(
            context.mode(),
            files,
            context.overwriteFilter(),
            epoch.commitId(),
            true,
            null,
            context.options().branch(),
            null,
            properties,
            null,
            null);
    CommitOutcome outcome;
    try {
      Committer committer = new Committer(table, context.tableName());
      outcome =
          manifest == null ? committer.commit(request) : committer.commitManifest(request, manifest);
    } catch (CommitStateUnknownError | Error e) {
      // the table may reference the manifest and its files: keep them all
      keptEpochs.add(epochId);
      throw e;
    } catch (RuntimeException e) {
      // certainly not committed: the manifest is this method's to delete, the data files abort's
      deleteManifest(table, manifest, e);
      throw e;
    }
    if (outcome.writtenFilesUnused()) {
      LOG.info(
          "Epoch {} of query {} is already in {} (snapshot {}): deleting the {} files of its replay",
          epochId, queryId, context.tableName(), outcome.snapshotId(), files.size());
      UncommittedFiles.deleteQuietly(context.table().io(), files);
      deleteManifest(table, manifest, null);
    } else {
      keptEpochs.add(epochId);
    }
    SinkTables.keep(queryId, context.loader(), table);
  }

  /** Deletes an uncommitted epoch manifest; a failure to delete is logged (or added to failure). */
  private void deleteManifest(Table table, ManifestFile manifest, RuntimeException failure) {
    if (manifest == null) {
      return;
    }
    try {
      table.io().deleteFile(manifest.path());
    } catch (RuntimeException e) {
      if (failure != null) {
        failure.addSuppressed(e);
      } else {
        LOG.warn(
            "Cannot delete the uncommitted manifest {} of {}",
            manifest.path(), context.tableName(), e);
      }
    }
  }

  /**
   * The live table to commit an epoch to: loaded through the catalog for the query's first epoch
   * (and after a failed one), then the same table ({@link SinkTables}) refreshed. A refresh reads the catalog's current state just as a load does (the
   * Committer's epoch search and Iceberg's commit attempts see every commit made meanwhile), but
   * re-reads the metadata only when another writer changed it: after this sink's own commit,
   * Iceberg already holds the new state, with the head snapshot's manifest list read, which the
   * next fast append builds on. A load per epoch parsed the whole table metadata and the head's
   * manifest list again, a cost that grows with every epoch's snapshot and manifest.
   */
  private Table liveTable() {
    Table table = SinkTables.take(queryId, context.loader());
    if (table == null) {
      return context.loader().load();
    }
    table.refresh();
    return table;
  }

  @Override
  public void abort(long epochId, WriterCommitMessage[] messages) {
    if (keptEpochs.contains(epochId)) {
      LOG.warn(
          "Not deleting the files of epoch {} of query {} to {}: its commit succeeded or its"
              + " outcome is unknown",
          epochId, queryId, context.tableName());
      return;
    }
    UncommittedFiles.deleteQuietly(context.table().io(), FloeCommitMessage.dataFilesOf(messages));
  }

  @Override
  public String toString() {
    return "FloeStreamingWrite{table=" + context.tableName() + ", mode=" + context.mode()
        + ", query=" + queryId + ", branch=" + context.options().branch() + "}";
  }
}
