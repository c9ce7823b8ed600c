package io.floe.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link FloeSessionCatalog} as {@code spark_catalog}: Iceberg and parquet tables side by side
 * under unqualified names in one namespace. A subclass names the kind of Iceberg catalog behind it.
 * Each class has a SparkSession of its own, since {@code spark_catalog} is fixed when a session
 * first uses it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FloeSessionCatalogSuite {
  private SparkSession spark;
  private Path warehouse;
  private Path sparkWarehouse;

  /** The options of {@code spark.sql.catalog.spark_catalog.*}, over a warehouse folder. */
  protected abstract Map<String, String> catalogOptions(Path warehouse);

  /** Whether the Iceberg catalog renames tables. */
  protected abstract boolean supportsRename();

  @BeforeAll
  void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-session-warehouse");
    sparkWarehouse = Files.createTempDirectory("floe-session-spark-warehouse");
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName("floe-session-catalog-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.warehouse.dir", sparkWarehouse.toUri().toString())
            .config("spark.sql.catalog.spark_catalog", FloeSessionCatalog.class.getName());
    catalogOptions(warehouse)
        .forEach((key, value) -> builder.config("spark.sql.catalog.spark_catalog." + key, value));
    spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
  }

  @AfterAll
  void stopSpark() throws IOException {
    if (spark != null) {
      spark.stop();
      spark = null;
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
    SparkTestBase.deleteRecursively(warehouse);
    SparkTestBase.deleteRecursively(sparkWarehouse);
  }

  @BeforeEach
  void useFreshNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS db");
    sql("USE db");
  }

  @AfterEach
  void dropNamespace() {
    spark.conf().unset("spark.sql.sources.default");
    spark.catalog().dropTempView("ice_rows");
    spark.catalog().dropTempView("par_rows");
    sql("USE default");
    sql("DROP NAMESPACE IF EXISTS db CASCADE");
  }

  @Test
  void icebergAndParquetTablesLiveSideBySideUnderUnqualifiedNames() {
    createBoth();

    assertThat(sql("SELECT id, data FROM ice ORDER BY id"))
        .containsExactly(row(1L, "a"), row(2L, "b"));
    assertThat(sql("SELECT id, kind FROM par ORDER BY id"))
        .containsExactly(row(1L, "x"), row(3L, "y"));
    assertThat(sql("SELECT count(*) FROM spark_catalog.db.ice")).containsExactly(row(2L));
    assertThat(provider("ice")).isEqualTo("iceberg");
    assertThat(provider("par")).isEqualTo("parquet");
    assertThat(icebergCatalog().tableExists(TableIdentifier.of("db", "ice"))).isTrue();
    assertThat(builtInHas("ice")).isFalse();
    assertThat(builtInHas("par")).isTrue();
  }

  @Test
  void theIcebergCoreApiSeesOnlyTheIcebergTable() {
    createBoth();

    assertThat(icebergCatalog().listTables(Namespace.of("db")))
        .containsExactly(TableIdentifier.of("db", "ice"));
    Table table = icebergCatalog().loadTable(TableIdentifier.of("db", "ice"));
    assertThat(table.currentSnapshot().summary()).containsEntry("total-records", "2");
  }

  @Test
  void showTablesListsBothKinds() throws Exception {
    createBoth();
    sql("CREATE VIEW v AS SELECT id FROM par");

    assertThat(sql("SHOW TABLES").stream().map(r -> r.getString(1)).collect(Collectors.toList()))
        .containsExactlyInAnyOrder("ice", "par", "v");
    assertThat(sql("SHOW TABLES IN db LIKE 'i*'"))
        .extracting(r -> r.getString(1))
        .containsExactly("ice");
    assertThat(spark.catalog().listTables("db").collectAsList())
        .extracting(t -> t.name())
        .containsExactlyInAnyOrder("ice", "par", "v");
  }

  @Test
  void aJoinOfBothKindsMatchesTheSameJoinOverSparksOwnRows() {
    createBoth();
    spark
        .sql("SELECT * FROM VALUES (1L, 'a'), (2L, 'b') AS t(id, data)")
        .createOrReplaceTempView("ice_rows");
    spark
        .sql("SELECT * FROM VALUES (1L, 'x'), (3L, 'y') AS t(id, kind)")
        .createOrReplaceTempView("par_rows");
    String join =
        "SELECT coalesce(i.id, p.id) AS id, data, kind FROM %s i FULL OUTER JOIN %s p ON i.id ="
            + " p.id ORDER BY id";

    List<Row> expected = sql(join, "ice_rows", "par_rows");
    assertThat(sql(join, "ice", "par")).isEqualTo(expected);
    assertThat(expected).containsExactly(row(1L, "a", "x"), row(2L, "b", null), row(3L, null, "y"));
  }

  @Test
  void rowsMoveBetweenTheKindsUnchanged() {
    createBoth();

    sql("INSERT INTO ice SELECT id, kind FROM par");
    sql("INSERT INTO par SELECT id, data FROM ice WHERE id = 2");

    List<Row> iceRows = sql("SELECT id, data FROM ice ORDER BY id, data");
    assertThat(iceRows).containsExactly(row(1L, "a"), row(1L, "x"), row(2L, "b"), row(3L, "y"));
    assertThat(sql("SELECT id, kind FROM par ORDER BY id, kind"))
        .containsExactly(row(1L, "x"), row(2L, "b"), row(3L, "y"));
    assertThat(sql("SELECT id, kind FROM par EXCEPT SELECT id, data FROM ice")).isEmpty();
  }

  @Test
  void createTableAsSelectMakesATableOfEachKind() {
    createBoth();
    sql("CREATE TABLE ice_ctas USING iceberg PARTITIONED BY (kind) AS SELECT * FROM par");
    sql("CREATE TABLE par_ctas USING parquet AS SELECT * FROM ice");

    assertThat(provider("ice_ctas")).isEqualTo("iceberg");
    assertThat(provider("par_ctas")).isEqualTo("parquet");
    assertThat(sql("SELECT * FROM ice_ctas ORDER BY id"))
        .isEqualTo(sql("SELECT * FROM par ORDER BY id"));
    assertThat(sql("SELECT * FROM par_ctas ORDER BY id"))
        .isEqualTo(sql("SELECT * FROM ice ORDER BY id"));
    Table table = icebergCatalog().loadTable(TableIdentifier.of("db", "ice_ctas"));
    assertThat(table.spec().fields()).extracting(f -> f.name()).containsExactly("kind");
    assertThat(table.snapshots()).hasSize(1);
    assertThat(builtInHas("par_ctas")).isTrue();
    assertThat(icebergCatalog().tableExists(TableIdentifier.of("db", "par_ctas"))).isFalse();
  }

  @Test
  void createOrReplaceTableAsSelectReplacesAnIcebergTableInOneSnapshot() {
    createBoth();
    long before =
        icebergCatalog().loadTable(TableIdentifier.of("db", "ice")).currentSnapshot().snapshotId();

    sql("CREATE OR REPLACE TABLE ice USING iceberg AS SELECT id, kind AS data FROM par");

    assertThat(sql("SELECT id, data FROM ice ORDER BY id"))
        .containsExactly(row(1L, "x"), row(3L, "y"));
    Table table = icebergCatalog().loadTable(TableIdentifier.of("db", "ice"));
    assertThat(table.currentSnapshot().snapshotId()).isNotEqualTo(before);
    assertThat(table.currentSnapshot().summary()).containsEntry("total-records", "2");
    assertThat(sql("SELECT * FROM ice VERSION AS OF %d ORDER BY id", before))
        .containsExactly(row(1L, "a"), row(2L, "b"));
    long beforeMillis = table.snapshot(before).timestampMillis();
    assertThat(
            sql("SELECT * FROM ice TIMESTAMP AS OF timestamp_millis(%d) ORDER BY id", beforeMillis))
        .containsExactly(row(1L, "a"), row(2L, "b"));
  }

  @Test
  void noUsingFollowsTheDefaultSourceLikeSparksOwnCatalog() throws Exception {
    sql("CREATE TABLE plain (id BIGINT)");
    spark.range(3).writeTo("db.plain_v2").create();

    assertThat(provider("plain")).isEqualTo("parquet");
    assertThat(provider("plain_v2")).isEqualTo("parquet");
    assertThat(icebergCatalog().tableExists(TableIdentifier.of("db", "plain"))).isFalse();
    assertThat(icebergCatalog().tableExists(TableIdentifier.of("db", "plain_v2"))).isFalse();
  }

  @Test
  void usingFloeOrTheDefaultSourceCreatesAnIcebergTable() {
    sql("CREATE TABLE by_floe (id BIGINT) USING floe");
    spark.conf().set("spark.sql.sources.default", "iceberg");
    sql("CREATE TABLE by_default (id BIGINT)");
    sql("INSERT INTO by_default VALUES (7)");

    assertThat(provider("by_floe")).isEqualTo("iceberg");
    assertThat(provider("by_default")).isEqualTo("iceberg");
    assertThat(icebergCatalog().listTables(Namespace.of("db")))
        .containsExactlyInAnyOrder(
            TableIdentifier.of("db", "by_floe"), TableIdentifier.of("db", "by_default"));
    assertThat(sql("SELECT * FROM by_default")).containsExactly(row(7L));
  }

  @Test
  void theDataFrameWritersCreateAndAppendToIcebergTables() throws Exception {
    createBoth();
    spark.table("par").write().format("iceberg").saveAsTable("db.saved");
    spark.table("par").write().format("iceberg").mode("append").saveAsTable("db.saved");
    spark.table("ice").writeTo("db.written").using("iceberg").create();
    spark.table("ice").writeTo("db.written").append();

    assertThat(provider("saved")).isEqualTo("iceberg");
    assertThat(provider("written")).isEqualTo("iceberg");
    assertThat(snapshots("saved")).hasSize(2);
    assertThat(sql("SELECT id, count(*) FROM saved GROUP BY id ORDER BY id"))
        .containsExactly(row(1L, 2L), row(3L, 2L));
    assertThat(sql("SELECT count(*) FROM written")).containsExactly(row(4L));
  }

  @Test
  void icebergPartitionTransformsAreTakenByCreateTable() {
    sql(
        "CREATE TABLE events (id BIGINT, ts TIMESTAMP) USING iceberg"
            + " PARTITIONED BY (bucket(4, id), days(ts))");
    sql(
        "INSERT INTO events VALUES (1, TIMESTAMP '2024-01-01 10:00:00'),"
            + " (2, TIMESTAMP '2024-01-02 10:00:00')");

    Table table = icebergCatalog().loadTable(TableIdentifier.of("db", "events"));
    assertThat(table.spec().fields())
        .extracting(f -> f.transform().toString())
        .containsExactly("bucket[4]", "day");
    assertThat(sql("SELECT id FROM events WHERE ts >= TIMESTAMP '2024-01-02 00:00:00'"))
        .containsExactly(row(2L));
  }

  @Test
  void dropTableDropsEitherKind() {
    createBoth();

    sql("DROP TABLE ice");
    sql("DROP TABLE par");

    assertThat(sql("SHOW TABLES")).isEmpty();
    assertThat(icebergCatalog().tableExists(TableIdentifier.of("db", "ice"))).isFalse();
    assertThat(builtInHas("par")).isFalse();
    assertThatThrownBy(() -> sql("SELECT * FROM ice"))
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND");
    sql("DROP TABLE IF EXISTS ice");
  }

  @Test
  void metadataTablesOfIcebergTablesAreRead() {
    createBoth();
    sql("INSERT INTO ice VALUES (3, 'c')");

    List<Snapshot> snapshots = snapshots("ice");
    assertThat(sql("SELECT snapshot_id, operation FROM db.ice.snapshots ORDER BY committed_at"))
        .containsExactly(
            row(snapshots.get(0).snapshotId(), "append"),
            row(snapshots.get(1).snapshotId(), "append"));
    assertThat(sql("SELECT count(*) FROM spark_catalog.db.ice.files")).containsExactly(row(3L));
    assertThat(sql("SELECT count(*) FROM db.ice.history")).containsExactly(row(2L));
    assertThatThrownBy(() -> sql("SELECT * FROM db.par.snapshots"))
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND")
        .hasMessageContaining("`db`.`par`.`snapshots`");
  }

  @Test
  void alterTableChangesTheTableOfItsOwnKind() {
    createBoth();

    sql("ALTER TABLE ice ADD COLUMN score DOUBLE");
    sql("ALTER TABLE par ADD COLUMN score DOUBLE");
    sql("ALTER TABLE ice SET TBLPROPERTIES ('owner.team' = 'search')");
    sql("INSERT INTO ice VALUES (3, 'c', 0.5)");
    sql("REFRESH TABLE ice");
    sql("REFRESH TABLE par");

    Table table = icebergCatalog().loadTable(TableIdentifier.of("db", "ice"));
    assertThat(table.schema().findField("score")).isNotNull();
    assertThat(table.properties()).containsEntry("owner.team", "search");
    assertThat(sql("SELECT score FROM par")).containsOnly(row((Object) null));
    assertThat(sql("SELECT id, score FROM ice WHERE score IS NOT NULL"))
        .containsExactly(row(3L, 0.5));
  }

  @Test
  void renameServesBothKinds() {
    createBoth();

    sql("ALTER TABLE par RENAME TO par_renamed");
    assertThat(builtInHas("par_renamed")).isTrue();

    if (supportsRename()) {
      sql("ALTER TABLE ice RENAME TO ice_renamed");
      assertThat(sql("SELECT count(*) FROM ice_renamed")).containsExactly(row(2L));
      assertThat(icebergCatalog().listTables(Namespace.of("db")))
          .containsExactly(TableIdentifier.of("db", "ice_renamed"));
    } else {
      assertThatThrownBy(() -> sql("ALTER TABLE ice RENAME TO ice_renamed"))
          .hasMessageContaining(
              "Cannot rename spark_catalog.db.ice to spark_catalog.db.ice_renamed");
      assertThat(sql("SELECT count(*) FROM ice")).containsExactly(row(2L));
    }
  }

  @Test
  void viewsAreKeptInTheBuiltInCatalog() {
    createBoth();
    sql("CREATE VIEW joined AS SELECT i.id, data, kind FROM ice i JOIN par p ON i.id = p.id");

    assertThat(sql("SELECT * FROM joined")).containsExactly(row(1L, "a", "x"));
    assertThat(sql("SHOW VIEWS")).extracting(r -> r.getString(1)).containsExactly("joined");
    assertThat(builtInHas("joined")).isTrue();
    assertThat(icebergCatalog().tableExists(TableIdentifier.of("db", "joined"))).isFalse();
  }

  @Test
  void dropNamespaceCascadeDropsTheIcebergTablesInIt() {
    createBoth();
    sql("DROP TABLE par");

    assertThatThrownBy(() -> sql("DROP NAMESPACE db"))
        .hasMessageContaining("SCHEMA_NOT_EMPTY")
        .hasMessageContaining("db");
    assertThat(sql("SELECT count(*) FROM ice")).containsExactly(row(2L));

    sql("USE default");
    sql("DROP NAMESPACE db CASCADE");

    assertThat(sql("SHOW NAMESPACES")).extracting(r -> r.getString(0)).containsExactly("default");
    assertThat(icebergCatalog().tableExists(TableIdentifier.of("db", "ice"))).isFalse();
    assertThat(
            ((org.apache.iceberg.catalog.SupportsNamespaces) icebergCatalog())
                .namespaceExists(Namespace.of("db")))
        .isFalse();
  }

  // bad input: the error names the cause, and nothing changes

  @Test
  void anIcebergTableInAMissingNamespaceIsRefused() {
    assertThatThrownBy(() -> sql("CREATE TABLE nowhere.t (id BIGINT) USING iceberg"))
        .hasMessageContaining("SCHEMA_NOT_FOUND")
        .hasMessageContaining("nowhere");

    assertThat(icebergCatalog().tableExists(TableIdentifier.of("nowhere", "t"))).isFalse();
  }

  @Test
  void aNameTakenByTheOtherKindIsRefused() {
    createBoth();

    assertThatThrownBy(() -> sql("CREATE TABLE par (id BIGINT) USING iceberg"))
        .hasMessageContaining("TABLE_OR_VIEW_ALREADY_EXISTS");
    assertThatThrownBy(() -> sql("CREATE OR REPLACE TABLE par USING iceberg AS SELECT 1L AS id"))
        .hasMessageContaining("Cannot replace table spark_catalog.db.par with an Iceberg table")
        .hasMessageContaining("built-in catalog");

    assertThat(icebergCatalog().listTables(Namespace.of("db")))
        .containsExactly(TableIdentifier.of("db", "ice"));
    assertThat(provider("par")).isEqualTo("parquet");
    assertThat(sql("SELECT count(*) FROM par")).containsExactly(row(2L));
    assertThat(sql("SELECT count(*) FROM ice")).containsExactly(row(2L));
  }

  @Test
  void aCreateTableAsSelectTheBuiltInCatalogRefusesNamesTheProviderAndCreatesNothing() {
    assertThatThrownBy(() -> sql("CREATE TABLE n USING noop AS SELECT 1 AS id"))
        .hasMessageContaining("provider 'noop'");

    assertThat(sql("SHOW TABLES")).isEmpty();
    assertThat(icebergCatalog().tableExists(TableIdentifier.of("db", "n"))).isFalse();
  }

  @Test
  void aStagedTableOfTheBuiltInCatalogIsDroppedWhenSparkAborts() throws Exception {
    createBoth();
    FloeSessionCatalog catalog =
        (FloeSessionCatalog) spark.sessionState().catalogManager().catalog("spark_catalog");
    Identifier par = Identifier.of(new String[] {"db"}, "par");
    DroppedOnAbortTable staged = new DroppedOnAbortTable(catalog, par, catalog.loadTable(par));

    staged.commitStagedChanges();
    assertThat(builtInHas("par")).isTrue();
    staged.abortStagedChanges();

    assertThat(builtInHas("par")).isFalse();
    assertThat(icebergCatalog().tableExists(TableIdentifier.of("db", "ice"))).isTrue();
  }

  @Test
  void renamingAnIcebergTableToANameOfTheBuiltInCatalogIsRefused() {
    createBoth();

    assertThatThrownBy(() -> sql("ALTER TABLE ice RENAME TO par"))
        .hasMessageContaining("TABLE_OR_VIEW_ALREADY_EXISTS");

    assertThat(icebergCatalog().listTables(Namespace.of("db")))
        .containsExactly(TableIdentifier.of("db", "ice"));
    assertThat(builtInHas("par")).isTrue();
    assertThat(builtInHas("ice")).isFalse();
  }

  @Test
  void anUnknownSnapshotOfAnIcebergTableIsNamed() {
    createBoth();

    assertThatThrownBy(() -> sql("SELECT * FROM ice VERSION AS OF 'nope'"))
        .hasMessageContaining("Cannot find matching snapshot ID or reference name for version nope")
        .hasMessageContaining("'nope'");
  }

  // helpers

  private void createBoth() {
    sql("CREATE TABLE ice (id BIGINT, data STRING) USING iceberg");
    sql("CREATE TABLE par (id BIGINT, kind STRING) USING parquet");
    sql("INSERT INTO ice VALUES (1, 'a'), (2, 'b')");
    sql("INSERT INTO par VALUES (1, 'x'), (3, 'y')");
  }

  /** The Iceberg catalog behind {@code spark_catalog}. */
  protected Catalog icebergCatalog() {
    return ((FloeSessionCatalog) spark.sessionState().catalogManager().catalog("spark_catalog"))
        .icebergCatalog();
  }

  private List<Snapshot> snapshots(String table) {
    List<Snapshot> snapshots = new java.util.ArrayList<>();
    icebergCatalog().loadTable(TableIdentifier.of("db", table)).snapshots().forEach(snapshots::add);
    return snapshots;
  }

  /** Whether Spark's built-in catalog itself holds a table or view {@code db.<name>}. */
  private boolean builtInHas(String name) {
    return spark.sessionState().catalog().externalCatalog().tableExists("db", name);
  }

  /** The provider that DESCRIBE TABLE EXTENDED shows. */
  private String provider(String table) {
    Map<String, String> details =
        sql("DESCRIBE TABLE EXTENDED %s", table).stream()
            .collect(
                Collectors.toMap(r -> r.getString(0), r -> String.valueOf(r.get(1)), (a, b) -> a));
    return details.get("Provider");
  }

  private List<Row> sql(String query, Object... args) {
    return spark.sql(String.format(query, args)).collectAsList();
  }

  private static Row row(Object... values) {
    return RowFactory.create(values);
  }
}
