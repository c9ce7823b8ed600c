package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Copy-on-write DELETE, UPDATE and MERGE on format v2 and v3 tables, partitioned and not, each
 * compared with the same change computed by Spark over a temporary view of the same rows.
 */
class CopyOnWriteTest extends RowLevelTestBase {
  private static final String COLUMNS = "id BIGINT, data INT, p STRING";
  private static final String[] ROWS = {
    "(1, 10, 'a'), (2, NULL, 'a'), (3, 30, 'b'), (4, 40, NULL)",
    "(5, 50, 'a'), (6, 60, 'b'), (7, NULL, 'b'), (8, 80, 'c')",
    "(9, 90, 'c'), (10, 100, 'a'), (NULL, 110, 'b'), (12, 120, NULL)"
  };

  static List<Arguments> layouts() {
    return List.of(
        Arguments.of("2", ""),
        Arguments.of("2", "PARTITIONED BY (p)"),
        Arguments.of("3", ""),
        Arguments.of("3", "PARTITIONED BY (p)"));
  }

  private static void createTable(String version, String partitioning) {
    create(COLUMNS, partitioning + " TBLPROPERTIES ('format-version'='" + version + "')", ROWS);
  }

  @ParameterizedTest(name = "v{0} {1}")
  @MethodSource("layouts")
  void deleteByRowsKeepsRowsWhoseConditionIsNull(String version, String partitioning) {
    createTable(version, partitioning);
    long before = current().snapshotId();

    sql("DELETE FROM " + TABLE + " WHERE data > 45");

    assertTableIs("SELECT * FROM v WHERE (data > 45) IS NOT TRUE");
    Snapshot snapshot = current();
    assertThat(snapshot.parentId()).isEqualTo(before);
    assertThat(snapshot.summary()).containsKey("floe.commit-id");
    assertThat(snapshot.operation()).isIn(DataOperations.OVERWRITE, DataOperations.DELETE);
  }

  @ParameterizedTest(name = "v{0} {1}")
  @MethodSource("layouts")
  void updateChangesMatchingRowsAndCopiesTheRest(String version, String partitioning) {
    createTable(version, partitioning);

    sql("UPDATE " + TABLE + " SET data = data + 1, p = 'z' WHERE id % 3 = 0 OR data IS NULL");

    assertTableIs(
        "SELECT id, CASE WHEN (id % 3 = 0 OR data IS NULL) IS TRUE THEN data + 1 ELSE data END,"
            + " CASE WHEN (id % 3 = 0 OR data IS NULL) IS TRUE THEN 'z' ELSE p END FROM v");
  }
}
