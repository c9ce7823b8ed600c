package io.floe.spark.streaming;

import io.floe.spark.read.ReadOptions;
import io.floe.spark.read.StreamingReadOptionNames;
import io.floe.spark.util.OptionResolver;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.internal.SQLConf;

/**
 * A stream source's settings, resolved once when the stream starts: the read option, then the
 * session conf {@code spark.floe.read.<option>}, then the default. The names are the official
 * runtime's ({@link StreamingReadOptionNames}).
 *
 * @param fromTimestamp start at the first snapshot committed at or after this time (millis), or
 *     {@link Long#MIN_VALUE} to start at the oldest snapshot of the table's history
 * @param startSnapshotId start after this snapshot (exclusive), or null: the read option {@value
 *     StreamingReadOptionNames#START_SNAPSHOT_ID} only (no session conf), as for a batch read;
 *     never together with a {@code fromTimestamp}
 * @param maxFiles the most data files one micro-batch reads (a soft limit: at least one)
 * @param maxRows the most rows one micro-batch reads (soft: a batch ends with the file that
 *     reaches the limit, and always takes at least one file)
 * @param skipDeletes pass over {@code delete} snapshots instead of failing
 * @param skipOverwrites pass over {@code overwrite} snapshots instead of failing
 * @param pollingIntervalMs the least time between two loads of the table's metadata while looking
 *     for new snapshots; 0 loads it at every trigger
 * @param overwriteMode whether {@code overwrite} snapshots are read ({@link
 *     StreamOverwriteMode#ADDED_ROWS}) or fail / are skipped as {@code skipOverwrites} says
 */
public record StreamingReadSettings(
    long fromTimestamp,
    Long startSnapshotId,
    int maxFiles,
    int maxRows,
    boolean skipDeletes,
    boolean skipOverwrites,
    long pollingIntervalMs,
    StreamOverwriteMode overwriteMode) {

  public StreamingReadSettings {
    if (maxFiles <= 0 || maxRows <= 0) {
      throw new IllegalArgumentException(
          "Cannot read a stream: options '" + StreamingReadOptionNames.MAX_FILES_PER_MICRO_BATCH
              + "' (" + maxFiles + ") and '" + StreamingReadOptionNames.MAX_ROWS_PER_MICRO_BATCH
              + "' (" + maxRows + ") must be positive");
    }
    if (pollingIntervalMs < 0) {
      throw new IllegalArgumentException(
          "Cannot read a stream: option '" + StreamingReadOptionNames.SNAPSHOT_POLLING_INTERVAL_MS
              + "' must not be negative, not " + pollingIntervalMs);
    }
    Objects.requireNonNull(overwriteMode, "overwriteMode is null");
    if (startSnapshotId != null && fromTimestamp != Long.MIN_VALUE) {
      throw new IllegalArgumentException(
          "Cannot read a stream: options '" + StreamingReadOptionNames.START_SNAPSHOT_ID + "' ("
              + startSnapshotId + ") and '" + StreamingReadOptionNames.STREAM_FROM_TIMESTAMP + "' ("
              + fromTimestamp + ") both say where the stream starts; set only one");
    }
    if (skipOverwrites && overwriteMode == StreamOverwriteMode.ADDED_ROWS) {
      // one asks to pass over the rows an overwrite added, the other to read them: neither wins
      // silently, so the stream does not drop or emit rows its author did not expect
      throw new IllegalArgumentException(
          "Cannot read a stream: options '" + StreamingReadOptionNames.SKIP_OVERWRITE_SNAPSHOTS
              + "=true' and '" + StreamingReadOptionNames.STREAMING_OVERWRITE_MODE + "="
              + StreamOverwriteMode.ADDED_ROWS.value() + "' contradict each other: the first passes"
              + " over overwrite snapshots, the second reads the rows they added; set only one");
    }
  }

  /** Whether the stream reads the rows {@code overwrite} snapshots added. */
  public boolean readsOverwrites() {
    return overwriteMode == StreamOverwriteMode.ADDED_ROWS;
  }

  /** Spark's read limit of these settings: files, rows, both, or all that is available. */
  public ReadLimit readLimit() {
    boolean files = maxFiles != Integer.MAX_VALUE;
    boolean rows = maxRows != Integer.MAX_VALUE;
    if (files && rows) {
      return ReadLimit.compositeLimit(
          new ReadLimit[] {ReadLimit.maxFiles(maxFiles), ReadLimit.maxRows(maxRows)});
    }
    if (files) {
      return ReadLimit.maxFiles(maxFiles);
    }
    return rows ? ReadLimit.maxRows(maxRows) : ReadLimit.allAvailable();
  }

  /**
   * The settings of a stream over {@code tableName} (a table or its change feed) from the caller's
   * read options.
   *
   * @throws IllegalArgumentException for an option of an incremental batch read that a stream does
   *     not honour ({@link #refuseBatchRangeEnds}), or a value out of range
   */
  public static StreamingReadSettings resolve(
      String tableName, Map<String, String> options, SQLConf session) {
    refuseBatchRangeEnds(tableName, options);
    OptionResolver resolver =
        new OptionResolver(
            "Cannot read " + tableName + " as a stream", options, session,
            ReadOptions.SESSION_PREFIX, Map.of());
    String startSnapshot = resolver.optionOnly(StreamingReadOptionNames.START_SNAPSHOT_ID);
    return new StreamingReadSettings(
        resolver.longValue(StreamingReadOptionNames.STREAM_FROM_TIMESTAMP, null, Long.MIN_VALUE),
        startSnapshot == null
            ? null
            : resolver.parseLong(StreamingReadOptionNames.START_SNAPSHOT_ID, startSnapshot),
        resolver.intValue(StreamingReadOptionNames.MAX_FILES_PER_MICRO_BATCH, null, Integer.MAX_VALUE),
        resolver.intValue(StreamingReadOptionNames.MAX_ROWS_PER_MICRO_BATCH, null, Integer.MAX_VALUE),
        resolver.booleanValue(StreamingReadOptionNames.SKIP_DELETE_SNAPSHOTS, null, false),
        resolver.booleanValue(StreamingReadOptionNames.SKIP_OVERWRITE_SNAPSHOTS, null, false),
        resolver.longValue(StreamingReadOptionNames.SNAPSHOT_POLLING_INTERVAL_MS, null, 0L),
        overwriteMode(tableName, resolver));
  }

  /**
   * Fails the options of an incremental batch read that a stream would not honour: the commit
   * times (before batch reads took them a stream refused them as unknown options) and the end
   * snapshot (a stream has no end). {@code start-snapshot-id} is the stream's start.
   */
  private static void refuseBatchRangeEnds(String tableName, Map<String, String> options) {
    for (String key : options.keySet()) {
      for (String option :
          List.of(StreamingReadOptionNames.START_TIMESTAMP, StreamingReadOptionNames.END_TIMESTAMP)) {
        if (key.equalsIgnoreCase(option)) {
          throw new IllegalArgumentException(
              "Cannot read " + tableName + " as a stream: option '" + option + "' chooses the"
                  + " snapshots of a batch read; a stream starts at the table's oldest snapshot, after "
                  + StreamingReadOptionNames.START_SNAPSHOT_ID + " or at "
                  + StreamingReadOptionNames.STREAM_FROM_TIMESTAMP);
        }
      }
      if (key.equalsIgnoreCase(StreamingReadOptionNames.END_SNAPSHOT_ID)) {
        throw new IllegalArgumentException(
            "Cannot read " + tableName + " as a stream: option '"
                + StreamingReadOptionNames.END_SNAPSHOT_ID + "' ends a batch read, and a stream has"
                + " no end; read up to a snapshot with a batch read (spark.read with "
                + StreamingReadOptionNames.START_SNAPSHOT_ID + " and "
                + StreamingReadOptionNames.END_SNAPSHOT_ID + "), or let the stream stop at the"
                + " snapshot that is current when it starts with Trigger.AvailableNow");
      }
    }
  }

  private static StreamOverwriteMode overwriteMode(String tableName, OptionResolver resolver) {
    String value = resolver.string(StreamingReadOptionNames.STREAMING_OVERWRITE_MODE, null);
    return value == null ? StreamOverwriteMode.NONE : StreamOverwriteMode.parse(tableName, value);
  }
}
