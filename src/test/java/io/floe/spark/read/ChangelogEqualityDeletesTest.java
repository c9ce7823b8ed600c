package io.floe.spark.read;

import static io.floe.spark.read.EqualityDeleteCommits.commit;
import static io.floe.spark.read.EqualityDeleteCommits.data;
import static io.floe.spark.read.EqualityDeleteCommits.deletes;
import static io.floe.spark.read.EqualityDeleteCommits.deletionVector;
import static io.floe.spark.read.EqualityDeleteCommits.row;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static io.floe.spark.read.ReadTestSupport.positionDeletes;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.plan.ChangeTask;
import io.floe.spark.serialization.Travel;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The changelog of tables that other engines changed with equality deletes (written here with
 * Iceberg core's generic writers and committed as row deltas, as Flink commits upserts): the
 * {@code changes} table, {@code create_changelog_view} with update images and net changes, and the
 * change-feed stream. Expected rows are Spark's: the table's rows at every snapshot are first
 * checked against a model kept in Spark (each equality delete applied as a filter with Spark's
 * NULL-safe equality {@code <=>} in the delete's partition), then a snapshot's changes are its
 * parent's rows {@code EXCEPT ALL} its rows as DELETE, and the other way round as INSERT, read by
 * time travel.
 */
class ChangelogEqualityDeletesTest extends SparkTestBase {
  private static final String NAME = "ceq.t";
  private static final String TABLE = "floe." + NAME;
  private static final String TYPED_NAME = "ceq.typed";
  private static final String TYPED = "floe." + TYPED_NAME;
  private static final String TYPED_COLUMNS = "id, d, amount, ts, tn";
  // run -> micro-batch id -> its rows
  private static final Map<String, Map<Long, List<String>>> BATCHES = new ConcurrentHashMap<>();

  // the tables changeTheTable built, by format and partitioning: the tests only read them
  private static final Map<String, String> CHANGED = new ConcurrentHashMap<>();
  // Spark's changes of a range of a table, by the table and the range's first and last snapshot
  private static final Map<List<Object>, List<String>> EXPECTED = new ConcurrentHashMap<>();

  private List<Row> model = new ArrayList<>();
  private StructType schema;
  // the table this test changes and reads: its own, or one built once for the read-only tests
  private String name = NAME;
  private String table = TABLE;

  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.ceq");
  }

  @AfterEach
  void tearDown() throws TimeoutException {
    for (StreamingQuery query : spark.streams().active()) {
      query.stop();
    }
    sql("DROP TABLE IF EXISTS %s", TABLE);
    sql("DROP TABLE IF EXISTS %s", TYPED);
  }

  private void create(int formatVersion, boolean partitioned) {
    create(NAME, formatVersion, partitioned);
  }

  private void create(String tableName, int formatVersion, boolean partitioned) {
    name = tableName;
    table = "floe." + tableName;
    sql("CREATE TABLE %s (id BIGINT NOT NULL, data STRING, cat STRING) USING iceberg %s TBLPROPERTIES ("
            + "'format-version'='%d', 'write.delete.mode'='merge-on-read', "
            + "'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')",
        table, partitioned ? "PARTITIONED BY (cat)" : "", formatVersion);
    schema = spark.table(table).schema();
    model = new ArrayList<>();
  }

  /**
   * Reads, from here on, the table of this format and partitioning that {@link #changeTheTable}
   * changed: built (and checked against the model) on first use, shared by the tests that only
   * read it.
   */
  private void useChanged(int formatVersion, boolean partitioned) {
    String tableName = "ceq.changed_" + formatVersion + (partitioned ? "_p" : "_u");
    if (CHANGED.containsKey(tableName)) {
      name = tableName;
      table = "floe." + tableName;
      return;
    }
    create(tableName, formatVersion, partitioned);
    changeTheTable(formatVersion, partitioned);
    CHANGED.put(tableName, tableName);
  }

  private Table table() {
    return icebergTable(spark, name);
  }

  /** Inserts rows given as SQL VALUES, one file per partition, and adds them to the model. */
  private void insert(String values) {
    String rows = String.format("SELECT * FROM VALUES %s AS v(id, data, cat)", values);
    sql("INSERT INTO %s SELECT /*+ REPARTITION(1) */ * FROM (%s)", table, rows);
    model.addAll(spark.sql(rows).collectAsList());
    assertTheTableReadsAsTheModel();
  }

  /**
   * Commits delete and data files as one snapshot, and applies the same change to the model: rows
   * matching {@code deleted} (Spark SQL over the table's columns) go, {@code added} rows come.
   */
  private void commitAndModel(
      List<DeleteFile> deleteFiles, List<DataFile> dataFiles, String deleted, List<List<Object>> added) {
    commit(table(), deleteFiles, dataFiles);
    model(deleted, added);
  }

  /** Applies a committed change to the model and checks the table reads as the model. */
  private void model(String deleted, List<List<Object>> added) {
    spark.createDataFrame(model, schema).createOrReplaceTempView("model");
    model = new ArrayList<>(spark.sql("SELECT * FROM model WHERE NOT (" + deleted + ")").collectAsList());
    for (List<Object> values : added) {
      model.add(RowFactory.create(values.toArray()));
    }
    assertTheTableReadsAsTheModel();
  }

  /** A plain scan of the table (equality deletes applied) reads what the model holds. */
  private void assertTheTableReadsAsTheModel() {
    assertThat(sorted(sql("SELECT * FROM %s", table))).isEqualTo(sorted(model));
  }

  /** No partition values (unpartitioned), or the one value of {@code cat}. */
  private static Object[] in(boolean partitioned, String cat) {
    return partitioned ? new Object[] {cat} : new Object[0];
  }

  /** A model condition limited to partition {@code cat} when partitioned. */
  private static String scoped(boolean partitioned, String cat, String condition) {
    return partitioned ? "((" + condition + ") AND cat = '" + cat + "')" : "(" + condition + ")";
  }

  private List<Snapshot> snapshots() {
    return SnapshotHistory.ancestry(table());
  }

  private String version(Long id) {
    return SnapshotHistory.asOf(table, "id, data, cat", id);
  }

  /** Spark's changes of the snapshots, numbered from 0, computed once per table and range. */
  private List<String> expectedChanges(List<Snapshot> range) {
    List<Object> key = List.of(table, range.get(0).snapshotId(), range.get(range.size() - 1).snapshotId());
    List<String> known = EXPECTED.get(key);
    if (known == null) {
      known = computeExpectedChanges(range);
      EXPECTED.put(key, known);
    }
    return known;
  }

  /** Spark's changes of the snapshots, numbered from 0 (none of them is a compaction). */
  private List<String> computeExpectedChanges(List<Snapshot> range) {
    List<String> parts = new ArrayList<>();
    for (int ordinal = 0; ordinal < range.size(); ordinal++) {
      Snapshot snapshot = range.get(ordinal);
      String before = version(snapshot.parentId());
      String after = version(snapshot.snapshotId());
      parts.add(SnapshotHistory.changesSql(snapshot, ordinal, before, after));
    }
    return sorted(spark.sql(String.join(" UNION ALL ", parts)).collectAsList());
  }

  private static List<String> sorted(List<Row> rows) {
    return SnapshotHistory.sortedText(rows);
  }

  private List<String> changes(Map<String, String> options) {
    return sorted(spark.read().options(options).table(table + ".changes").collectAsList());
  }

  private static long summary(Snapshot snapshot, String key) {
    String value = snapshot.summary().get(key);
    return value == null ? 0 : Long.parseLong(value);
  }

  /**
   * Appends, equality deletes on one and on two columns (NULL keys among them), a later append of
   * a deleted key, merge-on-read DML, equality and position deletes in one snapshot (format 2),
   * and upserts (equality deletes and the new rows in one snapshot), twice on the same key.
   */
  private void changeTheTable(int formatVersion, boolean partitioned) {
    insert("(1L, 'a', 'x'), (2L, 'b', 'x'), (3L, 'c', 'y'), (4L, 'b', 'y'), (5L, CAST(NULL AS STRING), 'x')");
    insert("(6L, 'b', 'x'), (7L, CAST(NULL AS STRING), 'y'), (8L, 'h', 'x')");
    Table table = table();
    PartitionSpec spec = table.spec();
    // 2: one key on data, in partition x only or, unpartitioned, in every file
    commitAndModel(
        List.of(deletes(table, spec, List.of("data"), List.of(row("b")), in(partitioned, "x"))),
        List.of(), scoped(partitioned, "x", "data <=> 'b'"), List.of());
    // 3: the deleted key again, later: its rows stay
    insert("(9L, 'b', 'x'), (10L, 'b', 'y')");
    // 4: keys on two columns (NULLs match NULLs, only whole keys match), and a NULL key on one
    commitAndModel(
        List.of(
            deletes(table, spec, List.of("id", "data"),
                List.of(row(5L, null), row(8L, "zz"), row(1L, null)), in(partitioned, "x")),
            deletes(table, spec, List.of("data"), List.of(row((Object) null)), in(partitioned, "y"))),
        List.of(),
        scoped(partitioned, "x",
                "(id <=> 5 AND data <=> NULL) OR (id <=> 8 AND data <=> 'zz') OR (id <=> 1 AND data <=> NULL)")
            + " OR " + scoped(partitioned, "y", "data <=> NULL"),
        List.of());
    // 5: merge-on-read DML: a position delete file (2) or a deletion vector (3)
    sql("DELETE FROM %s WHERE id = 3", table);
    model.removeIf(r -> r.getLong(0) == 3L);
    assertTheTableReadsAsTheModel();
    // 6: an equality delete and position deletes in one snapshot, both deleting row 8
    DeleteFile equality =
        deletes(table, spec, List.of("data"), List.of(row("h")), in(partitioned, "x"));
    if (formatVersion == 2) {
      List<DeleteFile> files = new ArrayList<>(List.of(equality));
      for (Row located : sql("SELECT _file, _pos FROM %s WHERE id IN (1, 8)", table)) {
        DataFile file = dataFiles(table()).stream()
            .filter(f -> f.location().equals(located.getString(0))).findFirst().orElseThrow();
        files.add(positionDeletes(table, file, List.of(located.getLong(1))));
      }
      commitAndModel(files, List.of(), scoped(partitioned, "x", "data <=> 'h'") + " OR id IN (1, 8)", List.of());
    } else {
      commitAndModel(List.of(equality), List.of(), scoped(partitioned, "x", "data <=> 'h'"), List.of());
      sql("DELETE FROM %s WHERE id = 1", table);
      model.removeIf(r -> r.getLong(0) == 1L);
      assertTheTableReadsAsTheModel();
    }
    // an upsert of keys 9 and 10: the old rows deleted by id, the new ones added in the same snapshot
    upsert(partitioned, List.of(row(9L, "b2", "x"), row(10L, "b2", "y")));
    // and of key 9 again: the row the upsert before added is deleted now
    upsert(partitioned, List.of(row(9L, "b3", "x"), row(11L, "k", "y")));
    insert("(12L, 'l', 'y')");
  }

  /** Equality deletes on id for each row's id, in the row's partition, and the rows, in one snapshot. */
  private void upsert(boolean partitioned, List<List<Object>> rows) {
    Table table = table();
    PartitionSpec spec = table.spec();
    List<DeleteFile> deleteFiles = new ArrayList<>();
    List<DataFile> dataFiles = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (String cat : List.of("x", "y")) {
      List<List<Object>> of = rows.stream().filter(r -> !partitioned || r.get(2).equals(cat)).toList();
      if (of.isEmpty() || (!partitioned && cat.equals("y"))) {
        continue;
      }
      List<List<Object>> keys = of.stream().map(r -> row(r.get(0))).toList();
      deleteFiles.add(deletes(table, spec, List.of("id"), keys, in(partitioned, cat)));
      dataFiles.add(data(table, spec, of, in(partitioned, cat)));
      String list = String.join(", ", of.stream().map(r -> String.valueOf(r.get(0))).toList());
      ids.add(scoped(partitioned, cat, "id IN (" + list + ")"));
    }
    commitAndModel(deleteFiles, dataFiles, String.join(" OR ", ids), rows);
  }

  @ParameterizedTest(name = "format {0}, partitioned {1}")
  @CsvSource({"2, false", "2, true", "3, false", "3, true"})
  void everySnapshotWithEqualityDeletesReadsAsSparksDifferenceOfItAndItsParent(
      int formatVersion, boolean partitioned) {
    useChanged(formatVersion, partitioned);
    List<Snapshot> snapshots = snapshots();
    assertThat(snapshots).filteredOn(s -> summary(s, "added-equality-delete-files") > 0).hasSize(5);
    List<String> expected = expectedChanges(snapshots);
    assertThat(changes(Map.of())).isEqualTo(expected);

    long first = snapshots.get(2).snapshotId();
    // the equality delete of 'b' deletes the rows before it, in its partition only when partitioned
    List<String> firstDelete = new ArrayList<>(List.of("[2,b,x,DELETE,2," + first + "]", "[6,b,x,DELETE,2," + first + "]"));
    if (!partitioned) {
      firstDelete.add("[4,b,y,DELETE,2," + first + "]");
    }
    assertThat(expected).filteredOn(r -> r.endsWith("," + first + "]")).containsExactlyInAnyOrderElementsOf(firstDelete);
    // the same key appended after it stays an INSERT, until an upsert deletes it by id
    long upsert = snapshots.get(snapshots.size() - 3).snapshotId();
    assertThat(expected)
        .contains("[9,b,x,INSERT,3," + snapshots.get(3).snapshotId() + "]")
        .contains("[9,b,x,DELETE," + (snapshots.size() - 3) + "," + upsert + "]")
        .contains("[9,b2,x,INSERT," + (snapshots.size() - 3) + "," + upsert + "]");
    // a range from the middle reads the same rows of its snapshots, numbered from 0
    assertThat(changes(Map.of("start-snapshot-id", String.valueOf(snapshots.get(3).snapshotId()))))
        .isEqualTo(expectedChanges(snapshots.subList(4, snapshots.size())));
    // a filter on a column reads what Spark's filter keeps
    List<String> inY = expected.stream().filter(r -> r.split(",")[2].equals("y")).toList();
    assertThat(inY).isNotEmpty();
    assertThat(sorted(sql("SELECT * FROM %s.changes WHERE cat = 'y'", table))).isEqualTo(inY);
  }

  @Test
  void equalityDeletesOfAnUnpartitionedSpecApplyToTheFilesOfEverySpec() {
    create(2, false);
    insert("(1L, 'a', 'x'), (2L, 'b', 'x'), (3L, 'b', 'y'), (4L, 'h', 'y')");
    table().updateSpec().addField("cat").commit();
    insert("(5L, 'b', 'x'), (6L, 'h', 'x'), (7L, 'h', 'y'), (8L, 'b', 'y')");
    Table table = table();
    PartitionSpec unpartitioned = table.specs().get(0);
    assertThat(unpartitioned.isUnpartitioned()).isTrue();
    // global: every file of both specs
    commitAndModel(
        List.of(deletes(table, unpartitioned, List.of("data"), List.of(row("b")))),
        List.of(), "data <=> 'b'", List.of());
    // partition x of the new spec only: the old spec's files and partition y keep their 'h' rows
    commitAndModel(
        List.of(deletes(table, table.spec(), List.of("data"), List.of(row("h")), "x")),
        List.of(), "data <=> 'h' AND cat = 'x'", List.of());
    List<Snapshot> snapshots = snapshots();
    List<String> expected = expectedChanges(snapshots);
    assertThat(expected)
        .filteredOn(r -> r.contains("DELETE"))
        .extracting(r -> r.substring(1, r.indexOf(',')))
        .containsExactlyInAnyOrder("2", "3", "5", "8", "6");
    assertThat(changes(Map.of())).isEqualTo(expected);
  }

  @Test
  void upsertsReadAsUpdateImagesAndNetChangesInTheChangelogView() {
    create(2, true);
    insert("(1L, 'a', 'x'), (2L, 'b', 'x'), (3L, 'c', 'y')");
    upsert(true, List.of(row(1L, "a2", "x"), row(3L, "c2", "y"), row(4L, "d", "y")));
    // an equality delete without a new row for its key: a plain DELETE
    Table table = table();
    commitAndModel(List.of(deletes(table, table.spec(), List.of("id"), List.of(row(2L)), "x")),
        List.of(), "id = 2", List.of());
    upsert(true, List.of(row(1L, "a3", "x")));
    List<Snapshot> snapshots = snapshots();

    sql("CALL floe.system.create_changelog_view(table => '%s', changelog_view => 'eq_ids', "
        + "identifier_columns => array('id'))", NAME);
    String updates =
        "SELECT id, data, cat, t, %5$d AS o, %6$dL AS s FROM ("
            + "SELECT d.id, d.data, d.cat, IF(i.id IS NULL, 'DELETE', 'UPDATE_BEFORE') AS t FROM "
            + "(SELECT * FROM %1$s EXCEPT ALL SELECT * FROM %2$s) d LEFT JOIN "
            + "(SELECT * FROM %3$s EXCEPT ALL SELECT * FROM %4$s) i ON d.id = i.id UNION ALL "
            + "SELECT i.id, i.data, i.cat, IF(d.id IS NULL, 'INSERT', 'UPDATE_AFTER') AS t FROM "
            + "(SELECT * FROM %3$s EXCEPT ALL SELECT * FROM %4$s) i LEFT JOIN "
            + "(SELECT * FROM %1$s EXCEPT ALL SELECT * FROM %2$s) d ON d.id = i.id)";
    List<String> parts = new ArrayList<>();
    for (int ordinal = 0; ordinal < snapshots.size(); ordinal++) {
      Snapshot snapshot = snapshots.get(ordinal);
      String before = version(snapshot.parentId());
      String after = version(snapshot.snapshotId());
      parts.add(String.format(updates, before, after, after, before, ordinal, snapshot.snapshotId()));
    }
    List<String> expected = sorted(spark.sql(String.join(" UNION ALL ", parts)).collectAsList());
    assertThat(expected)
        .contains("[1,a,x,UPDATE_BEFORE,1," + snapshots.get(1).snapshotId() + "]")
        .contains("[1,a2,x,UPDATE_AFTER,1," + snapshots.get(1).snapshotId() + "]")
        .contains("[4,d,y,INSERT,1," + snapshots.get(1).snapshotId() + "]")
        .contains("[2,b,x,DELETE,2," + snapshots.get(2).snapshotId() + "]");
    assertThat(sorted(sql("SELECT * FROM eq_ids"))).isEqualTo(expected);

    long start = snapshots.get(0).snapshotId();
    long end = snapshots.get(snapshots.size() - 1).snapshotId();
    sql("CALL floe.system.create_changelog_view(table => '%s', changelog_view => 'eq_net', "
        + "net_changes => true, options => map('start-snapshot-id', '%d'))", NAME, start);
    String net =
        "SELECT *, 'DELETE' FROM (SELECT * FROM %1$s EXCEPT ALL SELECT * FROM %2$s) UNION ALL "
            + "SELECT *, 'INSERT' FROM (SELECT * FROM %2$s EXCEPT ALL SELECT * FROM %1$s)";
    List<String> netExpected = sorted(spark.sql(String.format(net, version(start), version(end))).collectAsList());
    assertThat(netExpected).contains("[1,a,x,DELETE]", "[1,a3,x,INSERT]").noneMatch(r -> r.contains("a2"));
    assertThat(sorted(sql("SELECT id, data, cat, _change_type FROM eq_net"))).isEqualTo(netExpected);
  }

  @Test
  void aDeletionVectorAndAnEqualityDeleteInOneSnapshotReadEachRowTheyDeleteOnce() {
    create(3, true);
    insert("(1L, 'a', 'x'), (2L, 'h', 'x'), (3L, 'b', 'x'), (4L, 'h', 'y'), (5L, 'c', 'y')");
    insert("(6L, 'h', 'x'), (7L, 'd', 'x')");
    Map<Long, Long> positions = new TreeMap<>();
    String file = null;
    for (Row located : sql("SELECT id, _file, _pos FROM %s WHERE id IN (1, 2, 3)", TABLE)) {
      positions.put(located.getLong(0), located.getLong(2));
      file = located.getString(1);
    }
    assertThat(sql("SELECT DISTINCT _file FROM %s WHERE id IN (1, 2, 3)", TABLE)).hasSize(1);
    // a merge-on-read DELETE gives the first file of x a deletion vector
    sql("DELETE FROM %s WHERE id = 3", TABLE);
    model.removeIf(r -> r.getLong(0) == 3L);
    assertTheTableReadsAsTheModel();
    Table table = table();
    List<DeleteFile> older = new ArrayList<>();
    table.currentSnapshot().addedDeleteFiles(table.io()).forEach(older::add);
    assertThat(older).singleElement().satisfies(dv -> assertThat(dv.format().name()).isEqualTo("PUFFIN"));
    String location = file;
    DataFile dataFile = dataFiles(table).stream().filter(f -> f.location().equals(location)).findFirst().orElseThrow();
    // one snapshot: that vector replaced by one that deletes rows 1 and 2 as well, and an equality
    // delete of 'h' in x, which deletes row 2 again and row 6 of the other file
    DeleteFile replacing = deletionVector(table, dataFile, List.copyOf(positions.values()));
    DeleteFile equality = deletes(table, table.spec(), List.of("data"), List.of(row("h")), "x");
    table.newRowDelta().validateFromSnapshot(table.currentSnapshot().snapshotId())
        .removeDeletes(older.get(0)).addDeletes(replacing).addDeletes(equality).commit();
    model("id IN (1, 2) OR (data <=> 'h' AND cat = 'x')", List.of());

    List<Snapshot> snapshots = snapshots();
    Snapshot both = snapshots.get(snapshots.size() - 1);
    assertThat(summary(both, "added-dvs")).isEqualTo(1);
    assertThat(summary(both, "removed-delete-files")).isEqualTo(1);
    assertThat(summary(both, "added-equality-delete-files")).isEqualTo(1);
    List<String> expected = expectedChanges(snapshots);
    String of = "," + (snapshots.size() - 1) + "," + both.snapshotId() + "]";
    assertThat(expected)
        .filteredOn(r -> r.endsWith(of))
        .containsExactlyInAnyOrder("[1,a,x,DELETE" + of, "[2,h,x,DELETE" + of, "[6,h,x,DELETE" + of);
    assertThat(changes(Map.of())).isEqualTo(expected);
    assertThat(changes(Map.of("start-snapshot-id", String.valueOf(both.parentId()))))
        .isEqualTo(expectedChanges(snapshots.subList(snapshots.size() - 1, snapshots.size())));
  }

  private static final String D1 = "DATE '2024-01-01'";
  private static final String D2 = "DATE '2024-01-02'";
  private static final String A1 = "CAST(1.50 AS DECIMAL(10,2))";
  private static final String A2 = "CAST(-2.25 AS DECIMAL(10,2))";
  private static final String T1 = "TIMESTAMP '2024-01-01 10:00:00.123456Z'";
  private static final String T2 = "TIMESTAMP '2024-06-30 23:59:59.000001Z'";
  private static final String N1 = "TIMESTAMP_NTZ '2024-01-01 10:00:00.123456'";
  private static final String N2 = "TIMESTAMP_NTZ '1969-12-31 23:59:59.5'";
  private static final String NO_D = "CAST(NULL AS DATE)";
  private static final String NO_A = "CAST(NULL AS DECIMAL(10,2))";
  private static final String NO_T = "CAST(NULL AS TIMESTAMP)";
  private static final String NO_N = "CAST(NULL AS TIMESTAMP_NTZ)";
  private static final LocalDate DAY1 = LocalDate.parse("2024-01-01");
  private static final LocalDate DAY2 = LocalDate.parse("2024-01-02");
  private static final BigDecimal AMOUNT1 = new BigDecimal("1.50");
  private static final BigDecimal AMOUNT2 = new BigDecimal("-2.25");
  private static final OffsetDateTime TS1 = OffsetDateTime.parse("2024-01-01T10:00:00.123456Z");
  private static final OffsetDateTime TS2 = OffsetDateTime.parse("2024-06-30T23:59:59.000001Z");
  private static final LocalDateTime NTZ1 = LocalDateTime.parse("2024-01-01T10:00:00.123456");
  private static final LocalDateTime NTZ2 = LocalDateTime.parse("1969-12-31T23:59:59.5");

  /** The partition of day {@code day} (NULL allowed) when partitioned by d, else no values. */
  private static Object[] onDay(boolean partitioned, LocalDate day) {
    return partitioned ? new Object[] {day == null ? null : (int) day.toEpochDay()} : new Object[0];
  }

  /** A condition over the typed table limited to the partition of {@code day} (a SQL literal or NULL). */
  private static String onDay(boolean partitioned, String day, String condition) {
    return partitioned ? "((" + condition + ") AND d <=> " + day + ")" : "(" + condition + ")";
  }

  /** Checks that the typed table reads as Spark's filter of its parent snapshot, plus added rows. */
  private static void assertTypedTableIsItsParentWithout(String deleted, String added) {
    Snapshot current = icebergTable(spark, TYPED_NAME).currentSnapshot();
    String expected = "SELECT * FROM " + SnapshotHistory.asOf(TYPED, TYPED_COLUMNS, current.parentId())
        + " WHERE NOT (" + deleted + ")" + (added.isEmpty() ? "" : " UNION ALL " + added);
    assertThat(sorted(sql("SELECT %s FROM %s", TYPED_COLUMNS, TYPED))).isEqualTo(sorted(sql(expected)));
  }

  /** Spark's changes of the typed table's snapshots, as SQL. */
  private static String typedChangesSql(List<Snapshot> range) {
    List<String> parts = new ArrayList<>();
    for (int ordinal = 0; ordinal < range.size(); ordinal++) {
      Snapshot snapshot = range.get(ordinal);
      parts.add(SnapshotHistory.changesSql(snapshot, ordinal,
          SnapshotHistory.asOf(TYPED, TYPED_COLUMNS, snapshot.parentId()),
          SnapshotHistory.asOf(TYPED, TYPED_COLUMNS, snapshot.snapshotId())));
    }
    return String.join(" UNION ALL ", parts);
  }

  @ParameterizedTest(name = "partitioned by the date key {0}")
  @ValueSource(booleans = {false, true})
  void equalityKeysOfDateDecimalAndTimestampTypesWithNullKeysReadAsSparksDifference(boolean partitioned) {
    sql("CREATE TABLE %s (id BIGINT NOT NULL, d DATE, amount DECIMAL(10,2), ts TIMESTAMP, tn TIMESTAMP_NTZ)"
        + " USING iceberg %s TBLPROPERTIES ('format-version'='2')", TYPED, partitioned ? "PARTITIONED BY (d)" : "");
    sql("INSERT INTO %s SELECT /*+ REPARTITION(1) */ * FROM VALUES "
        + String.join(", ",
            "(1L, " + D1 + ", " + A1 + ", " + T1 + ", " + N1 + ")",
            "(2L, " + D1 + ", " + NO_A + ", " + T2 + ", " + NO_N + ")",
            "(3L, " + D2 + ", " + A2 + ", " + NO_T + ", " + N2 + ")",
            "(4L, " + NO_D + ", " + A1 + ", " + T1 + ", " + N1 + ")",
            "(5L, " + D2 + ", " + NO_A + ", " + T1 + ", " + N2 + ")",
            "(6L, " + NO_D + ", " + NO_A + ", " + NO_T + ", " + NO_N + ")",
            "(7L, " + D1 + ", " + A2 + ", " + T2 + ", " + N2 + ")",
            "(8L, " + D2 + ", " + A1 + ", " + T2 + ", " + N1 + ")")
        + " AS v(%s)", TYPED, TYPED_COLUMNS);
    Table table = icebergTable(spark, TYPED_NAME);
    PartitionSpec spec = table.spec();
    // one snapshot: keys on the decimal (a NULL among them), on both timestamps, and a NULL date
    commit(table, List.of(
            deletes(table, spec, List.of("amount"), List.of(row(AMOUNT1), row((Object) null)), onDay(partitioned, DAY1)),
            deletes(table, spec, List.of("ts", "tn"), List.of(row(TS1, NTZ2), row(null, NTZ2)), onDay(partitioned, DAY2)),
            deletes(table, spec, List.of("d"), List.of(row((Object) null)), onDay(partitioned, null))),
        List.of());
    assertTypedTableIsItsParentWithout(
        onDay(partitioned, D1, "amount <=> " + A1 + " OR amount <=> NULL") + " OR "
            + onDay(partitioned, D2, "(ts <=> " + T1 + " AND tn <=> " + N2 + ") OR (ts <=> NULL AND tn <=> " + N2 + ")")
            + " OR " + onDay(partitioned, "NULL", "d <=> NULL"),
        "");
    // the deleted keys again, later: they stay
    sql("INSERT INTO %s SELECT /*+ REPARTITION(1) */ * FROM VALUES (9L, %s, %s, %s, %s), (10L, %s, %s, %s, %s),"
        + " (11L, %s, %s, %s, %s) AS v(%s)", TYPED, D1, A1, T1, N1, NO_D, NO_A, NO_T, NO_N, D2, A2, T1, N2, TYPED_COLUMNS);
    assertThat(sql("SELECT id FROM %s WHERE id >= 9", TYPED)).hasSize(3);
    // keys on the NULL-able timestamp without zone and on the timestamp, and a row of a NULL date
    // added in the same snapshot, which these deletes do not touch
    table = icebergTable(spark, TYPED_NAME);
    commit(table, List.of(
            deletes(table, spec, List.of("tn"), List.of(row((Object) null), row(NTZ1)), onDay(partitioned, null)),
            deletes(table, spec, List.of("ts"), List.of(row(TS2)), onDay(partitioned, DAY1))),
        List.of(EqualityDeleteCommits.data(table, spec, List.of(row(12L, null, AMOUNT2, TS2, null)), onDay(partitioned, null))));
    assertTypedTableIsItsParentWithout(
        onDay(partitioned, "NULL", "tn <=> NULL OR tn <=> " + N1) + " OR " + onDay(partitioned, D1, "ts <=> " + T2),
        "SELECT 12L, " + NO_D + ", " + A2 + ", " + T2 + ", " + NO_N);

    List<Snapshot> snapshots = SnapshotHistory.ancestry(icebergTable(spark, TYPED_NAME));
    assertThat(snapshots).hasSize(4);
    String expectedSql = typedChangesSql(snapshots);
    List<String> expected = sorted(sql(expectedSql));
    // NULL keys delete the rows of NULL values (row 6: NULL amount, or its NULL date), the later
    // rows of deleted keys stay until deleted again, and the row added with the deletes stays
    assertThat(expected)
        .anyMatch(r -> r.startsWith("[6,") && r.contains(",DELETE,1,"))
        .anyMatch(r -> r.startsWith("[3,") && r.contains(",DELETE,1,"))
        .anyMatch(r -> r.startsWith("[10,") && r.contains(",DELETE,3,"))
        .anyMatch(r -> r.startsWith("[12,") && r.contains(",INSERT,3,"))
        .noneMatch(r -> r.startsWith("[11,") && r.contains(",DELETE,"));
    assertThat(sorted(sql("SELECT * FROM %s.changes", TYPED))).isEqualTo(expected);
    // filters on the date and timestamp keys read what Spark's filters keep
    String onKeys = " WHERE d = " + D1 + " OR ts = " + T2 + " OR tn IS NULL";
    List<String> filtered = sorted(sql("SELECT * FROM (" + expectedSql + ") AS c(id, d, amount, ts, tn, t, o, s)" + onKeys));
    assertThat(filtered).isNotEmpty().hasSizeLessThan(expected.size());
    assertThat(sorted(sql("SELECT * FROM %s.changes%s", TYPED, onKeys))).isEqualTo(filtered);
  }

  @Test
  void theChangeFeedStreamReadsEqualityDeletesOnceAcrossARestart() throws Exception {
    create(2, true);
    Path checkpoints = Files.createTempDirectory("floe-eq-changelog-checkpoints");
    String run = checkpoints.getFileName().toString();
    BATCHES.put(run, new TreeMap<>());
    try {
      insert("(1L, 'a', 'x'), (2L, 'b', 'x'), (3L, 'c', 'y')");
      upsert(true, List.of(row(1L, "a2", "x"), row(3L, "c2", "y")));
      stream(run, checkpoints).awaitTermination();
      int first = BATCHES.get(run).size();
      Table table = table();
      commitAndModel(List.of(deletes(table, table.spec(), List.of("data"), List.of(row("b")), "x")),
          List.of(), "data <=> 'b' AND cat = 'x'", List.of());
      upsert(true, List.of(row(1L, "a3", "x")));
      stream(run, checkpoints).awaitTermination();
      assertThat(BATCHES.get(run).size()).isGreaterThan(first);
      List<String> rows = new ArrayList<>();
      BATCHES.get(run).values().forEach(rows::addAll);
      rows.sort(null);
      // a stream numbers each micro-batch's snapshots: compare without the ordinal
      List<String> expected = new ArrayList<>();
      for (String row : expectedChanges(snapshots())) {
        String[] values = row.substring(1, row.length() - 1).split(",");
        expected.add("[" + values[0] + "," + values[1] + "," + values[2] + "," + values[3] + "," + values[5] + "]");
      }
      expected.sort(null);
      assertThat(rows).isEqualTo(expected).anyMatch(r -> r.startsWith("[2,b,x,DELETE,"));
    } finally {
      BATCHES.remove(run);
      deleteRecursively(checkpoints);
    }
  }

  private static StreamingQuery stream(String run, Path checkpoints) throws TimeoutException {
    VoidFunction2<Dataset<Row>, Long> record =
        (rows, batchId) -> {
          List<String> text = new ArrayList<>();
          for (Row row : rows.select("id", "data", "cat", "_change_type", "_commit_snapshot_id").collectAsList()) {
            text.add(row.toString());
          }
          BATCHES.get(run).put(batchId, text);
        };
    return spark.readStream().table(TABLE + ".changes").writeStream()
        .option("checkpointLocation", checkpoints.resolve("q").toString())
        .trigger(Trigger.AvailableNow())
        .foreachBatch(record)
        .start();
  }

  @Test
  void tasksOfRowsDeletedByEqualityDeletesSurviveJavaAndKryoAndReadTheSameRows() throws Exception {
    useChanged(2, true);
    TableCatalog catalog = (TableCatalog) spark.sessionState().catalogManager().catalog("floe");
    SupportsRead changelog =
        (SupportsRead) catalog.loadTable(Identifier.of(new String[] {"ceq", "changed_2_p"}, "changes"));
    ChangelogScan scan =
        (ChangelogScan)
            changelog.newScanBuilder(new CaseInsensitiveStringMap(Map.of("split-size", "1"))).build();
    List<ChangeTask> tasks = new ArrayList<>();
    scan.partitions().forEach(partition -> tasks.addAll(partition.tasks()));
    assertThat(tasks).anyMatch(task -> task.deletedAfter().stream()
        .anyMatch(delete -> delete.content() == FileContent.EQUALITY_DELETES));
    List<String> expected = expectedChanges(snapshots());
    for (ChangelogScan travelled : List.of(Travel.throughJava(scan), Travel.throughKryo(scan))) {
      assertThat(travelled).isEqualTo(scan);
      List<String> rows = new ArrayList<>();
      for (ChangelogInputPartition partition : travelled.partitions()) {
        ChangelogInputPartition copy = Travel.throughKryo(partition);
        assertThat(copy).isEqualTo(partition);
        try (PartitionReader<InternalRow> reader =
            Travel.throughKryo(travelled.readerFactory()).createReader(copy)) {
          while (reader.next()) {
            InternalRow row = reader.get();
            rows.add("[" + row.getLong(0) + "," + (row.isNullAt(1) ? null : row.getUTF8String(1))
                + "," + row.getUTF8String(2) + "," + row.getUTF8String(3) + "," + row.getInt(4)
                + "," + row.getLong(5) + "]");
          }
        }
      }
      rows.sort(null);
      assertThat(rows).isEqualTo(expected);
    }
  }
}
