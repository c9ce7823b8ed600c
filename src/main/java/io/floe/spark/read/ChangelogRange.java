package io.floe.spark.read;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Table;

/**
 * The snapshots a changelog read covers, from its read options as the official runtime names and
 * resolves them: {@value StreamingReadOptionNames#START_SNAPSHOT_ID} (exclusive) or {@value
 * #START_TIMESTAMP} (exclusive: a snapshot committed at exactly that millisecond is not read), and
 * {@value StreamingReadOptionNames#END_SNAPSHOT_ID} or {@value #END_TIMESTAMP} (inclusive). Without
 * a start the changelog begins at the table's first snapshot; without an end it ends at the current
 * one. The resolution is {@link SnapshotTimeRange}'s, shared with incremental reads.
 *
 * @param startSnapshotId the snapshot after which changes are read, or null for the first snapshot
 * @param endSnapshotId the last snapshot read, or null for the current one
 * @param empty whether the range holds no snapshot at all (the timestamps select none)
 */
public record ChangelogRange(Long startSnapshotId, Long endSnapshotId, boolean empty)
    implements Serializable {
  /** The changelog's start as a commit time in epoch milliseconds (exclusive). */
  public static final String START_TIMESTAMP = StreamingReadOptionNames.START_TIMESTAMP;
  /** The changelog's end as a commit time in epoch milliseconds (inclusive). */
  public static final String END_TIMESTAMP = StreamingReadOptionNames.END_TIMESTAMP;

  /**
   * The range the options ask for.
   *
   * @throws IllegalArgumentException for a start or end given both as a snapshot and a timestamp, a
   *     start timestamp not before the end timestamp, a value that is not a number, or a snapshot
   *     the table does not have
   */
  static ChangelogRange fromOptions(String name, Table table, Map<String, String> options) {
    Long startId = SnapshotTimeRange.longOption(name, options, StreamingReadOptionNames.START_SNAPSHOT_ID);
    Long endId = SnapshotTimeRange.longOption(name, options, StreamingReadOptionNames.END_SNAPSHOT_ID);
    Long startTimestamp = SnapshotTimeRange.longOption(name, options, START_TIMESTAMP);
    Long endTimestamp = SnapshotTimeRange.longOption(name, options, END_TIMESTAMP);
    SnapshotTimeRange.checkCombination(name, "changelogs", startId, endId, startTimestamp, endTimestamp);
    requireSnapshot(name, table, StreamingReadOptionNames.START_SNAPSHOT_ID, startId);
    requireSnapshot(name, table, StreamingReadOptionNames.END_SNAPSHOT_ID, endId);
    SnapshotTimeRange range =
        SnapshotTimeRange.resolve(table, startId, endId, startTimestamp, endTimestamp);
    return new ChangelogRange(range.startSnapshotId(), range.endSnapshotId(), range.empty());
  }

  /** The options without the changelog's own, for {@link ReadOptions#resolve}. */
  static Map<String, String> withoutRangeTimestamps(Map<String, String> options) {
    Map<String, String> rest = new HashMap<>(options);
    rest.keySet().removeIf(key -> key.equalsIgnoreCase(START_TIMESTAMP) || key.equalsIgnoreCase(END_TIMESTAMP));
    return rest;
  }

  private static void requireSnapshot(String name, Table table, String option, Long id) {
    if (id != null && table.snapshot(id) == null) {
      throw new IllegalArgumentException(
          "Cannot read " + name + ": option '" + option + "' names no snapshot of the table: " + id);
    }
  }
}
