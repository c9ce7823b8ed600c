package io.floe.spark.streaming;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.read.ChangelogRangePlanner;
import io.floe.spark.read.ChangelogScan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.SupportsAdmissionControl;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.apache.spark.sql.internal.SQLConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream source over a table's changelog ({@code <table>.changes}): each micro-batch reads the
 * changes of whole snapshots of the current ancestry, oldest first, planned on the driver exactly
 * as a batch read of the changelog plans them ({@link ChangelogRangePlanner}) and read by the scan's
 * reader factory. Every operation is read, deletes and overwrites (merge-on-read or copy-on-write)
 * included; compactions change no rows and pass.
 *
 * <p>Offsets are {@link SnapshotOffset}s, one step per snapshot: position 0 stands before the
 * snapshot (the stream's first offset, from {@link StreamSnapshots#startingOffset}, as for a table
 * stream: the oldest snapshot, the one after {@code start-snapshot-id} (exclusive), or the first
 * committed at or after {@code stream-from-timestamp}), position 1 after it. The other options of
 * a batch range ({@code end-snapshot-id}, {@code start-timestamp}, {@code end-timestamp}) fail the
 * stream ({@link StreamingReadSettings#resolve}).
 * The first offset is kept in the checkpoint ({@link InitialOffsets}). Rate limits ({@code
 * max-files-per-micro-batch}, {@code max-rows-per-micro-batch}) count a snapshot's changed files
 * and rows from its summary and end a micro-batch before the snapshot that would pass them; a
 * micro-batch always takes at least one snapshot. {@code Trigger.AvailableNow} reads up to the
 * snapshot current when the query started. In a stream, {@code _change_ordinal} numbers the
 * snapshots of each micro-batch from 0; {@code _commit_snapshot_id} names the snapshot.
 */
public final class ChangelogMicroBatchStream
    implements MicroBatchStream, SupportsAdmissionControl, SupportsTriggerAvailableNow {
  private static final Logger LOG = LoggerFactory.getLogger(ChangelogMicroBatchStream.class);
  private static final long BEFORE = 0;
  private static final long AFTER = 1;

  private final StreamTable table;
  private final ChangelogScan scan;
  private final ChangelogRangePlanner planner;
  private final StreamingReadSettings settings;
  private final String checkpointLocation;
  private SnapshotOffset initial;

  /**
   * @param loader loads the table, once; the stream refreshes it to find new snapshots
   * @param scan the changelog scan Spark built for the stream
   * @param planner plans a range of snapshots as the scan plans its batch
   * @param options the read options the caller gave
   * @param checkpointLocation the source's folder in the query's checkpoint
   */
  public ChangelogMicroBatchStream(
      TableLoader loader,
      ChangelogScan scan,
      ChangelogRangePlanner planner,
      Map<String, String> options,
      String checkpointLocation) {
    Objects.requireNonNull(loader, "loader is null");
    this.scan = Objects.requireNonNull(scan, "scan is null");
    this.planner = Objects.requireNonNull(planner, "planner is null");
    this.checkpointLocation = Objects.requireNonNull(checkpointLocation, "checkpointLocation is null");
    this.settings = StreamingReadSettings.resolve(scan.name(), options, SQLConf.get());
    this.table = new StreamTable(loader.load(), scan.name(), settings);
  }

  @Override
  public Offset initialOffset() {
    if (initial == null) {
      initial = table.initialOffset(checkpointLocation);
    }
    return initial;
  }

  @Override
  public Offset deserializeOffset(String json) {
    return table.checked(SnapshotOffset.fromJson(json));
  }

  @Override
  public ReadLimit getDefaultReadLimit() {
    return settings.readLimit();
  }

  @Override
  public Offset latestOffset() {
    throw new UnsupportedOperationException(
        "Cannot read " + scan.name() + " as a stream: Spark must ask for the latest offset with a read limit");
  }

  /**
   * The end of the next micro-batch: after as many whole snapshots as the limit allows from {@code
   * startOffset} (at least one), or null when there is no new snapshot.
   */
  @Override
  public Offset latestOffset(Offset startOffset, ReadLimit limit) {
    table.refreshWhenDue();
    SnapshotOffset begin = table.begin((SnapshotOffset) startOffset);
    Snapshot head = table.head();
    if (begin.isStart() || head == null) {
      return null;
    }
    BatchLimits limits = BatchLimits.of(limit);
    long files = 0;
    long rows = 0;
    boolean taken = false;
    Snapshot last = null;
    for (Snapshot snapshot : unread(begin, head)) {
      if (!DataOperations.REPLACE.equals(snapshot.operation())) {
        long snapshotFiles =
            count(snapshot, SnapshotSummary.ADDED_FILES_PROP)
                + count(snapshot, SnapshotSummary.DELETED_FILES_PROP)
                + count(snapshot, SnapshotSummary.ADDED_DELETE_FILES_PROP);
        long snapshotRows =
            count(snapshot, SnapshotSummary.ADDED_RECORDS_PROP)
                + count(snapshot, SnapshotSummary.DELETED_RECORDS_PROP)
                + count(snapshot, SnapshotSummary.ADDED_POS_DELETES_PROP);
        if (taken && (files + snapshotFiles > limits.maxFiles() || rows + snapshotRows > limits.maxRows())) {
          break;
        }
        files += snapshotFiles;
        rows += snapshotRows;
        taken = true;
      }
      last = snapshot;
    }
    return last == null ? null : new SnapshotOffset(last.snapshotId(), AFTER, false, begin.tableUuid());
  }

  @Override
  public InputPartition[] planInputPartitions(Offset startOffset, Offset endOffset) {
    SnapshotOffset begin = table.begin((SnapshotOffset) startOffset);
    SnapshotOffset end = table.checked((SnapshotOffset) endOffset);
    if (begin.isStart() || end.isStart()) {
      return new InputPartition[0];
    }
    Long startExclusive;
    if (begin.position() == BEFORE) {
      Long parent = table.snapshot(begin.snapshotId()).parentId();
      // a parent that expired is no longer an ancestor to stop at: the range starts at the oldest
      startExclusive = parent != null && table.table().snapshot(parent) != null ? parent : null;
    } else {
      startExclusive = begin.snapshotId();
    }
    table.snapshot(end.snapshotId());
    InputPartition[] partitions = planner.plan(table.table(), startExclusive, end.snapshotId());
    LOG.info(
        "Micro-batch of {} after snapshot {} up to {}: {} input partitions",
        scan.name(), startExclusive, end.snapshotId(), partitions.length);
    return partitions;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return scan.readerFactory();
  }

  @Override
  public void prepareForTriggerAvailableNow() {
    table.prepareForTriggerAvailableNow();
  }

  @Override
  public void commit(Offset end) {}

  @Override
  public void stop() {}

  /** The snapshots after the offset up to {@code head}, oldest first. */
  private List<Snapshot> unread(SnapshotOffset begin, Snapshot head) {
    List<Snapshot> snapshots = new ArrayList<>();
    Snapshot first = table.snapshot(begin.snapshotId());
    if (begin.position() == BEFORE) {
      snapshots.add(first);
    }
    if (first.snapshotId() != head.snapshotId()) {
      snapshots.addAll(StreamSnapshots.after(table.table(), first.snapshotId(), head));
    }
    return snapshots;
  }

  private static long count(Snapshot snapshot, String key) {
    String value = snapshot.summary() == null ? null : snapshot.summary().get(key);
    return value == null ? 0 : Long.parseLong(value);
  }

  @Override
  public String toString() {
    return "ChangelogMicroBatchStream{table=" + scan.name() + ", settings=" + settings + "}";
  }
}
