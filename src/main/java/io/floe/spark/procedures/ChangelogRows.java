package io.floe.spark.procedures;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * The three row transformations of {@code create_changelog_view}, each applied to one Spark
 * partition of changelog rows that are already clustered and sorted so that the rows of one group
 * are consecutive. A group is the rows whose key columns are equal (by value: binary columns by
 * their bytes). Each transformation reads one group at a time and returns what the official runtime
 * returns for it:
 *
 * <ul>
 *   <li>{@link #removeCarryovers}: groups share every column but {@code _change_type}. A group of
 *       {@code d} DELETE and {@code i} INSERT rows is the same row removed and added again in one
 *       snapshot (a copy-on-write rewrite) {@code min(d, i)} times: what is left is {@code |d - i|}
 *       rows of the more frequent type.
 *   <li>{@link #removeNetCarryovers}: groups share every table column, over all snapshots, sorted
 *       by change ordinal and then type. A run starts at a row and counts the following ones: a row
 *       of the opposite type cancels one, a row of the same type adds one; when the count reaches
 *       zero the run is over and the next row starts a new one. The last run's first row is
 *       returned as many times as its count.
 *   <li>{@link #computeUpdates}: groups share the identifier columns and the change ordinal, sorted
 *       by type (DELETE first). Identical DELETE and INSERT rows cancel in pairs, as carry-overs;
 *       then one DELETE and an INSERT left are the row before and after an update ({@code
 *       UPDATE_BEFORE}, {@code UPDATE_AFTER}). Two DELETE rows left mean the identifier columns do
 *       not identify rows, and the view fails naming them.
 * </ul>
 */
final class ChangelogRows {
  static final String INSERT = "INSERT";
  static final String DELETE = "DELETE";
  static final String UPDATE_BEFORE = "UPDATE_BEFORE";
  static final String UPDATE_AFTER = "UPDATE_AFTER";

  private ChangelogRows() {}

  /** Rows with carry-overs removed, per group of rows equal in the {@code key} columns. */
  static MapPartitionsFunction<Row, Row> removeCarryovers(int[] key, int changeType) {
    return new Grouped(key, changeType, Grouped.Kind.CARRYOVERS, null, null);
  }

  /** Net changes, per group of rows equal in the {@code key} columns. */
  static MapPartitionsFunction<Row, Row> removeNetCarryovers(int[] key, int changeType) {
    return new Grouped(key, changeType, Grouped.Kind.NET, null, null);
  }

  /**
   * Update images, per group of rows equal in the {@code key} columns (identifier columns and
   * change ordinal); {@code sameRow} are the columns that tell a carry-over (all but the change
   * type).
   */
  static MapPartitionsFunction<Row, Row> computeUpdates(
      int[] key, int changeType, int[] sameRow, String identifierNames) {
    return new Grouped(key, changeType, Grouped.Kind.UPDATES, sameRow, identifierNames);
  }

  /** One of the transformations, as Spark ships it to executors. */
  private static final class Grouped implements MapPartitionsFunction<Row, Row> {
    enum Kind {
      CARRYOVERS,
      NET,
      UPDATES
    }

    private final int[] key;
    private final int changeType;
    private final Kind kind;
    private final int[] sameRow;
    private final String identifierNames;

    Grouped(int[] key, int changeType, Kind kind, int[] sameRow, String identifierNames) {
      this.key = key.clone();
      this.changeType = changeType;
      this.kind = kind;
      this.sameRow = sameRow == null ? null : sameRow.clone();
      this.identifierNames = identifierNames;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
      Iterator<List<Row>> groups = new Groups(rows, key);
      return new Iterator<>() {
        private Iterator<Row> current = List.<Row>of().iterator();

        @Override
        public boolean hasNext() {
          while (!current.hasNext() && groups.hasNext()) {
            current = transform(groups.next()).iterator();
          }
          return current.hasNext();
        }

        @Override
        public Row next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          return current.next();
        }
      };
    }

    private List<Row> transform(List<Row> group) {
      switch (kind) {
        case CARRYOVERS:
          return carryoversRemoved(group);
        case NET:
          return net(group);
        default:
          return updates(group);
      }
    }

    private List<Row> carryoversRemoved(List<Row> group) {
      int deletes = 0;
      Row delete = null;
      Row insert = null;
      for (Row row : group) {
        if (DELETE.equals(type(row))) {
          deletes++;
          delete = delete == null ? row : delete;
        } else {
          insert = insert == null ? row : insert;
        }
      }
      int inserts = group.size() - deletes;
      List<Row> left = new ArrayList<>();
      for (int i = 0; i < Math.abs(deletes - inserts); i++) {
        left.add(deletes > inserts ? delete : insert);
      }
      return left;
    }

    private List<Row> net(List<Row> group) {
      Row first = null;
      int count = 0;
      for (Row row : group) {
        if (count <= 0) {
          first = row;
          count = 1;
        } else if (!type(first).equals(type(row))) {
          count--;
        } else {
          count++;
        }
      }
      List<Row> left = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        left.add(first);
      }
      return left;
    }

    private List<Row> updates(List<Row> group) {
      List<Row> deletes = new ArrayList<>();
      List<Row> inserts = new ArrayList<>();
      for (Row row : group) {
        (DELETE.equals(type(row)) ? deletes : inserts).add(row);
      }
      // identical DELETE and INSERT rows in one snapshot are carry-overs: they cancel in pairs
      for (Iterator<Row> it = deletes.iterator(); it.hasNext(); ) {
        Row delete = it.next();
        Row selector = project(delete, sameRow);
        for (Iterator<Row> candidates = inserts.iterator(); candidates.hasNext(); ) {
          if (selector.equals(project(candidates.next(), sameRow))) {
            candidates.remove();
            it.remove();
            break;
          }
        }
      }
      if (deletes.size() > 1) {
        throw new IllegalStateException(
            "Cannot compute updates because there are multiple rows with the same identifier"
                + " fields([" + identifierNames + "]). Please make sure the rows are unique.");
      }
      List<Row> left = new ArrayList<>();
      if (deletes.size() == 1 && !inserts.isEmpty()) {
        left.add(withType(deletes.get(0), UPDATE_BEFORE));
        left.add(withType(inserts.get(0), UPDATE_AFTER));
        left.addAll(inserts.subList(1, inserts.size()));
        return left;
      }
      left.addAll(deletes);
      left.addAll(inserts);
      return left;
    }

    private String type(Row row) {
      return Objects.requireNonNull(row.getString(changeType), "_change_type is null");
    }

    private Row withType(Row row, String type) {
      Object[] values = new Object[row.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = row.get(i);
      }
      values[changeType] = type;
      return RowFactory.create(values);
    }
  }

  /** The values of some columns of a row, as a row that compares by value. */
  static Row project(Row row, int[] columns) {
    Object[] values = new Object[columns.length];
    for (int i = 0; i < columns.length; i++) {
      values[i] = row.get(columns[i]);
    }
    return RowFactory.create(values);
  }

  /** Consecutive rows equal in the key columns, one list per group, in order. */
  private static final class Groups implements Iterator<List<Row>> {
    private final Iterator<Row> rows;
    private final int[] key;
    private Row pending;

    Groups(Iterator<Row> rows, int[] key) {
      this.rows = rows;
      this.key = key;
    }

    @Override
    public boolean hasNext() {
      return pending != null || rows.hasNext();
    }

    @Override
    public List<Row> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Row first = pending != null ? pending : rows.next();
      pending = null;
      Row groupKey = project(first, key);
      List<Row> group = new ArrayList<>();
      group.add(first);
      while (rows.hasNext()) {
        Row row = rows.next();
        if (!groupKey.equals(project(row, key))) {
          pending = row;
          break;
        }
        group.add(row);
      }
      return group;
    }
  }
}
