package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code create_changelog_view} on a table changed by appends and copy-on-write DELETE, UPDATE and
 * MERGE, and the same DML merge-on-read (position deletes in format 2, deletion vectors in 3). The
 * expected rows are Spark's differences of each snapshot's rows and its parent's, read by
 * time travel: what a snapshot removed and added, less what it rewrote unchanged (the carry-overs);
 * with identifier columns, a removed and an added row of the same id are the update's two images;
 * net changes are the difference between the range's first and last state.
 */
class CreateChangelogViewTest extends ProcedureTestBase {
  private static final String NAME = "cv.t";
  private static final String TABLE = CATALOG + "." + NAME;
  // copy-on-write, changed once by changeTheTable for the tests that only read it; named t like
  // the others, so that the default view's name is the same
  private static final String SHARED_NAME = "cv_shared.t";
  private static final String SHARED = CATALOG + "." + SHARED_NAME;

  @BeforeAll
  void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS %s.cv", CATALOG);
    sql("CREATE NAMESPACE IF NOT EXISTS %s.cv_shared", CATALOG);
    sql("CREATE TABLE %s (id BIGINT NOT NULL, data STRING, cat STRING) USING iceberg PARTITIONED BY (cat)", SHARED);
    changeTheTable(SHARED);
  }

  @BeforeEach
  void create() {
    sql("CREATE TABLE %s (id BIGINT NOT NULL, data STRING, cat STRING) USING iceberg PARTITIONED BY (cat)", TABLE);
  }

  @AfterEach
  void drop() {
    sql("DROP TABLE IF EXISTS %s", TABLE);
    sql("DROP TABLE IF EXISTS %s.cv.m", CATALOG);
  }

  private static void changeTheTable() {
    changeTheTable(TABLE);
  }

  private static void changeTheTable(String table) {
    sql("INSERT INTO %s VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')", table);
    sql("INSERT INTO %s VALUES (4, 'd', 'x'), (5, 'e', 'y')", table);
    sql("DELETE FROM %s WHERE id = 2", table);
    sql("UPDATE %s SET data = 'c2' WHERE id = 3", table);
    sql("MERGE INTO %s t USING (SELECT 4L AS id, 'd2' AS data, 'x' AS cat UNION ALL "
        + "SELECT 6L, 'f', 'y') s ON t.id = s.id "
        + "WHEN MATCHED THEN UPDATE SET t.data = s.data WHEN NOT MATCHED THEN INSERT *", table);
    sql("UPDATE %s SET data = 'a2' WHERE id = 1", table);
    sql("DELETE FROM %s WHERE id = 6", table);
  }

  private static List<Snapshot> snapshots() {
    return ancestry(NAME);
  }

  private static List<Snapshot> ancestry(String name) {
    List<Snapshot> snapshots = new ArrayList<>();
    Table table = icebergTable(name);
    for (Snapshot s = table.currentSnapshot(); s != null;
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      snapshots.add(0, s);
    }
    return snapshots;
  }

  private static String version(long id) {
    return version(TABLE, id);
  }

  private static String version(String table, long id) {
    return String.format("(SELECT id, data, cat FROM %s VERSION AS OF %d)", table, id);
  }

  private static String empty(String table) {
    return String.format("(SELECT id, data, cat FROM %s WHERE false)", table);
  }

  private static String changesOf(List<Snapshot> range, int firstOrdinal, String changeRows) {
    return changesOf(TABLE, range, firstOrdinal, changeRows);
  }

  /** What each snapshot of the range removed and added, carry-overs cancelled, as SQL. */
  private static String changesOf(String table, List<Snapshot> range, int firstOrdinal, String changeRows) {
    List<String> parts = new ArrayList<>();
    int ordinal = firstOrdinal;
    for (Snapshot snapshot : range) {
      String before = snapshot.parentId() == null ? empty(table) : version(table, snapshot.parentId());
      String after = version(table, snapshot.snapshotId());
      parts.add(String.format(changeRows, before, after, after, before, ordinal, snapshot.snapshotId()));
      ordinal++;
    }
    return String.join(" UNION ALL ", parts);
  }

  /** Removed rows as DELETE, added rows as INSERT. */
  private static final String PLAIN =
      "SELECT id, data, cat, t, %5$d AS o, %6$dL AS s FROM ("
          + "SELECT *, 'DELETE' AS t FROM (SELECT * FROM %1$s EXCEPT ALL SELECT * FROM %2$s) UNION ALL "
          + "SELECT *, 'INSERT' AS t FROM (SELECT * FROM %3$s EXCEPT ALL SELECT * FROM %4$s))";

  /** Removed and added rows joined on id: both sides an update's images, else DELETE or INSERT. */
  private static final String UPDATES =
      "SELECT id, data, cat, t, %5$d AS o, %6$dL AS s FROM ("
          + "SELECT d.id, d.data, d.cat, IF(i.id IS NULL, 'DELETE', 'UPDATE_BEFORE') AS t FROM "
          + "(SELECT * FROM %1$s EXCEPT ALL SELECT * FROM %2$s) d LEFT JOIN "
          + "(SELECT * FROM %3$s EXCEPT ALL SELECT * FROM %4$s) i ON d.id = i.id UNION ALL "
          + "SELECT i.id, i.data, i.cat, IF(d.id IS NULL, 'INSERT', 'UPDATE_AFTER') AS t FROM "
          + "(SELECT * FROM %3$s EXCEPT ALL SELECT * FROM %4$s) i LEFT JOIN "
          + "(SELECT * FROM %1$s EXCEPT ALL SELECT * FROM %2$s) d ON d.id = i.id)";

  private static List<String> sorted(Dataset<Row> rows) {
    List<String> text = new ArrayList<>();
    rows.collectAsList().forEach(row -> text.add(row.toString()));
    text.sort(null);
    return text;
  }

  private static List<String> rows(String query) {
    return sorted(spark.sql(query));
  }

  @Test
  void theDefaultViewIsTheChangesWithoutCarryovers() {
    List<Snapshot> snapshots = ancestry(SHARED_NAME);
    Dataset<Row> result = call("create_changelog_view(table => '%s')", SHARED_NAME);
    assertSchema(result.schema(), column("changelog_view", DataTypes.StringType, false));
    List<Row> output = result.collectAsList();
    assertThat(output).hasSize(1);
    assertThat(output.get(0).getString(0)).isEqualTo("`t_changes`");

    List<String> expected = rows(changesOf(SHARED, snapshots, 0, PLAIN));
    assertThat(rows("SELECT * FROM t_changes")).isEqualTo(expected);
    // the raw changelog holds the carry-overs the view removed
    assertThat(spark.table(SHARED + ".changes").count()).isGreaterThan(expected.size());
  }

  @Test
  void identifierColumnsTurnADeleteAndAnInsertOfOneIdIntoUpdateImages() {
    List<Snapshot> snapshots = ancestry(SHARED_NAME);
    List<Row> output =
        call("create_changelog_view(table => '%s', changelog_view => 'by_id', "
            + "identifier_columns => array('id'))", SHARED_NAME).collectAsList();
    assertThat(output.get(0).getString(0)).isEqualTo("by_id");
    List<String> expected = rows(changesOf(SHARED, snapshots, 0, UPDATES));
    assertThat(expected).anyMatch(row -> row.contains("UPDATE_BEFORE"));
    assertThat(rows("SELECT * FROM by_id")).isEqualTo(expected);
  }

  @ParameterizedTest(name = "format {0}")
  @ValueSource(ints = {2, 3})
  void mergeOnReadDmlGivesTheSameViewsAsItsRowsDifferences(int formatVersion) {
    sql("ALTER TABLE %s SET TBLPROPERTIES ('format-version'='%d', 'write.delete.mode'='merge-on-read', "
        + "'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')", TABLE, formatVersion);
    changeTheTable();
    List<Snapshot> snapshots = snapshots();
    assertThat(snapshots).anyMatch(s -> s.summary().containsKey("added-delete-files"));
    call("create_changelog_view(table => '%s', changelog_view => 'mor_ids', "
        + "identifier_columns => array('id'))", NAME).collectAsList();
    List<String> updates = rows(changesOf(snapshots, 0, UPDATES));
    assertThat(updates).anyMatch(row -> row.contains("UPDATE_BEFORE")).anyMatch(row -> row.contains("UPDATE_AFTER"));
    assertThat(rows("SELECT * FROM mor_ids")).isEqualTo(updates);
    call("create_changelog_view(table => '%s', changelog_view => 'mor_plain')", NAME).collectAsList();
    List<String> plain = rows(changesOf(snapshots, 0, PLAIN));
    assertThat(rows("SELECT * FROM mor_plain")).isEqualTo(plain);
    // merge-on-read rewrites no unchanged row: the raw changelog has no carry-over to remove
    assertThat(rows("SELECT * FROM " + TABLE + ".changes")).isEqualTo(plain);
    long start = snapshots.get(1).snapshotId();
    long end = snapshots.get(snapshots.size() - 1).snapshotId();
    call("create_changelog_view(table => '%s', changelog_view => 'mor_net', net_changes => true, "
        + "options => map('start-snapshot-id', '%d'))", NAME, start).collectAsList();
    String net =
        "SELECT *, 'DELETE' FROM (SELECT * FROM %1$s EXCEPT ALL SELECT * FROM %2$s) UNION ALL "
            + "SELECT *, 'INSERT' FROM (SELECT * FROM %2$s EXCEPT ALL SELECT * FROM %1$s)";
    assertThat(rows("SELECT id, data, cat, _change_type FROM mor_net"))
        .isEqualTo(rows(String.format(net, version(start), version(end))))
        .isNotEmpty();
  }

  @Test
  void computeUpdatesUsesTheTablesIdentifierFieldsByDefault() {
    icebergTable(NAME).updateSchema().setIdentifierFields("id").commit();
    changeTheTable();
    List<Snapshot> snapshots = snapshots();
    call("create_changelog_view(table => '%s', changelog_view => 'ident', compute_updates => true)", NAME)
        .collectAsList();
    assertThat(rows("SELECT * FROM ident")).isEqualTo(rows(changesOf(snapshots, 0, UPDATES)));
    // without compute_updates, the table's identifier fields change nothing
    call("create_changelog_view(table => '%s', changelog_view => 'plain')", NAME).collectAsList();
    assertThat(rows("SELECT * FROM plain")).isEqualTo(rows(changesOf(snapshots, 0, PLAIN)));
  }

  @Test
  void optionsChooseTheSnapshotRange() {
    List<Snapshot> snapshots = ancestry(SHARED_NAME);
    call("create_changelog_view(table => '%s', changelog_view => 'ranged', options => "
            + "map('start-snapshot-id', '%d', 'end-snapshot-id', '%d'), identifier_columns => array('id'))",
        SHARED_NAME, snapshots.get(1).snapshotId(), snapshots.get(4).snapshotId()).collectAsList();
    assertThat(rows("SELECT * FROM ranged"))
        .isEqualTo(rows(changesOf(SHARED, snapshots.subList(2, 5), 0, UPDATES)))
        .isNotEmpty();
    call("create_changelog_view(table => '%s', changelog_view => 'timed', options => "
            + "map('start-timestamp', '%d', 'end-timestamp', '%d'))",
        SHARED_NAME, snapshots.get(1).timestampMillis(), snapshots.get(4).timestampMillis()).collectAsList();
    assertThat(rows("SELECT * FROM timed"))
        .isEqualTo(rows(changesOf(SHARED, snapshots.subList(2, 5), 0, PLAIN)));
  }

  @Test
  void netChangesAreTheDifferenceBetweenTheFirstAndTheLastState() {
    List<Snapshot> snapshots = ancestry(SHARED_NAME);
    long start = snapshots.get(1).snapshotId();
    long end = snapshots.get(snapshots.size() - 1).snapshotId();
    call("create_changelog_view(table => '%s', changelog_view => 'net_all', net_changes => true)", SHARED_NAME)
        .collectAsList();
    String net =
        "SELECT *, 'DELETE' FROM (SELECT * FROM %1$s EXCEPT ALL SELECT * FROM %2$s) UNION ALL "
            + "SELECT *, 'INSERT' FROM (SELECT * FROM %2$s EXCEPT ALL SELECT * FROM %1$s)";
    assertThat(rows("SELECT id, data, cat, _change_type FROM net_all"))
        .isEqualTo(rows(String.format(net, empty(SHARED), version(SHARED, end))));
    call("create_changelog_view(table => '%s', changelog_view => 'net_range', net_changes => true, "
            + "options => map('start-snapshot-id', '%d'))", SHARED_NAME, start).collectAsList();
    List<String> expected = rows(String.format(net, version(SHARED, start), version(SHARED, end)));
    assertThat(expected).anyMatch(row -> row.contains("DELETE")).anyMatch(row -> row.contains("INSERT"));
    assertThat(rows("SELECT id, data, cat, _change_type FROM net_range")).isEqualTo(expected);
    // every net row names the snapshot its last change came from, with that snapshot's ordinal
    for (Row row : sql("SELECT _change_ordinal, _commit_snapshot_id FROM net_range")) {
      assertThat(snapshots.get(row.getInt(0) + 2).snapshotId()).isEqualTo(row.getLong(1));
    }
  }

  @Test
  void rowsThatTheIdentifierColumnsDoNotTellApartFailTheView() {
    sql("INSERT INTO %s SELECT /*+ REPARTITION(1) */ * FROM VALUES (1L, 'a', 'x'), (1L, 'b', 'x') AS v(id, data, cat)", TABLE);
    sql("UPDATE %s SET data = concat(data, '2') WHERE id = 1", TABLE);
    call("create_changelog_view(table => '%s', changelog_view => 'dup', identifier_columns => array('id'))", NAME)
        .collectAsList();
    assertThatThrownBy(() -> spark.table("dup").collect())
        .hasStackTraceContaining(
            "Cannot compute updates because there are multiple rows with the same identifier fields([id])");
  }

  @Test
  void badArgumentsFailNamingTheCause() {
    sql("INSERT INTO %s VALUES (1, 'a', 'x')", TABLE);
    assertThatThrownBy(() -> call(
            "create_changelog_view(table => '%s', identifier_columns => array('id'), net_changes => true)", NAME))
        .hasMessageContaining("Not support net changes with update images");
    assertThatThrownBy(() -> call("create_changelog_view(table => '%s', compute_updates => true)", NAME))
        .hasMessageContaining("Cannot compute the update images because identifier columns are not set");
    assertThatThrownBy(() -> call(
            "create_changelog_view(table => '%s', identifier_columns => array('nope'))", NAME))
        .hasMessageContaining("identifier column 'nope' is not a column of");
    assertThatThrownBy(() -> call(
            "create_changelog_view(table => '%s', options => map('start-snapshot-id', '1', 'start-timestamp', '1'))",
            NAME))
        .hasMessageContaining("cannot set both start-snapshot-id and start-timestamp");
    sql("CREATE TABLE %s.cv.m (id INT NOT NULL, data MAP<STRING, STRING>) USING iceberg", CATALOG);
    assertThatThrownBy(() -> call("create_changelog_view(table => 'cv.m')"))
        .hasMessageContaining("Identifier field is required as table contains unorderable columns: [data]");
    assertThat(spark.catalog().tableExists("m_changes")).isFalse();
  }
}
