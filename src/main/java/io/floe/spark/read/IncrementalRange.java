package io.floe.spark.read;

import java.io.Serializable;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * An incremental batch read: the rows appended after {@code startSnapshotId} (exclusive) up to
 * {@code endSnapshotId} (inclusive), from the read options {@value
 * StreamingReadOptionNames#START_SNAPSHOT_ID} and {@value StreamingReadOptionNames#END_SNAPSHOT_ID}
 * as the official runtime defines them. Only {@code append} snapshots between the two are read;
 * others (overwrites, deletes, compactions) are passed over, as Iceberg's incremental append scan
 * does.
 *
 * @param endSnapshotId the end, or the table's current snapshot when the option is not set
 */
public record IncrementalRange(long startSnapshotId, long endSnapshotId) implements Serializable {

  /**
   * The range the options ask for, or null when they ask for none.
   *
   * @throws IllegalArgumentException for an end without a start, an incremental read combined with
   *     time travel, a value that is not a number, or a snapshot the table does not have
   */
  static IncrementalRange fromOptions(Table table, Map<String, String> options, TimeTravel travel) {
    String start = option(options, StreamingReadOptionNames.START_SNAPSHOT_ID);
    String end = option(options, StreamingReadOptionNames.END_SNAPSHOT_ID);
    if (start == null && end == null) {
      return null;
    }
    if (start == null) {
      throw new IllegalArgumentException(
          "Cannot set only `" + StreamingReadOptionNames.END_SNAPSHOT_ID
              + "` for incremental scans. Please, set `" + StreamingReadOptionNames.START_SNAPSHOT_ID
              + "` too.");
    }
    if (travel != null) {
      throw new IllegalArgumentException(
          "Cannot read " + table.name() + ": Cannot use time travel in incremental scan");
    }
    long startId = snapshotId(table, StreamingReadOptionNames.START_SNAPSHOT_ID, start);
    long endId;
    if (end != null) {
      endId = snapshotId(table, StreamingReadOptionNames.END_SNAPSHOT_ID, end);
    } else {
      Snapshot current = table.currentSnapshot();
      if (current == null) {
        throw new IllegalArgumentException("Cannot read " + table.name() + " incrementally: the table has no snapshot");
      }
      endId = current.snapshotId();
    }
    return new IncrementalRange(startId, endId);
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
