package io.floe.spark.read;

import io.floe.spark.read.plan.IncrementalPlanner;
import io.floe.spark.read.plan.PlanOptions;
import io.floe.spark.read.plan.ScanPlanner;
import java.io.Serializable;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;

/**
 * An incremental batch read: the rows appended after a start (exclusive) up to an end (inclusive).
 * The start is {@value StreamingReadOptionNames#START_SNAPSHOT_ID} as the official runtime defines
 * it, or {@value StreamingReadOptionNames#START_TIMESTAMP} (a commit time, exclusive); the end is
 * {@value StreamingReadOptionNames#END_SNAPSHOT_ID} or {@value
 * StreamingReadOptionNames#END_TIMESTAMP} (inclusive), by default the current snapshot. Times select
 * snapshots as the changelog's do ({@link SnapshotTimeRange}). Only {@code append} snapshots between
 * the two are read; others (overwrites, deletes, compactions) are passed over, as Iceberg's
 * incremental append scan does.
 *
 * @param startSnapshotId the snapshot after which appends are read, or null to read from the
 *     oldest snapshot of the end's ancestry on (a start time before every snapshot)
 * @param endSnapshotId the last snapshot whose appends are read
 * @param empty whether the times select no snapshot, so nothing is read
 */
public record IncrementalRange(Long startSnapshotId, long endSnapshotId, boolean empty)
    implements Serializable {

  /**
   * The range the options ask for, or null when they ask for none.
   *
   * @throws IllegalArgumentException for an end without a start, a start or an end given both as a
   *     snapshot and a time, a start time not before the end time, an incremental read combined with
   *     time travel, a value that is not a number, or a snapshot the table does not have
   */
  static IncrementalRange fromOptions(Table table, Map<String, String> options, TimeTravel travel) {
    String start = option(options, StreamingReadOptionNames.START_SNAPSHOT_ID);
    String end = option(options, StreamingReadOptionNames.END_SNAPSHOT_ID);
    String startTime = option(options, StreamingReadOptionNames.START_TIMESTAMP);
    String endTime = option(options, StreamingReadOptionNames.END_TIMESTAMP);
    if (start == null && end == null && startTime == null && endTime == null) {
      return null;
    }
    if (start == null && startTime == null) {
      throw endWithoutStart(end != null ? StreamingReadOptionNames.END_SNAPSHOT_ID : StreamingReadOptionNames.END_TIMESTAMP);
    }
    if (travel != null) {
      throw new IllegalArgumentException(
          "Cannot read " + table.name() + ": Cannot use time travel in incremental scan");
    }
    if (startTime == null && endTime == null) {
      long startId = snapshotId(table, StreamingReadOptionNames.START_SNAPSHOT_ID, start);
      long endId =
          end != null ? snapshotId(table, StreamingReadOptionNames.END_SNAPSHOT_ID, end) : current(table);
      return new IncrementalRange(startId, endId, false);
    }
    return byTime(table, options, start, end);
  }

  /** The range of options that give a start or an end as a commit time. */
  private static IncrementalRange byTime(
      Table table, Map<String, String> options, String start, String end) {
    String name = table.name();
    Long startTimestamp =
        SnapshotTimeRange.longOption(name, options, StreamingReadOptionNames.START_TIMESTAMP);
    Long endTimestamp =
        SnapshotTimeRange.longOption(name, options, StreamingReadOptionNames.END_TIMESTAMP);
    Long startId = start == null ? null : snapshotId(table, StreamingReadOptionNames.START_SNAPSHOT_ID, start);
    Long endId = end == null ? null : snapshotId(table, StreamingReadOptionNames.END_SNAPSHOT_ID, end);
    SnapshotTimeRange.checkCombination(
        name, "incremental scans", startId, endId, startTimestamp, endTimestamp);
    // the end of a range the times leave empty still names a snapshot: the scan reports its schema
    long currentId = current(table);
    SnapshotTimeRange range =
        SnapshotTimeRange.resolve(table, startId, endId, startTimestamp, endTimestamp);
    long resolvedEnd = range.endSnapshotId() == null ? currentId : range.endSnapshotId();
    // a start time at or after the end's commit selects no snapshot: nothing to read, not an error
    if (range.empty() || Long.valueOf(resolvedEnd).equals(range.startSnapshotId())) {
      return new IncrementalRange(null, currentId, true);
    }
    return new IncrementalRange(range.startSnapshotId(), resolvedEnd, false);
  }

  /** Plans the range's files: none for an empty range, else the appends between its bounds. */
  ScanPlanner.Plan plan(Table table, Expression filter, PlanOptions options) {
    return empty
        ? IncrementalPlanner.nothing()
        : IncrementalPlanner.plan(table, startSnapshotId, endSnapshotId, filter, options);
  }

  private static IllegalArgumentException endWithoutStart(String endOption) {
    String starts =
        StreamingReadOptionNames.END_SNAPSHOT_ID.equals(endOption)
            ? "`" + StreamingReadOptionNames.START_SNAPSHOT_ID + "`"
            : "`" + StreamingReadOptionNames.START_SNAPSHOT_ID + "` or `"
                + StreamingReadOptionNames.START_TIMESTAMP + "`";
    return new IllegalArgumentException(
        "Cannot set only `" + endOption + "` for incremental scans. Please, set " + starts + " too.");
  }

  private static long current(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      throw new IllegalArgumentException("Cannot read " + table.name() + " incrementally: the table has no snapshot");
    }
    return current.snapshotId();
  }

  private static long snapshotId(Table table, String option, String value) {
    long id;
    try {
      id = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Cannot read " + table.name() + ": option '" + option + "' is not a snapshot id: " + value, e);
    }
    if (table.snapshot(id) == null) {
      throw new IllegalArgumentException(
          "Cannot read " + table.name() + ": option '" + option + "' names no snapshot of the table: " + id);
    }
    return id;
  }

  private static String option(Map<String, String> options, String name) {
    for (Map.Entry<String, String> entry : options.entrySet()) {
      if (entry.getKey().equalsIgnoreCase(name)) {
        return entry.getValue();
      }
    }
    return null;
  }
}
