package io.floe.spark.streaming;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.plan.IncrementalPlanner;
import io.floe.spark.read.plan.TaskGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
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
 * A stream source over a table's appended snapshots, in commit order: each micro-batch reads the
 * data files appended between two {@link SnapshotOffset}s, planned on the driver into Floe's input
 * partitions and read by the scan's {@link io.floe.spark.read.FloeReaderFactory} (the rows of the
 * stream's schema, the one the table had when the stream started; files are read by field id).
 *
 * <p>A stream with no checkpoint offset yet starts at the oldest snapshot of the current ancestry,
 * after {@code start-snapshot-id} (exclusive) or at {@code stream-from-timestamp}; it refuses the
 * other options of an incremental batch read ({@code end-snapshot-id}, {@code start-timestamp},
 * {@code end-timestamp}).
 *
 * <p>Rate limits ({@link ReadLimit}: files, rows, or both) end a micro-batch inside a snapshot when
 * needed; {@code Trigger.AvailableNow} reads up to the snapshot that was current when the query
 * started. Which snapshots are read is {@link StreamSnapshots}'s rule.
 *
 * <p>The stream's first offset is stored in {@code <checkpoint>/offsets/0} (as the official
 * runtime does), so a restart before the first micro-batch completes starts at the same place.
 * Offsets carry the table's UUID: a checkpoint of another table fails the stream.
 */
public final class FloeMicroBatchStream
    implements MicroBatchStream, SupportsAdmissionControl, SupportsTriggerAvailableNow {
  private static final Logger LOG = LoggerFactory.getLogger(FloeMicroBatchStream.class);

  private final StreamTable stream;
  private final Table table;
  private final FloeScan scan;
  private final StreamingReadSettings settings;
  private final String checkpointLocation;
  private final SnapshotFiles files = new SnapshotFiles();
  private SnapshotOffset initial;

  /**
   * @param loader loads the table, once; the stream refreshes it to find new snapshots
   * @param scan the scan Spark built for the stream
   * @param options the read options the caller gave
   * @param checkpointLocation the source's folder in the query's checkpoint
   */
  public FloeMicroBatchStream(
      TableLoader loader, FloeScan scan, Map<String, String> options, String checkpointLocation) {
    Objects.requireNonNull(loader, "loader is null");
    this.scan = Objects.requireNonNull(scan, "scan is null");
    this.checkpointLocation = Objects.requireNonNull(checkpointLocation, "checkpointLocation is null");
    this.settings = StreamingReadSettings.resolve(scan.tableName(), options, SQLConf.get());
    this.stream = new StreamTable(loader.load(), scan.tableName(), settings);
    this.table = stream.table();
  }

  public StreamingReadSettings settings() {
    return settings;
  }

  @Override
  public Offset initialOffset() {
    if (initial == null) {
      initial = stream.initialOffset(checkpointLocation);
    }
    return initial;
  }

  @Override
  public Offset deserializeOffset(String json) {
    return stream.checked(SnapshotOffset.fromJson(json));
  }

  @Override
  public ReadLimit getDefaultReadLimit() {
    return settings.readLimit();
  }

  @Override
  public Offset latestOffset() {
    throw new UnsupportedOperationException(
        "Cannot read " + scan.tableName() + " as a stream: Spark must ask for the latest offset with a read limit");
  }

  /**
   * The end of the next micro-batch: as far as the limit allows from {@code startOffset}, or null
   * when no new data file is there.
   */
  @Override
  public Offset latestOffset(Offset startOffset, ReadLimit limit) {
    stream.refreshWhenDue();
    SnapshotOffset begin = stream.begin((SnapshotOffset) startOffset);
    Snapshot head = stream.head();
    if (begin.isStart() || head == null) {
      return null;
    }
    BatchLimits limits = BatchLimits.of(limit);
    List<Snapshot> sequence = new ArrayList<>();
    sequence.add(stream.snapshot(begin.snapshotId()));
    if (begin.snapshotId() != head.snapshotId()) {
      sequence.addAll(StreamSnapshots.after(table, begin.snapshotId(), head));
    }
    long takenFiles = 0;
    long takenRows = 0;
    SnapshotOffset end = begin;
    for (int index = 0; index < sequence.size(); index++) {
      Snapshot snapshot = sequence.get(index);
      boolean allFiles = index == 0 && begin.scanAllFiles();
      long from = index == 0 ? begin.position() : 0;
      if (!StreamSnapshots.reads(snapshot, allFiles, settings)) {
        end = new SnapshotOffset(snapshot.snapshotId(), 0, false, begin.tableUuid());
        continue;
      }
      long position = from;
      boolean full = false;
      for (SnapshotFiles.Positioned file : files.of(table, snapshot, allFiles, caseSensitive())) {
        if (file.position() < from) {
          continue;
        }
        if (takenFiles + 1 > limits.maxFiles()) {
          full = true;
          break;
        }
        takenFiles += 1;
        takenRows += file.task().file().recordCount();
        position = file.position() + 1;
        if (takenRows >= limits.maxRows()) {
          full = true;
          break;
        }
      }
      end = new SnapshotOffset(snapshot.snapshotId(), position, allFiles, begin.tableUuid());
      if (full) {
        break;
      }
    }
    return end.equals(begin) ? null : end;
  }

  @Override
  public InputPartition[] planInputPartitions(Offset startOffset, Offset endOffset) {
    SnapshotOffset begin = stream.begin((SnapshotOffset) startOffset);
    SnapshotOffset end = stream.checked((SnapshotOffset) endOffset);
    if (end.isStart() || begin.isStart()) {
      return new InputPartition[0];
    }
    Snapshot last = stream.snapshot(end.snapshotId());
    List<Snapshot> sequence = new ArrayList<>();
    sequence.add(stream.snapshot(begin.snapshotId()));
    if (begin.snapshotId() != last.snapshotId()) {
      sequence.addAll(StreamSnapshots.after(table, begin.snapshotId(), last));
    }
    List<FileScanTask> tasks = new ArrayList<>();
    for (int index = 0; index < sequence.size(); index++) {
      Snapshot snapshot = sequence.get(index);
      boolean allFiles = index == 0 && begin.scanAllFiles();
      long from = index == 0 ? begin.position() : 0;
      long to = snapshot.snapshotId() == last.snapshotId() ? end.position() : Long.MAX_VALUE;
      if (!StreamSnapshots.reads(snapshot, allFiles, settings)) {
        continue;
      }
      for (SnapshotFiles.Positioned file : files.of(table, snapshot, allFiles, caseSensitive())) {
        if (file.position() >= from && file.position() < to) {
          FileScanTask task = withResidual(file.task());
          if (task != null) {
            tasks.add(task);
          }
        }
      }
    }
    LOG.info(
        "Micro-batch of {} from {} to {}: {} data files", scan.tableName(), begin, end, tasks.size());
    return partitions(tasks);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    // Spark asks for it apart from any micro-batch's tasks; the scan's own plan is a batch's
    return scan.readerFactory(List.of());
  }

  @Override
  public void prepareForTriggerAvailableNow() {
    stream.prepareForTriggerAvailableNow();
  }

  @Override
  public void commit(Offset end) {}

  @Override
  public void stop() {}

  private boolean caseSensitive() {
    return scan.options().caseSensitive();
  }

  /** The task with the scan's filter as its residual, or null when the filter rules its partition out. */
  private FileScanTask withResidual(FileScanTask task) {
    Expression filter = scan.filter();
    if (filter.op() == Expression.Operation.TRUE) {
      return task;
    }
    Expression residual =
        ResidualEvaluator.of(task.spec(), filter, caseSensitive()).residualFor(task.file().partition());
    return residual.op() == Expression.Operation.FALSE ? null : task;
  }

  /**
   * The micro-batch's input partitions, grouped as a batch scan groups its files (Spark's rule:
   * the batch's bytes spread over the task slots). Iceberg's 128 MB split size alone put a batch
   * of thirty 50,000-row files into one task, read by one core while the others idled.
   */
  private InputPartition[] partitions(List<FileScanTask> tasks) {
    List<TaskGroup> groups = IncrementalPlanner.groups(tasks, scan.options().planOptions());
    InputPartition[] partitions = new InputPartition[groups.size()];
    for (int index = 0; index < partitions.length; index++) {
      partitions[index] = new FloeInputPartition(index, groups.get(index).tasks(), null);
    }
    return partitions;
  }

  @Override
  public String toString() {
    return "FloeMicroBatchStream{table=" + scan.tableName() + ", settings=" + settings + "}";
  }
}
