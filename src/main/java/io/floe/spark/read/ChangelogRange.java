package io.floe.spark.read;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The snapshots a changelog read covers, from its read options as the official runtime names and
 * resolves them: {@value StreamingReadOptionNames#START_SNAPSHOT_ID} (exclusive) or {@value
 * #START_TIMESTAMP} (exclusive: a snapshot committed at exactly that millisecond is not read), and
 * {@value StreamingReadOptionNames#END_SNAPSHOT_ID} or {@value #END_TIMESTAMP} (inclusive). Without
 * a start the changelog begins at the table's first snapshot; without an end it ends at the current
 * one.
 *
 * @param startSnapshotId the snapshot after which changes are read, or null for the first snapshot
 * @param endSnapshotId the last snapshot read, or null for the current one
 * @param empty whether the range holds no snapshot at all (the timestamps select none)
 */
public record ChangelogRange(Long startSnapshotId, Long endSnapshotId, boolean empty)
    implements Serializable {
  /** The changelog's start as a commit time in epoch milliseconds (exclusive). */
  public static final String START_TIMESTAMP = "start-timestamp";
  /** The changelog's end as a commit time in epoch milliseconds (inclusive). */
  public static final String END_TIMESTAMP = "end-timestamp";

  /**
   * The range the options ask for.
   *
   * @throws IllegalArgumentException for a start or end given both as a snapshot and a timestamp, a
   *     start timestamp not before the end timestamp, a value that is not a number, or a snapshot
   *     the table does not have
   */
  static ChangelogRange fromOptions(String name, Table table, Map<String, String> options) {
    Long startId = longOption(name, options, StreamingReadOptionNames.START_SNAPSHOT_ID);
    Long endId = longOption(name, options, StreamingReadOptionNames.END_SNAPSHOT_ID);
    Long startTimestamp = longOption(name, options, START_TIMESTAMP);
    Long endTimestamp = longOption(name, options, END_TIMESTAMP);
    if (startId != null && startTimestamp != null) {
      throw bothGiven(name, StreamingReadOptionNames.START_SNAPSHOT_ID, START_TIMESTAMP);
    }
    if (endId != null && endTimestamp != null) {
      throw bothGiven(name, StreamingReadOptionNames.END_SNAPSHOT_ID, END_TIMESTAMP);
    }
    if (startTimestamp != null && endTimestamp != null && startTimestamp >= endTimestamp) {
      throw new IllegalArgumentException(
          "Cannot read " + name + ": " + START_TIMESTAMP + " (" + startTimestamp
              + ") must be before " + END_TIMESTAMP + " (" + endTimestamp + ")");
    }
    requireSnapshot(name, table, StreamingReadOptionNames.START_SNAPSHOT_ID, startId);
    requireSnapshot(name, table, StreamingReadOptionNames.END_SNAPSHOT_ID, endId);
    if (startTimestamp != null) {
      Snapshot current = table.currentSnapshot();
      if (current == null || startTimestamp > current.timestampMillis()) {
        return new ChangelogRange(null, null, true);
      }
      startId = startAfter(table, startTimestamp);
    }
    if (endTimestamp != null) {
      endId = lastAtOrBefore(table, endTimestamp);
      if ((startId == null && endId == null) || (startId != null && startId.equals(endId))) {
        return new ChangelogRange(null, null, true);
      }
    }
    return new ChangelogRange(startId, endId, false);
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

  /** The options without the changelog's own, for {@link ReadOptions#resolve}. */
  static Map<String, String> withoutRangeTimestamps(Map<String, String> options) {
    Map<String, String> rest = new HashMap<>(options);
    rest.keySet().removeIf(key -> key.equalsIgnoreCase(START_TIMESTAMP) || key.equalsIgnoreCase(END_TIMESTAMP));
    return rest;
  }

  private static IllegalArgumentException bothGiven(String name, String first, String second) {
    return new IllegalArgumentException(
        "Cannot read " + name + ": cannot set both " + first + " and " + second + " for changelogs");
  }

  private static void requireSnapshot(String name, Table table, String option, Long id) {
    if (id != null && table.snapshot(id) == null) {
      throw new IllegalArgumentException(
          "Cannot read " + name + ": option '" + option + "' names no snapshot of the table: " + id);
    }
  }

  private static Long longOption(String name, Map<String, String> options, String option) {
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
}
