package io.floe.spark.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Schema freshness after ALTER TABLE without a write, and time travel by snapshot id, timestamp,
 * branch and tag through SQL and through the DataFrame read options, before and after a schema
 * change; writing to a branch with the {@code branch} write option.
 */
class TimeTravelTest extends SparkTestBase {
  /** Snapshots of {@code floe.db.travel}: ids 1; 1,2; 1,2,3 (the last after ADD COLUMN extra). */
  private static long first;
  private static long second;
  private static long third;
  private static long secondMillis;

  @BeforeAll
  static void createTable() throws InterruptedException {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.travel (id BIGINT, data STRING) USING iceberg");
    sql("INSERT INTO floe.db.travel VALUES (1, 'one')");
    first = icebergTable("db.travel").currentSnapshot().snapshotId();
    Thread.sleep(10);
    sql("INSERT INTO floe.db.travel VALUES (2, 'two')");
    Snapshot snapshot = icebergTable("db.travel").currentSnapshot();
    second = snapshot.snapshotId();
    secondMillis = snapshot.timestampMillis();
    Thread.sleep(10);
    sql("ALTER TABLE floe.db.travel ADD COLUMN extra STRING");
    sql("INSERT INTO floe.db.travel VALUES (3, 'three', 'x')");
    third = icebergTable("db.travel").currentSnapshot().snapshotId();

    Table table = icebergTable("db.travel");
    table.manageSnapshots().createBranch("early", first).createTag("two_rows", second).commit();
  }

  @Test
  void addedColumnReadsNullWithoutAWriteAndOldSnapshotKeepsItsSchema() {
    sql("CREATE TABLE floe.db.fresh (id BIGINT, data STRING) USING iceberg");
    sql("INSERT INTO floe.db.fresh VALUES (1, 'a')");
    long before = icebergTable("db.fresh").currentSnapshot().snapshotId();
    sql("ALTER TABLE floe.db.fresh ADD COLUMN email STRING");

    Dataset<Row> all = spark.sql("SELECT * FROM floe.db.fresh");
    assertThat(all.columns()).containsExactly("id", "data", "email");
    assertThat(all.collectAsList()).containsExactly(RowFactory.create(1L, "a", null));
    assertThat(sql("SELECT id FROM floe.db.fresh WHERE email IS NULL"))
        .containsExactly(RowFactory.create(1L));
    assertThat(sql("SELECT email FROM floe.db.fresh")).containsExactly(RowFactory.create((Object) null));

    Dataset<Row> old = spark.sql("SELECT * FROM floe.db.fresh VERSION AS OF " + before);
    assertThat(old.columns()).containsExactly("id", "data");
    assertThat(old.collectAsList()).containsExactly(RowFactory.create(1L, "a"));
  }

  @Test
  void renamedDroppedAndWidenedColumnsAreSeenWithoutAWrite() {
    sql("CREATE TABLE floe.db.reshaped (id INT, data STRING, gone STRING) USING iceberg");
    sql("INSERT INTO floe.db.reshaped VALUES (1, 'a', 'x')");
    long before = icebergTable("db.reshaped").currentSnapshot().snapshotId();
    sql("ALTER TABLE floe.db.reshaped RENAME COLUMN data TO label");
    sql("ALTER TABLE floe.db.reshaped DROP COLUMN gone");
    sql("ALTER TABLE floe.db.reshaped ALTER COLUMN id TYPE BIGINT");

    Dataset<Row> all = spark.sql("SELECT * FROM floe.db.reshaped");
    assertThat(all.columns()).containsExactly("id", "label");
    assertThat(all.schema().apply("id").dataType()).isEqualTo(DataTypes.LongType);
    assertThat(all.collectAsList()).containsExactly(RowFactory.create(1L, "a"));
    assertThat(sql("SELECT label FROM floe.db.reshaped WHERE label = 'a'"))
        .containsExactly(RowFactory.create("a"));

    Dataset<Row> old = spark.sql("SELECT * FROM floe.db.reshaped VERSION AS OF " + before);
    assertThat(old.columns()).containsExactly("id", "data", "gone");
    assertThat(old.collectAsList()).containsExactly(RowFactory.create(1, "a", "x"));
  }

  @Test
  void versionAsOfSnapshotIdReadsThatSnapshotWithItsSchema() {
    Dataset<Row> atFirst = spark.sql("SELECT * FROM floe.db.travel VERSION AS OF " + first);
    assertThat(atFirst.columns()).containsExactly("id", "data");
    assertThat(atFirst.collectAsList()).containsExactly(RowFactory.create(1L, "one"));

    Dataset<Row> atThird = spark.sql("SELECT * FROM floe.db.travel VERSION AS OF " + third + " ORDER BY id");
    assertThat(atThird.columns()).containsExactly("id", "data", "extra");
    assertThat(atThird.collectAsList())
        .containsExactly(
            RowFactory.create(1L, "one", null),
            RowFactory.create(2L, "two", null),
            RowFactory.create(3L, "three", "x"));
  }

  @Test
  void versionAsOfAnUnknownVersionFailsInIcebergsWords() {
    assertThatThrownBy(() -> sql("SELECT * FROM floe.db.travel VERSION AS OF 'no_such_ref'"))
        .hasMessageContaining("Cannot find matching snapshot ID or reference name for version no_such_ref")
        .hasMessageContaining("floe.db.travel");
    assertThatThrownBy(() -> sql("SELECT * FROM floe.db.travel VERSION AS OF 123456789"))
        .hasMessageContaining("Cannot find matching snapshot ID or reference name for version 123456789");
  }

  @Test
  void timestampAsOfReadsTheSnapshotCurrentAtThatTime() {
    Dataset<Row> atSecond =
        spark.sql(
            "SELECT * FROM floe.db.travel TIMESTAMP AS OF timestamp_millis(" + secondMillis + ") ORDER BY id");
    assertThat(atSecond.columns()).containsExactly("id", "data");
    assertThat(atSecond.collectAsList())
        .containsExactly(RowFactory.create(1L, "one"), RowFactory.create(2L, "two"));
  }

  @Test
  void versionAsOfBranchOrTagReadsItsSnapshot() {
    // a branch is read in the table's current schema: the column added since reads as NULL
    assertThat(sql("SELECT * FROM floe.db.travel VERSION AS OF 'early'"))
        .containsExactly(RowFactory.create(1L, "one", null));
    assertThat(sql("SELECT * FROM floe.db.travel VERSION AS OF 'two_rows' ORDER BY id"))
        .containsExactly(RowFactory.create(1L, "one"), RowFactory.create(2L, "two"));
    assertThat(sql("SELECT count(*) FROM floe.db.travel VERSION AS OF 'main'"))
        .containsExactly(RowFactory.create(3L));
  }

  @Test
  void readOptionsPickTheSnapshotToRead() {
    assertThat(ids(spark.read().option("snapshot-id", String.valueOf(first)).table("floe.db.travel")))
        .containsExactly(1L);
    assertThat(ids(spark.read().option("as-of-timestamp", String.valueOf(secondMillis)).table("floe.db.travel")))
        .containsExactly(1L, 2L);
    assertThat(ids(spark.read().option("branch", "early").table("floe.db.travel")))
        .containsExactly(1L);
    assertThat(ids(spark.read().option("tag", "two_rows").table("floe.db.travel")))
        .containsExactly(1L, 2L);
  }

  @Test
  void readOptionForAnOldSnapshotReadsItsRowsInTheReportedSchema() {
    // The catalog reports the current schema before the scan sees the option, so an older
    // snapshot's rows come back in the current schema with added columns as NULL.
    Dataset<Row> df = spark.read().option("snapshot-id", String.valueOf(first)).table("floe.db.travel");
    assertThat(df.columns()).containsExactly("id", "data", "extra");
    assertThat(df.collectAsList()).containsExactly(RowFactory.create(1L, "one", null));
  }

  @Test
  void floeFormatResolvesTimeTravelOptionsAtLoadSoAnOldSnapshotKeepsItsSchema() {
    Dataset<Row> byId =
        spark.read().format("floe").option("snapshot-id", String.valueOf(first)).load("floe.db.travel");
    assertThat(byId.columns()).containsExactly("id", "data");
    assertThat(byId.collectAsList()).containsExactly(RowFactory.create(1L, "one"));

    Dataset<Row> byTag = spark.read().format("floe").option("tag", "two_rows").load("floe.db.travel");
    assertThat(byTag.columns()).containsExactly("id", "data");
    assertThat(ids(byTag)).containsExactly(1L, 2L);

    // a branch is read in the table's current schema (Iceberg's rule), a tag or id in its snapshot's
    Dataset<Row> byBranch = spark.read().format("floe").option("branch", "early").load("floe.db.travel");
    assertThat(byBranch.columns()).containsExactly("id", "data", "extra");
    assertThat(ids(byBranch)).containsExactly(1L);

    Dataset<Row> byTime =
        spark.read().format("floe").option("as-of-timestamp", String.valueOf(secondMillis))
            .load("floe.db.travel");
    assertThat(byTime.columns()).containsExactly("id", "data");
    assertThat(ids(byTime)).containsExactly(1L, 2L);

    String location = icebergTable("db.travel").location();
    Dataset<Row> byPath =
        spark.read().format("floe").option("snapshot-id", String.valueOf(second)).load(location);
    assertThat(byPath.columns()).containsExactly("id", "data");
    assertThat(ids(byPath)).containsExactly(1L, 2L);

    Dataset<Row> current = spark.read().format("floe").load("floe.db.travel");
    assertThat(current.columns()).containsExactly("id", "data", "extra");
    assertThat(ids(current)).containsExactly(1L, 2L, 3L);
  }

  @Test
  void sparksVersionAsOfOptionKeepsTheSnapshotsSchema() {
    Dataset<Row> byId =
        spark.read().option("versionAsOf", String.valueOf(first)).table("floe.db.travel");
    assertThat(byId.columns()).containsExactly("id", "data");
    assertThat(byId.collectAsList()).containsExactly(RowFactory.create(1L, "one"));
    Dataset<Row> byBranch = spark.read().option("versionAsOf", "early").table("floe.db.travel");
    assertThat(ids(byBranch)).containsExactly(1L);
  }

  @Test
  void floeFormatWithBadTimeTravelOptionsNamesTheCause() {
    assertThatThrownBy(() -> spark.read().format("floe").option("snapshot-id", "12x")
            .load("floe.db.travel").collectAsList())
        .hasMessageContaining("option 'snapshot-id' must be a number, not '12x'");
    assertThatThrownBy(() -> spark.read().format("floe").option("tag", "two_rows")
            .option("branch", "early").load("floe.db.travel").collectAsList())
        .hasMessageContaining("set at most one of snapshot-id, as-of-timestamp, branch and tag");
    assertThatThrownBy(() -> spark.read().format("floe").option("tag", "nope")
            .load("floe.db.travel").collectAsList())
        .hasMessageContaining("nope");
    assertThatThrownBy(() -> spark.read().format("floe").load("floe.db.no_such_table"))
        .hasMessageContaining("floe.db.no_such_table");
  }

  @Test
  void floeFormatWritesToANamedTable() {
    sql("CREATE TABLE floe.db.by_format (id BIGINT, data STRING) USING iceberg");
    StructType schema = new StructType().add("id", DataTypes.LongType).add("data", DataTypes.StringType);
    spark.createDataFrame(List.of(RowFactory.create(7L, "seven")), schema)
        .write().format("floe").mode("append").save("floe.db.by_format");
    assertThat(sql("SELECT * FROM floe.db.by_format")).containsExactly(RowFactory.create(7L, "seven"));
  }

  @Test
  void aBranchIsReadInTheCurrentSchemaATagInItsSnapshots() {
    sql("CREATE TABLE floe.db.reschema (id BIGINT, c STRING) USING iceberg");
    sql("INSERT INTO floe.db.reschema VALUES (1, 'old')");
    Table table = icebergTable("db.reschema");
    long snapshot = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createBranch("a_branch", snapshot).createTag("a_tag", snapshot).commit();
    sql("ALTER TABLE floe.db.reschema DROP COLUMN c");
    sql("ALTER TABLE floe.db.reschema ADD COLUMN c STRING");

    // the re-added c is a new column: the branch's rows have no value for it
    assertThat(sql("SELECT id, c FROM floe.db.reschema VERSION AS OF 'a_branch'"))
        .containsExactly(RowFactory.create(1L, null));
    assertThat(sql("SELECT id, c FROM floe.db.reschema VERSION AS OF 'a_tag'"))
        .containsExactly(RowFactory.create(1L, "old"));
    assertThat(sql("SELECT id, c FROM floe.db.reschema VERSION AS OF " + snapshot))
        .containsExactly(RowFactory.create(1L, "old"));
    assertThat(
            spark.read().format("floe").option("branch", "a_branch").load("floe.db.reschema")
                .select("id", "c").collectAsList())
        .containsExactly(RowFactory.create(1L, null));
  }

  @Test
  void tableNameSelectorsReadSnapshotsAndWriteBranches() {
    assertThat(sql("SELECT * FROM floe.db.travel.snapshot_id_" + first))
        .containsExactly(RowFactory.create(1L, "one"));
    assertThat(sql("SELECT * FROM floe.db.travel.at_timestamp_" + secondMillis + " ORDER BY id"))
        .containsExactly(RowFactory.create(1L, "one"), RowFactory.create(2L, "two"));
    assertThat(sql("SELECT * FROM floe.db.travel.tag_two_rows ORDER BY id"))
        .containsExactly(RowFactory.create(1L, "one"), RowFactory.create(2L, "two"));

    sql("CREATE TABLE floe.db.selected (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.db.selected VALUES (1)");
    long main = icebergTable("db.selected").currentSnapshot().snapshotId();
    sql("INSERT INTO floe.db.selected.branch_dev VALUES (2)");
    sql("INSERT INTO floe.db.selected.branch_dev VALUES (3)");

    assertThat(sql("SELECT id FROM floe.db.selected")).containsExactly(RowFactory.create(1L));
    assertThat(sql("SELECT id FROM floe.db.selected.branch_dev ORDER BY id"))
        .containsExactly(RowFactory.create(1L), RowFactory.create(2L), RowFactory.create(3L));
    Table table = icebergTable("db.selected");
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(main);
    assertThat(table.refs().get("dev").isBranch()).isTrue();

    assertThatThrownBy(() -> sql("INSERT INTO floe.db.selected.tag_two_rows VALUES (4)"))
        .hasMessageContaining("floe.db.selected");
    assertThatThrownBy(() -> sql("SELECT * FROM floe.db.selected.branch_nowhere"))
        .hasMessageContaining("branch 'nowhere' does not exist");
    assertThatThrownBy(() -> sql("SELECT * FROM floe.db.selected.snapshot_id_42"))
        .hasMessageContaining("snapshot 42 does not exist");
    assertThat(sql("SELECT id FROM floe.db.selected")).containsExactly(RowFactory.create(1L));
  }

  @Test
  void writeWithBranchOptionLandsOnTheBranchOnly() throws Exception {
    sql("CREATE TABLE floe.db.branched (id BIGINT, data STRING) USING iceberg");
    sql("INSERT INTO floe.db.branched VALUES (1, 'main')");
    Table table = icebergTable("db.branched");
    long mainSnapshot = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createBranch("audit", mainSnapshot).commit();

    StructType schema = new StructType().add("id", DataTypes.LongType).add("data", DataTypes.StringType);
    spark.createDataFrame(List.of(RowFactory.create(2L, "audit")), schema)
        .writeTo("floe.db.branched")
        .option("branch", "audit")
        .append();

    assertThat(sql("SELECT * FROM floe.db.branched")).containsExactly(RowFactory.create(1L, "main"));
    assertThat(sql("SELECT * FROM floe.db.branched VERSION AS OF 'audit' ORDER BY id"))
        .containsExactly(RowFactory.create(1L, "main"), RowFactory.create(2L, "audit"));
    Table reloaded = icebergTable("db.branched");
    assertThat(reloaded.currentSnapshot().snapshotId()).isEqualTo(mainSnapshot);
    assertThat(reloaded.snapshot("audit").parentId()).isEqualTo(mainSnapshot);
  }

  // helpers

  private static List<Long> ids(Dataset<Row> df) {
    List<Long> ids = new ArrayList<>();
    for (Row row : df.select("id").orderBy("id").collectAsList()) {
      ids.add(row.getLong(0));
    }
    return ids;
  }

  private static Table icebergTable(String name) {
    FloeCatalog catalog =
        (FloeCatalog) ((SparkSession) spark).sessionState().catalogManager().catalog("floe");
    return catalog.icebergCatalog().loadTable(TableIdentifier.parse(name));
  }
}
