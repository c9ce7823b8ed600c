package io.floe.spark.read.plan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a changelog read on the driver, once. For every snapshot between the start (exclusive) and
 * the end (inclusive), oldest first, it plans the rows the snapshot changed:
 *
 * <ul>
 *   <li>{@link ChangeTask#INSERT}: the rows of each data file the snapshot added, less the rows that
 *       delete files it added with them delete;
 *   <li>{@link ChangeTask#DELETE}: the rows of each data file it removed that were live before it
 *       (the deletes live at its parent applied), and the rows of each file it kept that position
 *       deletes, deletion vectors or equality deletes it added delete and that were live before it
 *       (so a deletion vector replacing an older one yields only its newly set positions).
 * </ul>
 *
 * Each row carries the snapshot's ordinal and id. Compactions ({@code replace} snapshots) change no
 * row and are passed over, taking no ordinal, as Iceberg does. Copy-on-write DML therefore reads as
 * the rows of the files it rewrote (carry-overs included), merge-on-read DML as the rows its delete
 * files delete and the rows it added.
 *
 * <p>Which deletes apply to a file at a snapshot is Iceberg's scan planning of that snapshot
 * ({@link ChangelogLiveFiles}); it is asked only for snapshots whose changes depend on deletes.
 * For equality deletes that planning applies the spec's rules: a delete applies to the data files
 * of its partition (every partition, for a delete of an unpartitioned spec) whose data sequence
 * number is lower than its own. So the rows a snapshot added are never deleted by the equality
 * deletes it added with them (a Flink upsert reads as the old row deleted and the new one
 * inserted), and files added after an equality delete are not deleted by it.
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
    List<Snapshot> range = changedSnapshots(table, startSnapshotId, end);
    ChangelogSnapshotChanges changes = new ChangelogSnapshotChanges(table, name, filter, options.caseSensitive());
    List<ChangeTask> tasks = new ArrayList<>();
    for (int ordinal = 0; ordinal < range.size(); ordinal++) {
      tasks.addAll(changes.plan(range.get(ordinal), ordinal));
    }
    tasks.sort(TASK_ORDER);
    List<List<ChangeTask>> groups = pack(tasks, options);
    long millis = (System.nanoTime() - start) / 1_000_000;
    LOG.info(
        "Planned the changelog {} after snapshot {} up to {}: {} file tasks in {} input partitions,"
            + " {} snapshots planned for their deletes, in {} ms",
        name, startSnapshotId, end, tasks.size(), groups.size(), changes.scans(), millis);
    return new Plan(groups, new DriverMetrics(millis, groups.size(), 0));
  }

  /** The snapshots of the range that change rows, oldest first: all but compactions. */
  private static List<Snapshot> changedSnapshots(Table table, Long startExclusive, long end) {
    List<Snapshot> range = new ArrayList<>();
    for (Snapshot snapshot : SnapshotUtil.ancestorsBetween(table, end, startExclusive)) {
      if (!DataOperations.REPLACE.equals(snapshot.operation())) {
        range.add(snapshot);
      }
    }
    Collections.reverse(range);
    return range;
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
