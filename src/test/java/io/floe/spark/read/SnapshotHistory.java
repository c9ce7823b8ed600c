package io.floe.spark.read;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Row;

/**
 * What the changelog tests compute their expected rows from: a table's snapshots along the current
 * snapshot's ancestry, and the SQL of its rows as of one of them (time travel), which Spark's
 * {@code EXCEPT ALL} of a snapshot and its parent turns into the changes.
 */
public final class SnapshotHistory {
  private SnapshotHistory() {}

  /** The snapshots of the current snapshot's ancestry, oldest first. */
  public static List<Snapshot> ancestry(Table table) {
    List<Snapshot> snapshots = new ArrayList<>();
    for (Snapshot s = table.currentSnapshot(); s != null;
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      snapshots.add(0, s);
    }
    return snapshots;
  }

  /**
   * A subquery of {@code columns} of {@code table} as of snapshot {@code id}, or of no rows when
   * {@code id} is null (the parent of the first snapshot).
   */
  public static String asOf(String table, String columns, Long id) {
    return id == null
        ? String.format("(SELECT %s FROM %s WHERE false)", columns, table)
        : String.format("(SELECT %s FROM %s VERSION AS OF %d)", columns, table, id);
  }

  /**
   * Spark's changes of one snapshot, as SQL giving rows of the {@code changes} table: what {@code
   * after} holds beyond {@code before} as INSERT and the reverse as DELETE, with the ordinal and the
   * snapshot's id.
   */
  public static String changesSql(Snapshot snapshot, int ordinal, String before, String after) {
    return String.format(
            "SELECT *, 'DELETE', %d, %dL FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)",
            ordinal, snapshot.snapshotId(), before, after)
        + " UNION ALL "
        + String.format(
            "SELECT *, 'INSERT', %d, %dL FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)",
            ordinal, snapshot.snapshotId(), after, before);
  }

  /** The rows as text, sorted: a comparison that ignores row order. */
  public static List<String> sortedText(List<Row> rows) {
    List<String> text = new ArrayList<>();
    rows.forEach(row -> text.add(row.toString()));
    text.sort(null);
    return text;
  }
}
