package io.floe.spark.streaming;

import java.util.Objects;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table a micro-batch stream reads, as the stream last loaded it, and what every stream source
 * of Floe does with it the same way: refresh it when the polling interval has passed or an offset
 * names a snapshot it has not seen, check that an offset belongs to it (the table's UUID), find
 * the stream's first offset (kept in the checkpoint) and the snapshot {@code Trigger.AvailableNow}
 * stops at. It lives on the driver with its stream and is never shipped.
 */
final class StreamTable {
  private static final Logger LOG = LoggerFactory.getLogger(StreamTable.class);

  private final Table table;
  private final String name;
  private final StreamingReadSettings settings;
  private long lastRefreshMillis;
  private Long availableNowSnapshotId;

  /**
   * @param table the table, just loaded
   * @param name the stream's table name, for messages
   * @param settings the stream's read settings (polling interval, where it starts)
   */
  StreamTable(Table table, String name, StreamingReadSettings settings) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.name = Objects.requireNonNull(name, "name is null");
    this.settings = Objects.requireNonNull(settings, "settings is null");
    this.lastRefreshMillis = System.currentTimeMillis();
  }

  Table table() {
    return table;
  }

  void refresh() {
    table.refresh();
    lastRefreshMillis = System.currentTimeMillis();
  }

  /** Refreshes the table when the polling interval has passed since the last refresh. */
  void refreshWhenDue() {
    if (System.currentTimeMillis() - lastRefreshMillis >= settings.pollingIntervalMs()) {
      refresh();
    }
  }

  /**
   * The snapshot an offset names, refreshing the table once when it does not know it yet.
   *
   * @throws IllegalStateException when the snapshot was expired or removed
   */
  Snapshot snapshot(long id) {
    Snapshot snapshot = table.snapshot(id);
    if (snapshot == null) {
      // the offset may be newer than the metadata this stream last loaded
      refresh();
      snapshot = table.snapshot(id);
    }
    if (snapshot == null) {
      throw new IllegalStateException(
          "Cannot load current offset at snapshot " + id + " of " + name
              + ", the snapshot was expired or removed");
    }
    return snapshot;
  }

  /**
   * The offset, once checked to belong to this table.
   *
   * @throws IllegalStateException when it carries another table's UUID (another table's checkpoint)
   */
  SnapshotOffset checked(SnapshotOffset offset) {
    String uuid = StreamSnapshots.uuid(table);
    if (offset.tableUuid() != null && uuid != null && !offset.tableUuid().equals(uuid)) {
      throw new IllegalStateException(
          "Cannot read " + name + " as a stream from this checkpoint: its offsets belong"
              + " to another table (UUID " + offset.tableUuid() + ", this table's is " + uuid + ")");
    }
    return offset;
  }

  /**
   * The stream's place, checked: a start before any snapshot is worked out again, as snapshots may
   * exist now.
   */
  SnapshotOffset begin(SnapshotOffset offset) {
    SnapshotOffset checked = checked(offset);
    return checked.isStart() ? StreamSnapshots.startingOffset(table, settings) : checked;
  }

  /** The stream's first offset, read from the checkpoint, or worked out now and written there. */
  SnapshotOffset initialOffset(String checkpointLocation) {
    return InitialOffsets.stored(
        checkpointLocation,
        () -> {
          refresh();
          return StreamSnapshots.startingOffset(table, settings);
        },
        this::checked);
  }

  /** Pins the snapshot current now as the last one {@code Trigger.AvailableNow} reads. */
  void prepareForTriggerAvailableNow() {
    refresh();
    Snapshot current = table.currentSnapshot();
    // no snapshot yet: the stream ends without data, as nothing is available now
    availableNowSnapshotId = current == null ? Long.valueOf(-1L) : Long.valueOf(current.snapshotId());
    LOG.info("Trigger.AvailableNow on {}: reading up to snapshot {}", name, availableNowSnapshotId);
  }

  /**
   * The last snapshot a micro-batch may read: the one pinned for {@code Trigger.AvailableNow}, else
   * the current one; null when there is none.
   */
  Snapshot head() {
    return availableNowSnapshotId != null ? table.snapshot(availableNowSnapshotId) : table.currentSnapshot();
  }
}
