package io.floe.spark.read;

import java.util.Set;

/**
 * The names of the read options of streams and incremental reads, the official runtime's. They are
 * known to {@link ReadOptions} (so no scan rejects them); the stream source resolves the streaming
 * ones, and {@link FloeScanBuilder} the incremental ones.
 */
public final class StreamingReadOptionNames {
  /** Start a stream at the first snapshot committed at or after this time (epoch millis). */
  public static final String STREAM_FROM_TIMESTAMP = "stream-from-timestamp";
  public static final String MAX_FILES_PER_MICRO_BATCH = "streaming-max-files-per-micro-batch";
  public static final String MAX_ROWS_PER_MICRO_BATCH = "streaming-max-rows-per-micro-batch";
  public static final String SKIP_DELETE_SNAPSHOTS = "streaming-skip-delete-snapshots";
  public static final String SKIP_OVERWRITE_SNAPSHOTS = "streaming-skip-overwrite-snapshots";
  public static final String SNAPSHOT_POLLING_INTERVAL_MS = "streaming-snapshot-polling-interval-ms";
  /**
   * What a stream does with {@code overwrite} snapshots (copy-on-write and merge-on-read DML, INSERT
   * OVERWRITE): {@value #OVERWRITE_MODE_NONE} (the default: fail, or pass over with {@link
   * #SKIP_OVERWRITE_SNAPSHOTS}) or {@value #OVERWRITE_MODE_ADDED_ROWS} (read the data files they
   * added). Floe's own; the official runtime has no such option.
   */
  public static final String STREAMING_OVERWRITE_MODE = "streaming-overwrite-mode";
  /** {@link #STREAMING_OVERWRITE_MODE}'s default: overwrite snapshots are not read. */
  public static final String OVERWRITE_MODE_NONE = "none";
  /** {@link #STREAMING_OVERWRITE_MODE}: read the rows of the data files an overwrite added. */
  public static final String OVERWRITE_MODE_ADDED_ROWS = "added-rows";
  /** Incremental batch read: the snapshot after which appends are read (exclusive). */
  public static final String START_SNAPSHOT_ID = "start-snapshot-id";
  /** Incremental batch read: the last snapshot whose appends are read (inclusive). */
  public static final String END_SNAPSHOT_ID = "end-snapshot-id";
  /**
   * Incremental batch read (and changelog): the commit time after which snapshots are read, epoch
   * millis, exclusive.
   */
  public static final String START_TIMESTAMP = "start-timestamp";
  /**
   * Incremental batch read (and changelog): the commit time up to which snapshots are read, epoch
   * millis, inclusive.
   */
  public static final String END_TIMESTAMP = "end-timestamp";

  /** The streaming options, as the stream source resolves them. */
  public static final Set<String> STREAMING =
      Set.of(
          STREAM_FROM_TIMESTAMP,
          MAX_FILES_PER_MICRO_BATCH,
          MAX_ROWS_PER_MICRO_BATCH,
          SKIP_DELETE_SNAPSHOTS,
          SKIP_OVERWRITE_SNAPSHOTS,
          SNAPSHOT_POLLING_INTERVAL_MS,
          STREAMING_OVERWRITE_MODE);

  /** Every name here. */
  public static final Set<String> ALL =
      Set.of(
          STREAM_FROM_TIMESTAMP,
          MAX_FILES_PER_MICRO_BATCH,
          MAX_ROWS_PER_MICRO_BATCH,
          SKIP_DELETE_SNAPSHOTS,
          SKIP_OVERWRITE_SNAPSHOTS,
          SNAPSHOT_POLLING_INTERVAL_MS,
          STREAMING_OVERWRITE_MODE,
          START_SNAPSHOT_ID,
          END_SNAPSHOT_ID,
          START_TIMESTAMP,
          END_TIMESTAMP);

  private StreamingReadOptionNames() {}
}
