package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each extension statement on a real session with {@code FloeSparkSessionExtensions}: its effect
 * checked through Iceberg's core API, then rows written and read back to show the new layout at
 * work. Expected rows are the same rows in a temporary view.
 */
class ExtensionDdlTest {
  private static final String TABLE = "floe.db.t";
  private static SparkSession spark;
  private static Path warehouse;

  @BeforeAll
  static void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-extensions");
    spark =
        ExtensionSessions.start(
            "floe-extensions-tests",
            Map.of(
                "spark.sql.catalog.floe", FloeCatalog.class.getName(),
                "spark.sql.catalog.floe.type", "hadoop",
                "spark.sql.catalog.floe.warehouse", warehouse.toUri().toString()));
  }

  @AfterAll
  static void stopSpark() throws IOException {
    ExtensionSessions.stop(spark, warehouse);
    spark = null;
  }

  @BeforeEach
  void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE %s (id BIGINT NOT NULL, ts TIMESTAMP, data STRING) USING iceberg", TABLE);
  }

  @AfterEach
  void dropTable() {
    sql("DROP TABLE IF EXISTS %s", TABLE);
    sql("USE spark_catalog");
  }

  private static List<Row> sql(String query, Object... args) {
    return spark.sql(String.format(query, args)).collectAsList();
  }

  private static Table icebergTable() {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    return catalog.icebergCatalog().loadTable(TableIdentifier.of("db", "t"));
  }

  /** Rows {@code from <= id < to} as a temporary view {@code name}, and appended to the table. */
  private static void insertRows(String view, int from, int to) {
    spark
        .sql(
            String.format(
                "SELECT CAST(id AS BIGINT) AS id,"
                    + " TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(id AS INT), 0, 0) AS ts,"
                    + " CONCAT('d', CAST(id %% 7 AS STRING)) AS data"
                    + " FROM range(%d, %d)",
                from, to))
        .createOrReplaceTempView(view);
    sql("INSERT INTO %s SELECT * FROM %s", TABLE, view);
  }

  private static List<Row> rows(String query) {
    return spark.sql(query).collectAsList();
  }

  private static List<DataFile> addedFiles(Table table, Snapshot snapshot) {
    List<DataFile> files = new ArrayList<>();
    snapshot.addedDataFiles(table.io()).forEach(files::add);
    return files;
  }

  @Test
  void addPartitionFieldEvolvesTheSpecAndNewWritesUseIt() {
    insertRows("before", 0, 20);
    int oldSpec = icebergTable().spec().specId();

    sql("ALTER TABLE %s ADD PARTITION FIELD bucket(4, id) AS shard", TABLE);
    sql("ALTER TABLE %s ADD PARTITION FIELD days(ts)", TABLE);

    Table table = icebergTable();
    assertThat(table.spec().fields())
        .extracting(PartitionField::name, field -> field.transform().toString())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("shard", "bucket[4]"),
            org.assertj.core.groups.Tuple.tuple("ts_day", "day"));
    insertRows("after", 20, 60);
    Table written = icebergTable();
    List<DataFile> newFiles = addedFiles(written, written.currentSnapshot());
    assertThat(newFiles).hasSizeGreaterThan(1)
        .allSatisfy(file -> assertThat(file.specId()).isEqualTo(written.spec().specId()));
    List<DataFile> oldFiles = addedFiles(written, written.snapshot(written.currentSnapshot().parentId()));
    assertThat(oldFiles).allSatisfy(file -> assertThat(file.specId()).isEqualTo(oldSpec));

    spark.sql("SELECT * FROM before UNION ALL SELECT * FROM after").createOrReplaceTempView("expected");
    assertThat(rows("SELECT * FROM " + TABLE + " ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM expected ORDER BY id"));
    String filter = " WHERE id IN (3, 33) AND ts >= TIMESTAMP '2024-01-01 00:00:00'";
    assertThat(rows("SELECT * FROM " + TABLE + filter + " ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM expected" + filter + " ORDER BY id"))
        .hasSize(2);
  }

  @Test
  void explainShowsTheStatementWithoutRunningIt() {
    Table before = icebergTable();

    for (String mode : List.of("", "EXTENDED ", "formatted ")) {
      List<Row> plan =
          spark.sql("EXPLAIN " + mode + "ALTER TABLE " + TABLE + " ADD PARTITION FIELD bucket(4, id)")
              .collectAsList();
      assertThat(plan).singleElement().satisfies(row -> assertThat(row.getString(0)).contains("bucket"));
    }
    List<Row> branch = spark.sql("EXPLAIN ALTER TABLE " + TABLE + " CREATE BRANCH explained").collectAsList();
    assertThat(branch.get(0).getString(0)).contains("explained");

    Table after = icebergTable();
    assertThat(after.spec().fields()).isEqualTo(before.spec().fields());
    assertThat(after.refs()).doesNotContainKey("explained");
  }

  @Test
  void dropAndReplacePartitionFieldsByTransformAndByName() {
    sql("ALTER TABLE %s ADD PARTITION FIELD bucket(4, id) AS shard", TABLE);
    sql("ALTER TABLE %s ADD PARTITION FIELD days(ts)", TABLE);
    sql("ALTER TABLE %s ADD PARTITION FIELD truncate(2, data)", TABLE);

    sql("ALTER TABLE %s DROP PARTITION FIELD shard", TABLE);
    sql("ALTER TABLE %s DROP PARTITION FIELD truncate(2, data)", TABLE);
    sql("ALTER TABLE %s REPLACE PARTITION FIELD days(ts) WITH hours(ts) AS hr", TABLE);

    Table table = icebergTable();
    assertThat(table.spec().fields()).extracting(PartitionField::name).containsExactly("hr");
    insertRows("rows", 0, 10);
    table = icebergTable();
    assertThat(addedFiles(table, table.currentSnapshot()))
        .hasSize(10)
        .allSatisfy(file -> assertThat(file.specId()).isEqualTo(icebergTable().spec().specId()));
    assertThat(rows("SELECT * FROM " + TABLE + " ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM rows ORDER BY id"));
  }

  @Test
  void writeOrderedBySetsTheSortOrderAndRangeDistribution() {
    sql("ALTER TABLE %s WRITE ORDERED BY data DESC NULLS FIRST, id", TABLE);

    Table table = icebergTable();
    assertThat(table.properties()).containsEntry(TableProperties.WRITE_DISTRIBUTION_MODE, "range");
    assertThat(table.sortOrder().fields())
        .extracting(SortField::direction, SortField::nullOrder)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(SortDirection.DESC, NullOrder.NULLS_FIRST),
            org.assertj.core.groups.Tuple.tuple(SortDirection.ASC, NullOrder.NULLS_FIRST));
    assertThat(table.sortOrder().fields())
        .extracting(field -> table.schema().findColumnName(field.sourceId()))
        .containsExactly("data", "id");

    insertRows("rows", 0, 50);
    Table written = icebergTable();
    assertThat(addedFiles(written, written.currentSnapshot()))
        .isNotEmpty()
        .allSatisfy(file -> assertThat(file.sortOrderId()).isEqualTo(written.sortOrder().orderId()));
    assertThat(rows("SELECT * FROM " + TABLE + " ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM rows ORDER BY id"));
    // each file holds its rows in the table's order
    List<Row> inFileOrder = rows("SELECT _file, data, id FROM " + TABLE + " ORDER BY _file, _pos");
    Map<Object, List<Row>> byFile =
        inFileOrder.stream().collect(Collectors.groupingBy(row -> row.get(0)));
    byFile.values().forEach(fileRows -> {
      List<Row> sorted = new ArrayList<>(fileRows);
      sorted.sort((a, b) -> {
        int byData = b.getString(1).compareTo(a.getString(1));
        return byData != 0 ? byData : Long.compare(a.getLong(2), b.getLong(2));
      });
      assertThat(fileRows).containsExactlyElementsOf(sorted);
    });
  }

  @Test
  void writeClausesSetTheOfficialDistributionModes() {
    sql("ALTER TABLE %s WRITE DISTRIBUTED BY PARTITION LOCALLY ORDERED BY id", TABLE);
    assertThat(icebergTable().properties()).containsEntry(TableProperties.WRITE_DISTRIBUTION_MODE, "hash");
    assertThat(icebergTable().sortOrder().isSorted()).isTrue();

    sql("ALTER TABLE %s WRITE UNORDERED", TABLE);
    assertThat(icebergTable().properties()).containsEntry(TableProperties.WRITE_DISTRIBUTION_MODE, "none");
    assertThat(icebergTable().sortOrder().isUnsorted()).isTrue();

    sql("ALTER TABLE %s WRITE LOCALLY ORDERED BY bucket(4, id) DESC", TABLE);
    assertThat(icebergTable().properties()).containsEntry(TableProperties.WRITE_DISTRIBUTION_MODE, "none");
    assertThat(icebergTable().sortOrder().fields()).extracting(field -> field.transform().toString())
        .containsExactly("bucket[4]");

    insertRows("rows", 0, 30);
    assertThat(rows("SELECT * FROM " + TABLE + " ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM rows ORDER BY id"));
  }

  @Test
  void setAndDropIdentifierFields() {
    sql("DROP TABLE %s", TABLE);
    sql("CREATE TABLE %s (id BIGINT NOT NULL, ts TIMESTAMP, data STRING NOT NULL) USING iceberg", TABLE);
    sql("ALTER TABLE %s SET IDENTIFIER FIELDS id, data", TABLE);
    assertThat(icebergTable().schema().identifierFieldNames()).containsExactlyInAnyOrder("id", "data");

    sql("ALTER TABLE %s DROP IDENTIFIER FIELDS data", TABLE);
    assertThat(icebergTable().schema().identifierFieldNames()).containsExactly("id");

    insertRows("rows", 0, 10);
    assertThat(rows("SELECT * FROM " + TABLE + " ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM rows ORDER BY id"));
  }

  @Test
  void branchesAreCreatedWrittenReplacedAndDropped() {
    insertRows("first", 0, 10);
    long first = icebergTable().currentSnapshot().snapshotId();

    sql("ALTER TABLE %s CREATE BRANCH audit RETAIN 7 DAYS WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 HOURS", TABLE);
    SnapshotRef audit = icebergTable().refs().get("audit");
    assertThat(audit.isBranch()).isTrue();
    assertThat(audit.snapshotId()).isEqualTo(first);
    assertThat(audit.maxRefAgeMs()).isEqualTo(TimeUnit.DAYS.toMillis(7));
    assertThat(audit.minSnapshotsToKeep()).isEqualTo(3);
    assertThat(audit.maxSnapshotAgeMs()).isEqualTo(TimeUnit.HOURS.toMillis(2));

    spark.sql("SELECT * FROM first WHERE id < 3").createOrReplaceTempView("extra");
    sql("INSERT INTO %s.branch_audit SELECT id + 100, ts, data FROM extra", TABLE);
    assertThat(rows("SELECT * FROM " + TABLE + ".branch_audit ORDER BY id"))
        .containsExactlyElementsOf(
            rows("SELECT * FROM first UNION ALL SELECT id + 100, ts, data FROM extra ORDER BY id"));
    assertThat(rows("SELECT * FROM " + TABLE + " ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM first ORDER BY id"));

    sql("ALTER TABLE %s CREATE BRANCH IF NOT EXISTS audit", TABLE);
    assertThat(icebergTable().refs().get("audit").snapshotId()).isNotEqualTo(first);

    sql("ALTER TABLE %s REPLACE BRANCH audit AS OF VERSION %d", TABLE, first);
    assertThat(icebergTable().refs().get("audit").snapshotId()).isEqualTo(first);
    assertThat(rows("SELECT * FROM " + TABLE + ".branch_audit ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM first ORDER BY id"));

    sql("ALTER TABLE %s CREATE OR REPLACE BRANCH fresh", TABLE);
    assertThat(icebergTable().refs().get("fresh").snapshotId()).isEqualTo(first);

    sql("ALTER TABLE %s DROP BRANCH audit", TABLE);
    sql("ALTER TABLE %s DROP BRANCH IF EXISTS audit", TABLE);
    assertThat(icebergTable().refs()).containsOnlyKeys("main", "fresh");
  }

  @Test
  void tagsPinASnapshotForReads() {
    insertRows("first", 0, 10);
    long first = icebergTable().currentSnapshot().snapshotId();
    insertRows("second", 10, 20);

    sql("ALTER TABLE %s CREATE TAG v1 AS OF VERSION %d RETAIN 2 DAYS", TABLE, first);
    SnapshotRef v1 = icebergTable().refs().get("v1");
    assertThat(v1.isTag()).isTrue();
    assertThat(v1.snapshotId()).isEqualTo(first);
    assertThat(v1.maxRefAgeMs()).isEqualTo(TimeUnit.DAYS.toMillis(2));
    assertThat(rows("SELECT * FROM " + TABLE + " VERSION AS OF 'v1' ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM first ORDER BY id"));

    sql("ALTER TABLE %s CREATE OR REPLACE TAG v1", TABLE);
    assertThat(icebergTable().refs().get("v1").snapshotId())
        .isEqualTo(icebergTable().currentSnapshot().snapshotId());
    assertThat(rows("SELECT * FROM " + TABLE + ".tag_v1 ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM first UNION ALL SELECT * FROM second ORDER BY id"));

    sql("ALTER TABLE %s DROP TAG v1", TABLE);
    assertThat(icebergTable().refs()).containsOnlyKeys("main");
  }

  @Test
  void aTableWithoutSnapshotsGetsAnEmptyBranchButNoTag() {
    sql("ALTER TABLE %s CREATE BRANCH empty", TABLE);
    assertThat(icebergTable().refs()).containsKey("empty");
    assertThatThrownBy(() -> sql("ALTER TABLE %s CREATE TAG v1", TABLE))
        .hasMessageContaining("the table has no snapshot to point tag v1 at");
    sql("INSERT INTO %s.branch_empty SELECT 1L, TIMESTAMP '2024-01-01 00:00:00', 'x'", TABLE);
    assertThat(rows("SELECT id, data FROM " + TABLE + ".branch_empty"))
        .containsExactlyElementsOf(rows("SELECT 1L AS id, 'x' AS data"));
    assertThat(rows("SELECT * FROM " + TABLE)).isEmpty();
  }

  @Test
  void variablesAreSubstitutedAsInSparksParser() {
    spark.conf().set("floe.test.table", TABLE);
    try {
      sql("ALTER TABLE ${floe.test.table} ADD PARTITION FIELD truncate(3, data)");
    } finally {
      spark.conf().unset("floe.test.table");
    }
    assertThat(icebergTable().spec().fields()).extracting(PartitionField::name).containsExactly("data_trunc_3");
  }

  @Test
  void unqualifiedNamesResolveInTheCurrentCatalogAndNamespace() {
    sql("USE floe.db");
    // column names match as Spark matches them (spark.sql.caseSensitive=false)
    sql("ALTER TABLE t ADD PARTITION FIELD BUCKET(2, ID)");
    assertThat(icebergTable().spec().fields()).extracting(PartitionField::name).containsExactly("id_bucket_2");
    String plan = spark.sql("ALTER TABLE db.t DROP PARTITION FIELD id_bucket_2").queryExecution().analyzed().toString();
    assertThat(plan).contains("Call floe_extensions.`ALTER TABLE db.t DROP PARTITION FIELD id_bucket_2`()");
    assertThat(icebergTable().spec().isUnpartitioned()).isTrue();
  }

  @Test
  void statementsSparkParsesStillGoToSpark() {
    insertRows("rows", 0, 5);
    sql("ALTER TABLE %s ADD COLUMNS (extra INT)", TABLE);
    assertThat(icebergTable().schema().findField("extra")).isNotNull();
    assertThat(rows("SELECT 'ALTER TABLE t ADD PARTITION FIELD x' AS s").get(0).getString(0))
        .isEqualTo("ALTER TABLE t ADD PARTITION FIELD x");
    assertThat(rows("SELECT count(*) FROM " + TABLE).get(0).getLong(0)).isEqualTo(5);
    assertThatThrownBy(() -> sql("ALTER TABLE %s ADD PARTITION (id = 1)", TABLE))
        .isInstanceOf(AnalysisException.class)
        .isNotInstanceOf(ParseException.class);
  }

  @Test
  void badStatementsFailWithAParseErrorNamingThePosition() {
    assertThatThrownBy(() -> sql("ALTER TABLE %s ADD PARTITION FIELD months(ts) AS m x", TABLE))
        .isInstanceOf(ParseException.class)
        .hasMessageContaining("PARSE_SYNTAX_ERROR")
        .hasMessageContaining("'x'")
        .hasMessageContaining("pos 58");
    assertThatThrownBy(() -> sql("ALTER TABLE %s ADD PARTITION FIELD squares(id)", TABLE))
        .isInstanceOf(ParseException.class)
        .hasMessageContaining("unknown transform squares");
  }

  @Test
  void badInputNamesTheCauseAndChangesNothing() {
    insertRows("rows", 0, 5);
    Table before = icebergTable();

    assertThatThrownBy(() -> sql("ALTER TABLE %s ADD PARTITION FIELD bucket(4, missing)", TABLE))
        .hasMessageContaining("Cannot ADD PARTITION FIELD bucket(4, missing) on `floe`.`db`.`t`")
        .hasMessageContaining("missing");
    assertThatThrownBy(() -> sql("ALTER TABLE %s DROP PARTITION FIELD days(ts)", TABLE))
        .hasMessageContaining("Cannot DROP PARTITION FIELD days(ts)");
    assertThatThrownBy(() -> sql("ALTER TABLE %s SET IDENTIFIER FIELDS data", TABLE))
        .hasMessageContaining("data");
    assertThatThrownBy(() -> sql("ALTER TABLE %s DROP IDENTIFIER FIELDS id", TABLE))
        .hasMessageContaining("id is not an identifier field");
    sql("ALTER TABLE %s CREATE TAG v1", TABLE);
    assertThatThrownBy(() -> sql("ALTER TABLE %s CREATE TAG v1", TABLE))
        .hasMessageContaining("v1")
        .hasMessageContaining("already exists");
    assertThatThrownBy(() -> sql("ALTER TABLE %s DROP BRANCH nope", TABLE))
        .hasMessageContaining("nope");
    assertThatThrownBy(() -> sql("ALTER TABLE floe.db.missing ADD PARTITION FIELD id"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("missing");
    assertThatThrownBy(() -> sql("ALTER TABLE %s.snapshots ADD PARTITION FIELD id", TABLE))
        .hasMessageContaining("names a branch, tag, snapshot or metadata table");

    Table after = icebergTable();
    assertThat(after.specs().keySet()).isEqualTo(before.specs().keySet());
    assertThat(after.spec().isUnpartitioned()).isTrue();
    assertThat(after.schema().identifierFieldIds()).isEqualTo(before.schema().identifierFieldIds());
    assertThat(after.refs()).containsOnlyKeys("main", "v1");
    assertThat(rows("SELECT * FROM " + TABLE + " ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM rows ORDER BY id"));
  }
}
