package io.floe.spark.read;

import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The snapshots that a start and an end select, each given as a snapshot id or as a commit time:
 * {@value StreamingReadOptionNames#START_SNAPSHOT_ID} or {@value
 * StreamingReadOptionNames#START_TIMESTAMP} (both exclusive: a snapshot committed at exactly the
 * start time is not in the range) and {@value StreamingReadOptionNames#END_SNAPSHOT_ID} or {@value
 * StreamingReadOptionNames#END_TIMESTAMP} (both inclusive). Times are resolved over the current
 * snapshot's ancestry. One rule for the changelog ({@link ChangelogRange}) and incremental reads
 * ({@link IncrementalRange}).
 *
 * @param startSnapshotId the snapshot after which the range begins, or null for the first one
 * @param endSnapshotId the last snapshot of the range, or null for the current one
 * @param empty whether the times select no snapshot at all
 */
record SnapshotTimeRange(Long startSnapshotId, Long endSnapshotId, boolean empty) {

  /**
   * Fails a start or an end given twice, or a start time not before the end time.
   *
   * @param name the table or changelog read, for messages
   * @param readKind the kind of read, for messages ("changelogs", "incremental scans")
   */
  static void checkCombination(
      String name, String readKind, Long startId, Long endId, Long startTimestamp, Long endTimestamp) {
    if (startId != null && startTimestamp != null) {
      throw bothGiven(
          name, readKind, StreamingReadOptionNames.START_SNAPSHOT_ID, StreamingReadOptionNames.START_TIMESTAMP);
    }
    if (endId != null && endTimestamp != null) {
      throw bothGiven(
          name, readKind, StreamingReadOptionNames.END_SNAPSHOT_ID, StreamingReadOptionNames.END_TIMESTAMP);
    }
    if (startTimestamp != null && endTimestamp != null && startTimestamp >= endTimestamp) {
      throw new IllegalArgumentException(
          "Cannot read " + name + ": " + StreamingReadOptionNames.START_TIMESTAMP + " ("
              + startTimestamp + ") must be before " + StreamingReadOptionNames.END_TIMESTAMP + " ("
              + endTimestamp + ")");
    }
  }

  /** The range of checked bounds; ids pass through, times become the snapshots they select. */
  static SnapshotTimeRange resolve(
      Table table, Long startId, Long endId, Long startTimestamp, Long endTimestamp) {
    Long start = startId;
    Long end = endId;
    if (startTimestamp != null) {
      Snapshot current = table.currentSnapshot();
      if (current == null || startTimestamp > current.timestampMillis()) {
        return new SnapshotTimeRange(null, null, true);
      }
      start = startAfter(table, startTimestamp);
    }
    if (endTimestamp != null) {
      end = lastAtOrBefore(table, endTimestamp);
      if ((start == null && end == null) || (start != null && start.equals(end))) {
        return new SnapshotTimeRange(null, null, true);
      }
    }
    return new SnapshotTimeRange(start, end, false);
  }

  /**
   * The exclusive start for a start time: the oldest ancestor committed at or after it, if at
   * exactly that time, else that ancestor's parent (null when it is the first snapshot).
   */
  private static Long startAfter(Table table, long timestampMillis) {
    Snapshot oldestAfter = SnapshotUtil.oldestAncestorAfter(table, timestampMillis);
    if (oldestAfter == null) {
      return null;
    }
    return oldestAfter.timestampMillis() == timestampMillis
        ? Long.valueOf(oldestAfter.snapshotId())
        : oldestAfter.parentId();
  }

  /** The newest ancestor of the current snapshot committed at or before the time, or null. */
  private static Long lastAtOrBefore(Table table, long timestampMillis) {
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      if (snapshot.timestampMillis() <= timestampMillis) {
        return snapshot.snapshotId();
      }
    }
    return null;
  }

  /** The option as a whole number, or null when it is not given. */
  static Long longOption(String name, Map<String, String> options, String option) {
    for (Map.Entry<String, String> entry : options.entrySet()) {
      if (entry.getKey().equalsIgnoreCase(option)) {
        try {
          return Long.parseLong(entry.getValue().trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "Cannot read " + name + ": option '" + option + "' is not a number: " + entry.getValue(), e);
        }
      }
    }
    return null;
  }

  private static IllegalArgumentException bothGiven(
      String name, String readKind, String first, String second) {
    return new IllegalArgumentException(
        "Cannot read " + name + ": cannot set both " + first + " and " + second + " for " + readKind);
  }
}
