package io.floe.spark.read.plan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.AddedRowsScanTask;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.ChangelogScanTask;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.DeletedDataFileScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IncrementalChangelogScan;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a changelog read on the driver, once, through Iceberg core's incremental changelog scan:
 * every data file that a snapshot between the start (exclusive) and the end (inclusive) added
 * becomes an {@link ChangeTask#INSERT} task, every one it removed a {@link ChangeTask#DELETE}
 * task, each with the snapshot's ordinal and id. Compactions ({@code replace} snapshots) change no
 * row and are passed over, as Iceberg does.
 *
 * <p>Iceberg 1.11's changelog scan cannot tell which rows of a file a delete file removed, and
 * refuses any snapshot that carries delete files. So does this planner, before planning anything,
 * naming the first such snapshot: a changelog without those rows would be wrong, not short.
 */
public final class ChangelogPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(ChangelogPlanner.class);
  private static final Comparator<ChangeTask> TASK_ORDER =
      Comparator.comparingInt(ChangeTask::changeOrdinal)
          .thenComparing(ChangeTask::changeType)
          .thenComparing(task -> task.file().file().location());

  private ChangelogPlanner() {}

  /**
   * The planned groups, each one Spark input partition, and what planning measured.
   *
   * @param groups the change tasks of each input partition, in a fixed order
   * @param metrics what planning measured
   */
  public record Plan(List<List<ChangeTask>> groups, DriverMetrics metrics) {
    public Plan {
      List<List<ChangeTask>> copy = new ArrayList<>();
      Objects.requireNonNull(groups, "groups is null").forEach(group -> copy.add(List.copyOf(group)));
      groups = List.copyOf(copy);
      Objects.requireNonNull(metrics, "metrics is null");
    }
  }

  /**
   * @param name the changelog's name, for messages
   * @param startSnapshotId the snapshot after which changes are read (exclusive), or null to read
   *     from the table's first snapshot
   * @param endSnapshotId the last snapshot whose changes are read (inclusive), or null for the
   *     current one
   * @param filter the scan's filter, in the table's column names
   * @throws UnsupportedOperationException when a snapshot in the range carries delete files
   * @throws IllegalArgumentException when the start is not an ancestor of the end
   */
  public static Plan plan(
      Table table,
      String name,
      Long startSnapshotId,
      Long endSnapshotId,
      Expression filter,
      PlanOptions options) {
    long start = System.nanoTime();
    Long end = endSnapshotId;
    if (end == null) {
      Snapshot current = table.currentSnapshot();
      if (current == null) {
        return new Plan(List.of(), new DriverMetrics(0, 0, 0));
      }
      end = current.snapshotId();
    }
    if (startSnapshotId != null && !SnapshotUtil.isAncestorOf(table, end, startSnapshotId)) {
      throw new IllegalArgumentException(
          "Cannot read " + name + ": start snapshot " + startSnapshotId
              + " is not an ancestor of end snapshot " + end);
    }
    refuseDeleteFiles(table, name, startSnapshotId, end);
    IncrementalChangelogScan scan =
        table.newIncrementalChangelogScan()
            .toSnapshot(end)
            .caseSensitive(options.caseSensitive())
            .filter(filter);
    if (startSnapshotId != null) {
      scan = scan.fromSnapshotExclusive(startSnapshotId);
    }
    List<ChangeTask> tasks = new ArrayList<>();
    String schema = SchemaParser.toJson(table.schema());
    try (CloseableIterable<ChangelogScanTask> planned = scan.planFiles()) {
      for (ChangelogScanTask task : planned) {
        tasks.add(changeTask(name, schema, filter, options.caseSensitive(), task));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan the changelog read of " + name, e);
    }
    tasks.sort(TASK_ORDER);
    List<List<ChangeTask>> groups = pack(tasks, options);
    long millis = (System.nanoTime() - start) / 1_000_000;
    LOG.info(
        "Planned the changelog {} after snapshot {} up to {}: {} file tasks in {} input partitions in {} ms",
        name, startSnapshotId, end, tasks.size(), groups.size(), millis);
    return new Plan(groups, new DriverMetrics(millis, groups.size(), 0));
  }

  /**
   * Fails naming the first snapshot of the range, oldest first, whose data depends on delete
   * files: Iceberg 1.11's changelog scan reads data files whole, so it would report rows a delete
   * file had removed as still there, and miss the rows it removes.
   */
  private static void refuseDeleteFiles(Table table, String name, Long startExclusive, long end) {
    List<Snapshot> range = new ArrayList<>();
    SnapshotUtil.ancestorsBetween(table, end, startExclusive).forEach(range::add);
    for (int i = range.size() - 1; i >= 0; i--) {
      Snapshot snapshot = range.get(i);
      if (!DataOperations.REPLACE.equals(snapshot.operation())
          && !snapshot.deleteManifests(table.io()).isEmpty()) {
        throw new UnsupportedOperationException(
            "Cannot read " + name + ": snapshot " + snapshot.snapshotId() + " ("
                + snapshot.operation() + ") has delete files (position deletes, deletion vectors or"
                + " equality deletes, as merge-on-read DELETE, UPDATE and MERGE write them), and"
                + " Iceberg's changelog scan supports no delete files; read a range of snapshots"
                + " before it, or compact the table (rewrite_data_files with delete-file-threshold)"
                + " and read changes after the compaction");
      }
    }
  }

  private static ChangeTask changeTask(
      String name,
      String schema,
      Expression filter,
      boolean caseSensitive,
      ChangelogScanTask task) {
    if (task instanceof AddedRowsScanTask added) {
      return new ChangeTask(
          fileTask(schema, filter, caseSensitive, added.file(), added.deletes(), added.spec()),
          ChangeTask.INSERT,
          task.changeOrdinal(),
          task.commitSnapshotId());
    }
    if (task instanceof DeletedDataFileScanTask deleted) {
      return new ChangeTask(
          fileTask(
              schema, filter, caseSensitive, deleted.file(), deleted.existingDeletes(),
              deleted.spec()),
          ChangeTask.DELETE,
          task.changeOrdinal(),
          task.commitSnapshotId());
    }
    // deleted rows (a delete file added to a live data file): refused above, and never guessed at
    throw new UnsupportedOperationException(
        "Cannot read " + name + ": snapshot " + task.commitSnapshotId()
            + " removed rows with delete files, which the changelog cannot read: " + task);
  }

  private static FileScanTask fileTask(
      String schema,
      Expression filter,
      boolean caseSensitive,
      org.apache.iceberg.DataFile file,
      List<DeleteFile> deletes,
      org.apache.iceberg.PartitionSpec spec) {
    return new BaseFileScanTask(
        file,
        deletes.toArray(new DeleteFile[0]),
        schema,
        PartitionSpecParser.toJson(spec),
        ResidualEvaluator.of(spec, filter, caseSensitive));
  }

  /** Consecutive tasks, in order, packed into groups of about the split size. */
  private static List<List<ChangeTask>> pack(List<ChangeTask> tasks, PlanOptions options) {
    long total = 0;
    for (ChangeTask task : tasks) {
      total += weight(task, options.openFileCost());
    }
    long splitSize = TaskGrouping.splitSize(options, total);
    List<List<ChangeTask>> groups = new ArrayList<>();
    List<ChangeTask> group = new ArrayList<>();
    long groupWeight = 0;
    for (ChangeTask task : tasks) {
      long weight = weight(task, options.openFileCost());
      if (!group.isEmpty() && groupWeight + weight > splitSize) {
        groups.add(group);
        group = new ArrayList<>();
        groupWeight = 0;
      }
      group.add(task);
      groupWeight += weight;
    }
    if (!group.isEmpty()) {
      groups.add(group);
    }
    return groups;
  }

  private static long weight(ChangeTask task, long openFileCost) {
    return Math.max(task.sizeBytes(), openFileCost);
  }
}
