package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

/**
 * What concurrent row-level statements must leave: the table equals the statements that committed
 * applied to the view {@code v} (the rows before them) in one serial order or another, through
 * Floe and through Iceberg's generic reader.
 */
final class SerialOrders {
  private SerialOrders() {}

  /** A statement and the same change as a query over the relation {@code {in}}. */
  record Change(String statement, String query) {
    String over(String relation) {
      return query.replace("{in}", relation);
    }
  }

  /** Asserts the table equals the committed changes applied to {@code v} in some order. */
  static void assertEqualsSomeSerialOrder(List<Change> changes, List<Boolean> committed) {
    List<Change> done = new ArrayList<>();
    for (int i = 0; i < changes.size(); i += 1) {
      if (committed.get(i)) {
        done.add(changes.get(i));
      }
    }
    List<List<String>> orders = new ArrayList<>();
    orders.add(applied(done));
    if (done.size() == 2) {
      orders.add(applied(List.of(done.get(1), done.get(0))));
    }
    assertThat(orders).as("serial orders of %s", done).contains(RowLevelTestBase.tableRows());
    assertThat(orders).contains(RowLevelTestBase.icebergRows());
  }

  private static List<String> applied(List<Change> changes) {
    String query = "SELECT * FROM v";
    for (Change change : changes) {
      query = change.over("(" + query + ")");
    }
    return RowLevelTestBase.rows(query);
  }
}
