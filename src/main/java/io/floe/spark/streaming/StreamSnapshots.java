package io.floe.spark.streaming;

import io.floe.spark.read.StreamingReadOptionNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Which snapshots a stream source reads, and in what order: the current snapshot's ancestry,
 * oldest first, from the stream's start. Appends are read; compactions ({@code replace}) are
 * passed over; {@code delete} and {@code overwrite} snapshots fail the stream unless their skip
 * option is set, as in the official runtime, except that with {@code
 * streaming-overwrite-mode=added-rows} an {@code overwrite} snapshot is read like an append (the
 * data files it added).
 */
final class StreamSnapshots {
  private StreamSnapshots() {}

  /**
   * Whether the stream reads the snapshot's files; a snapshot read with all its files (the start
   * of a stream over a table whose older history is gone) is always read.
   *
   * @throws IllegalStateException for a delete snapshot without its skip option, an overwrite
   *     snapshot with neither its skip option nor {@code added-rows}, and for an operation Iceberg
   *     does not define
   */
  static boolean reads(Snapshot snapshot, boolean allFiles, StreamingReadSettings settings) {
    if (allFiles) {
      return true;
    }
    String operation = snapshot.operation();
    if (operation == null) {
      return true;
    }
    switch (operation) {
      case DataOperations.APPEND:
        return true;
      case DataOperations.REPLACE:
        return false;
      case DataOperations.DELETE:
        if (!settings.skipDeletes()) {
          throw new IllegalStateException(
              "Cannot process delete snapshot: " + snapshot.snapshotId() + ", to ignore deletes, set "
                  + StreamingReadOptionNames.SKIP_DELETE_SNAPSHOTS + "=true");
        }
        return false;
      case DataOperations.OVERWRITE:
        if (settings.readsOverwrites()) {
          return true;
        }
        if (!settings.skipOverwrites()) {
          throw new IllegalStateException(
              "Cannot process overwrite snapshot: " + snapshot.snapshotId()
                  + ", to ignore overwrites, set " + StreamingReadOptionNames.SKIP_OVERWRITE_SNAPSHOTS
                  + "=true, or to read the rows it added, set "
                  + StreamingReadOptionNames.STREAMING_OVERWRITE_MODE + "="
                  + StreamingReadOptionNames.OVERWRITE_MODE_ADDED_ROWS);
        }
        return false;
      default:
        throw new IllegalStateException(
            String.format(
                Locale.ROOT, "Cannot process unknown snapshot operation: %s (snapshot id %s)",
                operation.toLowerCase(Locale.ROOT), snapshot.snapshotId()));
    }
  }

  /**
   * Where a stream with no offset yet starts: after its start snapshot ({@link #afterSnapshot}),
   * else the oldest snapshot of the current ancestry, or with a start time the oldest one committed
   * at or after it; {@link SnapshotOffset#START} when there is no such snapshot yet.
   */
  static SnapshotOffset startingOffset(Table table, StreamingReadSettings settings) {
    return settings.startSnapshotId() != null
        ? afterSnapshot(table, settings.startSnapshotId())
        : startingOffset(table, settings.fromTimestamp());
  }

  private static SnapshotOffset startingOffset(Table table, long fromTimestamp) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return SnapshotOffset.START;
    }
    String uuid = uuid(table);
    if (fromTimestamp == Long.MIN_VALUE) {
      return new SnapshotOffset(SnapshotUtil.oldestAncestor(table).snapshotId(), 0, false, uuid);
    }
    if (current.timestampMillis() < fromTimestamp) {
      return SnapshotOffset.START;
    }
    Snapshot first = null;
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      if (snapshot.timestampMillis() < fromTimestamp) {
        break;
      }
      first = snapshot;
    }
    return first == null
        ? SnapshotOffset.START
        : new SnapshotOffset(first.snapshotId(), 0, false, uuid);
  }

  /**
   * Where a stream that starts after snapshot {@code startId} (exclusive, as an incremental batch
   * read does) stands: at the first file of the snapshot that follows it in the current
   * snapshot's ancestry, or {@link SnapshotOffset#START} while it is the current snapshot (nothing
   * follows it yet; the start is worked out again at the next trigger).
   *
   * @throws IllegalArgumentException when the table has no such snapshot, or it is not an ancestor
   *     of the current snapshot
   */
  static SnapshotOffset afterSnapshot(Table table, long startId) {
    String option = StreamingReadOptionNames.START_SNAPSHOT_ID;
    if (table.snapshot(startId) == null) {
      throw new IllegalArgumentException(
          "Cannot read " + table.name() + " as a stream: option '" + option
              + "' names no snapshot of the table: " + startId);
    }
    Snapshot current = table.currentSnapshot();
    Snapshot next = null;
    if (current != null) {
      for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
        if (snapshot.snapshotId() == startId) {
          return next == null
              ? SnapshotOffset.START
              : new SnapshotOffset(next.snapshotId(), 0, false, uuid(table));
        }
        next = snapshot;
      }
    }
    throw new IllegalArgumentException(
        "Cannot read " + table.name() + " as a stream: option '" + option + "' (" + startId
            + ") is not an ancestor of the current snapshot ("
            + (current == null ? "none" : String.valueOf(current.snapshotId()))
            + "): the stream starts after that snapshot, in the current snapshot's history");
  }

  /**
   * The snapshots after {@code fromId} up to and including {@code to}, oldest first.
   *
   * @throws IllegalStateException when {@code fromId} is not an ancestor of {@code to} (the table
   *     was rolled back past the stream's offset)
   */
  static List<Snapshot> after(Table table, long fromId, Snapshot to) {
    List<Snapshot> snapshots = new ArrayList<>();
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(to.snapshotId(), table::snapshot)) {
      if (snapshot.snapshotId() == fromId) {
        Collections.reverse(snapshots);
        return snapshots;
      }
      snapshots.add(snapshot);
    }
    throw new IllegalStateException(
        "Cannot read " + table.name() + " as a stream: snapshot " + fromId + " of the stream's offset"
            + " is not an ancestor of snapshot " + to.snapshotId()
            + " (the table was rolled back, or the snapshot expired)");
  }

  static String uuid(Table table) {
    return table.uuid() == null ? null : table.uuid().toString();
  }
}
