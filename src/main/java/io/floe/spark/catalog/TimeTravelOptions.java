package io.floe.spark.catalog;

import io.floe.spark.read.ReadOptions;
import io.floe.spark.util.OptionValues;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The time travel read options ({@code snapshot-id}, {@code as-of-timestamp} in millis, {@code
 * branch}, {@code tag}) read where a table is loaded, so the table can report the schema of the
 * snapshot it will read.
 */
public final class TimeTravelOptions {
  private TimeTravelOptions() {}

  /**
   * The version the options select as Spark's {@code loadTable(ident, version)} takes it: a
   * snapshot id, or a branch or tag name; null when they select none or select by time.
   *
   * @throws IllegalArgumentException when more than one option is set or a value does not parse
   */
  public static String version(CaseInsensitiveStringMap options) {
    List<String> set = new ArrayList<>();
    for (String key :
        List.of(
            ReadOptions.SNAPSHOT_ID,
            ReadOptions.AS_OF_TIMESTAMP,
            ReadOptions.BRANCH,
            ReadOptions.TAG)) {
      if (options.get(key) != null) {
        set.add(key);
      }
    }
    if (set.size() > 1) {
      throw new IllegalArgumentException(
          "Cannot read: set at most one of snapshot-id, as-of-timestamp, branch and tag, not " + set);
    }
    String snapshotId = options.get(ReadOptions.SNAPSHOT_ID);
    if (snapshotId != null) {
      return String.valueOf(parse(ReadOptions.SNAPSHOT_ID, snapshotId));
    }
    String branch = options.get(ReadOptions.BRANCH);
    return branch != null ? branch : options.get(ReadOptions.TAG);
  }

  /** The snapshot of a table that the options select, or null when they select none. */
  public static Long snapshotId(Table table, CaseInsensitiveStringMap options) {
    String version = version(options);
    if (version == null) {
      String timestamp = options.get(ReadOptions.AS_OF_TIMESTAMP);
      return timestamp == null ? null : SnapshotUtil.snapshotIdAsOfTime(table, millis(timestamp));
    }
    Snapshot snapshot =
        options.get(ReadOptions.SNAPSHOT_ID) != null
            ? table.snapshot(Long.parseLong(version))
            : table.snapshot(version);
    if (snapshot == null) {
      throw new IllegalArgumentException(
          "Cannot read " + table.name() + ": no snapshot, branch or tag '" + version + "'");
    }
    return snapshot.snapshotId();
  }

  /** The value of the {@code as-of-timestamp} option, milliseconds since the epoch. */
  public static long millis(String value) {
    return parse(ReadOptions.AS_OF_TIMESTAMP, value);
  }

  private static long parse(String option, String value) {
    return OptionValues.parseLong("Cannot read", option, value, "a number");
  }
}
