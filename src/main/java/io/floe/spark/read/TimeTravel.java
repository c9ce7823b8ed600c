package io.floe.spark.read;

import io.floe.spark.util.OptionValues;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Which snapshot of a table a read asks for, however it asks: SQL {@code VERSION AS OF} and
 * {@code TIMESTAMP AS OF}, or the read options {@code snapshot-id}, {@code as-of-timestamp} (millis
 * since the epoch), {@code branch} and {@code tag}, given to a scan, to {@code
 * spark.read().format("floe")} or to a path. It is parsed here and resolved against a table here,
 * with one set of messages, wherever the read is planned or the table loaded.
 *
 * @param kind how the snapshot is named
 * @param name the snapshot id, or the branch or tag name, as given; null for {@link Kind#TIMESTAMP}
 * @param timestampMillis for {@link Kind#TIMESTAMP}, the time whose current snapshot is read
 */
public record TimeTravel(Kind kind, String name, long timestampMillis) implements Serializable {
  /** How a time travel names its snapshot. */
  public enum Kind {
    /** By snapshot id ({@code snapshot-id}). */
    SNAPSHOT_ID,
    /** By the time whose current snapshot is read ({@code as-of-timestamp}, TIMESTAMP AS OF). */
    TIMESTAMP,
    /** By branch or tag name ({@code branch}, {@code tag}). */
    REF,
    /** By a snapshot id or else a branch or tag name (VERSION AS OF). */
    VERSION
  }

  /** The read options that ask for time travel, in the order messages list them. */
  private static final List<String> OPTIONS =
      List.of(ReadOptions.SNAPSHOT_ID, ReadOptions.AS_OF_TIMESTAMP, ReadOptions.BRANCH, ReadOptions.TAG);

  public TimeTravel {
    Objects.requireNonNull(kind, "kind is null");
    if ((kind == Kind.TIMESTAMP) != (name == null)) {
      throw new IllegalArgumentException(
          "Cannot time travel by " + kind + ": " + (name == null ? "no name" : "a name") + " given");
    }
  }

  /** SQL {@code VERSION AS OF version}: a snapshot id, else a branch or tag name. */
  public static TimeTravel version(String version) {
    return new TimeTravel(Kind.VERSION, Objects.requireNonNull(version, "version is null"), 0);
  }

  /** SQL {@code TIMESTAMP AS OF}, in microseconds since the epoch as Spark gives it. */
  public static TimeTravel asOfMicros(long timestampMicros) {
    return new TimeTravel(Kind.TIMESTAMP, null, TimeUnit.MICROSECONDS.toMillis(timestampMicros));
  }

  /**
   * The time travel the read options ask for, or null when they ask for none. Option names match
   * in any case.
   *
   * @throws IllegalArgumentException when more than one is set or a value does not parse
   */
  public static TimeTravel fromOptions(Map<String, String> options) {
    List<String> set = new ArrayList<>();
    String[] values = new String[OPTIONS.size()];
    for (Map.Entry<String, String> entry : options.entrySet()) {
      for (int i = 0; i < OPTIONS.size(); i++) {
        if (entry.getKey().equalsIgnoreCase(OPTIONS.get(i)) && entry.getValue() != null) {
          values[i] = entry.getValue();
        }
      }
    }
    for (int i = 0; i < OPTIONS.size(); i++) {
      if (values[i] != null) {
        set.add(OPTIONS.get(i));
      }
    }
    if (set.size() > 1) {
      throw new IllegalArgumentException(
          "Cannot read: set at most one of snapshot-id, as-of-timestamp, branch and tag, not " + set);
    }
    if (values[0] != null) {
      return new TimeTravel(
          Kind.SNAPSHOT_ID, String.valueOf(parse(ReadOptions.SNAPSHOT_ID, values[0])), 0);
    }
    if (values[1] != null) {
      return new TimeTravel(Kind.TIMESTAMP, null, parse(ReadOptions.AS_OF_TIMESTAMP, values[1]));
    }
    String ref = values[2] != null ? values[2] : values[3];
    return ref == null ? null : new TimeTravel(Kind.REF, ref, 0);
  }

  /**
   * The version to load the table at through Spark's {@code TableCatalog.loadTable(ident,
   * version)}: the snapshot id or ref name; null for a time travel by timestamp.
   */
  public String version() {
    return name;
  }

  /**
   * The id of the snapshot this selects in {@code table}.
   *
   * @throws IllegalArgumentException when the table has no such snapshot, branch or tag, or no
   *     snapshot at that time
   */
  public long snapshotId(Table table) {
    switch (kind) {
      case TIMESTAMP:
        return SnapshotUtil.snapshotIdAsOfTime(table, timestampMillis);
      case SNAPSHOT_ID:
        return found(table, table.snapshot(Long.parseLong(name)), "snapshot " + name);
      case REF:
        return found(table, table.snapshot(name), "branch or tag '" + name + "'");
      default:
        Snapshot selected =
            isSnapshotId(table, name) ? table.snapshot(Long.parseLong(name)) : table.snapshot(name);
        if (selected == null) {
          // Iceberg's words first: scripts written for the official runtime match on them
          throw new IllegalArgumentException(
              "Cannot find matching snapshot ID or reference name for version " + name
                  + ". Cannot read " + table.name() + ": snapshot, branch or tag '" + name
                  + "' does not exist");
        }
        return selected.snapshotId();
    }
  }

  /**
   * The schema a read of this time travel sees, by Iceberg's rule: a branch is read in the table's
   * current schema (it is a line of work that goes on, like main), a tag, a snapshot id or a time
   * in the schema of its snapshot.
   *
   * @throws IllegalArgumentException as {@link #snapshotId(Table)}
   */
  public Schema schema(Table table) {
    long snapshotId = snapshotId(table);
    if (kind == Kind.REF || kind == Kind.VERSION) {
      SnapshotRef ref = table.refs().get(name);
      if (ref != null && ref.isBranch() && !(kind == Kind.VERSION && isSnapshotId(table, name))) {
        return table.schema();
      }
    }
    return SnapshotUtil.schemaFor(table, snapshotId);
  }

  /** Whether VERSION AS OF {@code version} names a snapshot by id: ids win over ref names. */
  private static boolean isSnapshotId(Table table, String version) {
    return !version.isEmpty()
        && version.chars().allMatch(Character::isDigit)
        && version.length() < 20
        && table.snapshot(Long.parseLong(version)) != null;
  }

  private static long found(Table table, Snapshot snapshot, String what) {
    if (snapshot == null) {
      throw new IllegalArgumentException("Cannot read " + table.name() + ": " + what + " does not exist");
    }
    return snapshot.snapshotId();
  }

  private static long parse(String option, String value) {
    return OptionValues.parseLong("Cannot read", option, value, "a number");
  }
}
