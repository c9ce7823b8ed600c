package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.View;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Views of a view catalog through {@code FloeSparkSessionExtensions}: each statement's effect
 * checked through Iceberg's core view API, and every read compared with the same query over
 * temporary views of the same rows. Subclasses give the catalog (JDBC on SQLite, REST on loopback);
 * a hadoop catalog {@code hdp} sits beside it to show the error of a catalog without views. The
 * DDL extension statements run against the same catalogs too, so that their commits are shown to
 * work through JDBC's and REST's commit paths, not only hadoop's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ViewSuite {
  private static final StructType ROWS =
      new StructType().add("id", DataTypes.LongType).add("data", DataTypes.StringType);
  private static final List<Row> DATA =
      List.of(
          RowFactory.create(1L, "a"),
          RowFactory.create(2L, "b"),
          RowFactory.create(3L, "c"),
          RowFactory.create(4L, null));

  protected SparkSession spark;
  private Path warehouse;

  /** The options of {@code spark.sql.catalog.floe.*} over a warehouse folder. */
  protected abstract Map<String, String> catalogOptions(Path warehouse);

  @BeforeAll
  void startSpark() throws Exception {
    warehouse = Files.createTempDirectory("floe-views");
    Map<String, String> conf = new HashMap<>();
    conf.put("spark.sql.catalog.floe", FloeCatalog.class.getName());
    catalogOptions(warehouse).forEach((key, value) -> conf.put("spark.sql.catalog.floe." + key, value));
    conf.put("spark.sql.catalog.hdp", FloeCatalog.class.getName());
    conf.put("spark.sql.catalog.hdp.type", "hadoop");
    conf.put("spark.sql.catalog.hdp.warehouse", warehouse.resolve("hadoop").toUri().toString());
    spark = ExtensionSessions.start(getClass().getSimpleName(), conf);
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.other");
    spark.sql("CREATE TABLE floe.db.t (id BIGINT, data STRING) USING iceberg");
    spark.createDataFrame(DATA, ROWS).writeTo("floe.db.t").append();
    spark.sql("CREATE TABLE floe.other.u (id BIGINT, score INT) USING iceberg");
    spark.sql("INSERT INTO floe.other.u VALUES (1, 10), (3, 30), (5, 50)");
    spark.createDataFrame(DATA, ROWS).createOrReplaceTempView("src");
    spark.sql("SELECT * FROM VALUES (1L, 10), (3L, 30), (5L, 50) AS x(id, score)")
        .createOrReplaceTempView("src_u");
  }

  @AfterAll
  void stopSpark() throws IOException {
    ExtensionSessions.stop(spark, warehouse);
  }

  @BeforeEach
  void useSessionCatalog() {
    spark.sql("USE spark_catalog.default");
  }

  @AfterEach
  void dropViews() {
    for (Row row : spark.sql("SHOW VIEWS IN floe.db").collectAsList()) {
      if (!row.getBoolean(2)) {
        spark.sql("DROP VIEW floe.db." + row.getString(1));
      }
    }
    spark.sql("USE spark_catalog.default");
  }

  private ViewCatalog views() {
    return (ViewCatalog)
        ((FloeCatalog) spark.sessionState().catalogManager().catalog("floe")).icebergCatalog();
  }

  private View icebergView(String name) {
    return views().loadView(TableIdentifier.of(Namespace.of("db"), name));
  }

  private boolean viewExists(String name) {
    return views().viewExists(TableIdentifier.of(Namespace.of("db"), name));
  }

  private static void assertSameRows(Dataset<Row> actual, Dataset<Row> expected) {
    assertThat(actual.schema().fieldNames()).containsExactly(expected.schema().fieldNames());
    assertThat(actual.collectAsList()).containsExactlyInAnyOrderElementsOf(expected.collectAsList());
  }

  @Test
  void createViewStoresTheOfficialLayoutAndReadsFromAnotherCatalog() {
    spark.sql("USE floe.db");
    String query = "SELECT id, data FROM t WHERE id > 1";
    spark.sql(
        "CREATE VIEW v (a COMMENT 'the id', b) COMMENT 'big ids' TBLPROPERTIES ('k' = 'x') AS "
            + query);

    View view = icebergView("v");
    SQLViewRepresentation sql = view.sqlFor("spark");
    assertThat(sql.dialect()).isEqualTo("spark");
    assertThat(sql.sql()).isEqualTo(query);
    assertThat(view.currentVersion().defaultCatalog()).isNull();
    assertThat(view.currentVersion().defaultNamespace()).isEqualTo(Namespace.of("db"));
    assertThat(view.schema().columns()).extracting(Types.NestedField::name).containsExactly("a", "b");
    assertThat(view.schema().findField("a").doc()).isEqualTo("the id");
    assertThat(view.schema().findField("a").type()).isEqualTo(Types.LongType.get());
    assertThat(view.properties())
        .containsEntry("spark.query-column-names", "id,data")
        .containsEntry("comment", "big ids")
        .containsEntry("k", "x")
        .containsEntry("create_engine_version", "Spark " + spark.version())
        .containsEntry("engine_version", "Spark " + spark.version());

    // read from the session catalog: the view's own names still resolve in floe.db
    spark.sql("USE spark_catalog.default");
    Dataset<Row> expected = spark.sql("SELECT id AS a, data AS b FROM src WHERE id > 1");
    assertSameRows(spark.sql("SELECT * FROM floe.db.v"), expected);
    assertSameRows(spark.table("floe.db.v"), expected);
    assertSameRows(
        spark.sql("SELECT b FROM floe.db.v WHERE a = 3"),
        spark.sql("SELECT data AS b FROM src WHERE id = 3"));
  }

  @Test
  void createViewFromAnotherCatalogStoresThatCatalog() {
    spark.sql("CREATE VIEW floe.db.v AS SELECT id, upper(data) AS up FROM floe.db.t");
    View view = icebergView("v");
    assertThat(view.currentVersion().defaultCatalog()).isEqualTo("spark_catalog");
    assertThat(view.currentVersion().defaultNamespace()).isEqualTo(Namespace.of("default"));
    assertSameRows(
        spark.sql("SELECT * FROM floe.db.v"), spark.sql("SELECT id, upper(data) AS up FROM src"));
  }

  @Test
  void aTemporaryViewNeverShadowsTheViewsOwnTable() {
    spark.sql("USE floe.db");
    spark.sql("CREATE VIEW v AS SELECT id FROM t");
    spark.sql("SELECT 99L AS id").createOrReplaceTempView("t");
    try {
      assertSameRows(spark.sql("SELECT * FROM floe.db.v"), spark.sql("SELECT id FROM src"));
    } finally {
      spark.catalog().dropTempView("t");
    }
  }

  @Test
  void nestedViewsWithCtesSubqueriesAndJoinsRead() {
    spark.sql("USE floe.db");
    spark.sql("CREATE VIEW base AS SELECT id, data FROM t WHERE data IS NOT NULL");
    spark.sql(
        "CREATE VIEW nested AS WITH s AS (SELECT id, score FROM other.u) "
            + "SELECT b.id, b.data, s.score FROM base b JOIN s ON b.id = s.id "
            + "WHERE b.id IN (SELECT id FROM t WHERE id < 4)");
    spark.sql("USE spark_catalog.default");
    assertSameRows(
        spark.sql("SELECT * FROM floe.db.nested"),
        spark.sql(
            "SELECT b.id, b.data, s.score FROM (SELECT * FROM src WHERE data IS NOT NULL) b "
                + "JOIN src_u s ON b.id = s.id WHERE b.id IN (SELECT id FROM src WHERE id < 4)"));
  }

  @Test
  void aViewPicksItsColumnsByNameAfterItsTableChanged() {
    spark.sql("CREATE TABLE floe.db.wide (id BIGINT, data STRING) USING iceberg");
    try {
      spark.sql("INSERT INTO floe.db.wide SELECT id, data FROM src");
      spark.sql("CREATE VIEW floe.db.v (key, value) AS SELECT * FROM floe.db.wide");
      spark.sql("ALTER TABLE floe.db.wide ADD COLUMN extra BIGINT FIRST");
      spark.sql("UPDATE floe.db.wide SET extra = id * 100");
      assertSameRows(
          spark.sql("SELECT * FROM floe.db.v"), spark.sql("SELECT id AS key, data AS value FROM src"));
    } finally {
      spark.sql("DROP TABLE floe.db.wide");
    }
  }

  @Test
  void createOrReplaceMakesANewVersionAndCreateOnAnExistingNameFails() {
    spark.sql("CREATE VIEW floe.db.v AS SELECT id FROM floe.db.t");
    int version = icebergView("v").currentVersion().versionId();

    assertThatThrownBy(() -> spark.sql("CREATE VIEW floe.db.v AS SELECT data FROM floe.db.t"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("VIEW_ALREADY_EXISTS");
    spark.sql("CREATE VIEW IF NOT EXISTS floe.db.v AS SELECT data FROM floe.db.t");
    assertThat(icebergView("v").currentVersion().versionId()).isEqualTo(version);
    assertSameRows(spark.sql("SELECT * FROM floe.db.v"), spark.sql("SELECT id FROM src"));

    spark.sql("CREATE OR REPLACE VIEW floe.db.v AS SELECT data FROM floe.db.t WHERE id < 3");
    assertThat(icebergView("v").currentVersion().versionId()).isGreaterThan(version);
    assertSameRows(
        spark.sql("SELECT * FROM floe.db.v"), spark.sql("SELECT data FROM src WHERE id < 3"));
  }

  @Test
  void alterViewAsKeepsCommentAndProperties() {
    spark.sql(
        "CREATE VIEW floe.db.v (x) COMMENT 'c' TBLPROPERTIES ('k' = 'x') AS SELECT id FROM floe.db.t");
    spark.sql("ALTER VIEW floe.db.v AS SELECT data, id FROM floe.db.t WHERE id >= 2");

    View view = icebergView("v");
    assertThat(view.sqlFor("spark").sql()).isEqualTo("SELECT data, id FROM floe.db.t WHERE id >= 2");
    assertThat(view.schema().columns()).extracting(Types.NestedField::name).containsExactly("data", "id");
    assertThat(view.properties())
        .containsEntry("comment", "c")
        .containsEntry("k", "x")
        .containsEntry("spark.query-column-names", "data,id");
    assertSameRows(
        spark.sql("SELECT * FROM floe.db.v"), spark.sql("SELECT data, id FROM src WHERE id >= 2"));
  }

  @Test
  void setAndUnsetProperties() {
    spark.sql("CREATE VIEW floe.db.v AS SELECT id FROM floe.db.t");
    spark.sql("ALTER VIEW floe.db.v SET TBLPROPERTIES ('a' = '1', 'b' = '2')");
    assertThat(icebergView("v").properties()).containsEntry("a", "1").containsEntry("b", "2");

    spark.sql("ALTER VIEW floe.db.v UNSET TBLPROPERTIES ('a')");
    assertThat(icebergView("v").properties()).doesNotContainKey("a").containsEntry("b", "2");

    assertThatThrownBy(() -> spark.sql("ALTER VIEW floe.db.v UNSET TBLPROPERTIES ('nope', 'b')"))
        .hasMessageContaining("UNSET_NONEXISTENT_PROPERTIES")
        .hasMessageContaining("nope");
    assertThat(icebergView("v").properties()).containsEntry("b", "2");
    spark.sql("ALTER VIEW floe.db.v UNSET TBLPROPERTIES IF EXISTS ('nope', 'b')");
    assertThat(icebergView("v").properties()).doesNotContainKey("b");

    assertThatThrownBy(
            () -> spark.sql("ALTER VIEW floe.db.v SET TBLPROPERTIES ('spark.query-column-names' = 'z')"))
        .hasMessageContaining("reserved property");
    assertThat(icebergView("v").properties()).containsEntry("spark.query-column-names", "id");
  }

  @Test
  void dropView() {
    spark.sql("CREATE VIEW floe.db.v AS SELECT id FROM floe.db.t");
    spark.sql("DROP VIEW floe.db.v");
    assertThat(viewExists("v")).isFalse();
    assertThatThrownBy(() -> spark.sql("DROP VIEW floe.db.v")).hasMessageContaining("VIEW_NOT_FOUND");
    spark.sql("DROP VIEW IF EXISTS floe.db.v");
    assertThatThrownBy(() -> spark.sql("DROP VIEW floe.db.t")).hasMessageContaining("DROP TABLE");
    assertThat(spark.sql("SELECT * FROM floe.db.t").count()).isEqualTo(DATA.size());
  }

  @Test
  void ddlExtensionStatementsCommitThroughThisCatalog() {
    spark.sql("CREATE TABLE floe.db.ddl (id BIGINT NOT NULL, data STRING, ts TIMESTAMP) USING iceberg");
    try {
      spark.sql("INSERT INTO floe.db.ddl VALUES (1, 'a', TIMESTAMP '2026-01-01 00:00:00')");
      spark.sql("ALTER TABLE floe.db.ddl ADD PARTITION FIELD days(ts)");
      spark.sql("ALTER TABLE floe.db.ddl WRITE ORDERED BY id DESC");
      spark.sql("ALTER TABLE floe.db.ddl SET IDENTIFIER FIELDS id");
      spark.sql("ALTER TABLE floe.db.ddl CREATE TAG first");
      spark.sql("ALTER TABLE floe.db.ddl CREATE BRANCH dev");
      spark.sql("INSERT INTO floe.db.ddl.branch_dev VALUES (2, 'b', TIMESTAMP '2026-01-02 00:00:00')");

      org.apache.iceberg.Table table =
          ((FloeCatalog) spark.sessionState().catalogManager().catalog("floe"))
              .icebergCatalog()
              .loadTable(TableIdentifier.of(Namespace.of("db"), "ddl"));
      assertThat(table.spec().fields()).singleElement()
          .satisfies(field -> assertThat(field.transform().toString()).isEqualTo("day"));
      assertThat(table.sortOrder().fields()).singleElement()
          .satisfies(field -> assertThat(field.direction().toString()).isEqualTo("DESC"));
      assertThat(table.schema().identifierFieldNames()).containsExactly("id");
      assertThat(table.refs()).containsKeys("main", "first", "dev");
      assertThat(table.refs().get("dev").snapshotId()).isNotEqualTo(table.refs().get("main").snapshotId());
      assertSameRows(
          spark.sql("SELECT id, data FROM floe.db.ddl.branch_dev"),
          spark.sql("SELECT * FROM VALUES (1L, 'a'), (2L, 'b') AS x(id, data)"));
      assertSameRows(
          spark.sql("SELECT id, data FROM floe.db.ddl.tag_first"),
          spark.sql("SELECT * FROM VALUES (1L, 'a') AS x(id, data)"));
    } finally {
      spark.sql("DROP TABLE floe.db.ddl");
    }
  }

  @Test
  void renameViewKeepsItsDefinitionAndRefusesAnotherCatalog() {
    spark.sql("CREATE VIEW floe.db.v COMMENT 'kept' AS SELECT id FROM floe.db.t WHERE id > 1");
    Dataset<Row> expected = spark.sql("SELECT id FROM src WHERE id > 1");

    spark.sql("ALTER VIEW floe.db.v RENAME TO db.renamed");

    assertThat(viewExists("v")).isFalse();
    assertThat(icebergView("renamed").properties()).containsEntry("comment", "kept");
    assertSameRows(spark.sql("SELECT * FROM floe.db.renamed"), expected);
    assertThatThrownBy(() -> spark.sql("ALTER VIEW floe.db.renamed RENAME TO hdp.db.moved"))
        .hasMessageContaining("another catalog");
    assertThat(viewExists("renamed")).isTrue();
  }

  @Test
  void explainOfAViewStatementShowsTheCommandAndChangesNothing() {
    List<Row> plan =
        spark.sql("EXPLAIN CREATE VIEW floe.db.explained AS SELECT id FROM floe.db.t").collectAsList();

    assertThat(plan).singleElement().satisfies(row -> assertThat(row.getString(0)).contains("CREATE VIEW"));
    assertThat(viewExists("explained")).isFalse();
  }

  @Test
  void showViewsListsTheNamespacesViewsAndTemporaryViews() {
    spark.sql("CREATE VIEW floe.db.v1 AS SELECT id FROM floe.db.t");
    spark.sql("CREATE VIEW floe.db.w1 AS SELECT id FROM floe.db.t");
    List<Row> rows = spark.sql("SHOW VIEWS IN floe.db").collectAsList();
    assertThat(rows)
        .contains(RowFactory.create("db", "v1", false), RowFactory.create("db", "w1", false))
        .contains(RowFactory.create("", "src", true))
        .noneMatch(row -> row.getString(1).equals("t"));
    assertThat(spark.sql("SHOW VIEWS IN floe.db LIKE 'v*'").collectAsList())
        .containsExactly(RowFactory.create("db", "v1", false));
    spark.sql("USE floe.db");
    assertThat(spark.sql("SHOW VIEWS").collectAsList()).contains(RowFactory.create("db", "w1", false));
    assertThat(spark.sql("SHOW VIEWS IN floe.db").schema().fieldNames())
        .containsExactly("namespace", "viewName", "isTemporary");
  }

  @Test
  void showCreateTableGivesAStatementThatRecreatesTheView() {
    spark.sql(
        "CREATE VIEW floe.db.v (a COMMENT 'it''s the id', b) COMMENT 'c' TBLPROPERTIES ('k' = 'x')"
            + " AS SELECT id, data FROM floe.db.t WHERE id > 1");
    String statement = spark.sql("SHOW CREATE TABLE floe.db.v").first().getString(0);
    assertThat(statement)
        .startsWith("CREATE VIEW floe.db.v (")
        .contains("a COMMENT 'it\\'s the id'")
        .contains("COMMENT 'c'")
        .contains("'k' = 'x'")
        .contains("SELECT id, data FROM floe.db.t WHERE id > 1");
    Dataset<Row> before = spark.sql("SELECT * FROM floe.db.v");
    List<Row> rows = before.collectAsList();
    spark.sql("DROP VIEW floe.db.v");
    spark.sql(statement);
    assertThat(icebergView("v").schema().findField("a").doc()).isEqualTo("it's the id");
    assertThat(spark.sql("SELECT * FROM floe.db.v").collectAsList()).containsExactlyInAnyOrderElementsOf(rows);
  }

  @Test
  void describeShowsColumnsAndWithExtendedTheViewInformation() {
    spark.sql("USE floe.db");
    spark.sql("CREATE VIEW v (a COMMENT 'the id', b) COMMENT 'c' AS SELECT id, data FROM t");
    assertThat(spark.sql("DESCRIBE floe.db.v").collectAsList())
        .containsExactly(RowFactory.create("a", "bigint", "the id"), RowFactory.create("b", "string", ""));
    List<Row> extended = spark.sql("DESCRIBE EXTENDED v").collectAsList();
    assertThat(extended)
        .contains(
            RowFactory.create("Comment", "c", ""),
            RowFactory.create("View Catalog and Namespace", "floe.db", ""),
            RowFactory.create("View Query Output Columns", "[id, data]", ""),
            RowFactory.create("Created By", "Spark " + spark.version(), ""));
    // DESCRIBE of a table is still Spark's own
    assertThat(spark.sql("DESCRIBE floe.db.t").collectAsList())
        .contains(RowFactory.create("id", "bigint", null));
  }

  @Test
  void aViewOverAMissingTableFailsNamingItAndCreatesNothing() {
    assertThatThrownBy(() -> spark.sql("CREATE VIEW floe.db.v AS SELECT * FROM floe.db.missing"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND")
        .hasMessageContaining("missing");
    assertThat(viewExists("v")).isFalse();
  }

  @Test
  void temporaryViewsAndFunctionsAreRefused() {
    assertThatThrownBy(() -> spark.sql("CREATE VIEW floe.db.v AS SELECT * FROM src"))
        .hasMessageContaining("INVALID_TEMP_OBJ_REFERENCE")
        .hasMessageContaining("src");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CREATE VIEW floe.db.v AS SELECT id FROM floe.db.t WHERE id IN (SELECT id FROM src)"))
        .hasMessageContaining("INVALID_TEMP_OBJ_REFERENCE");
    spark.udf().register("plus_one", (org.apache.spark.sql.api.java.UDF1<Long, Long>) x -> x + 1, DataTypes.LongType);
    assertThatThrownBy(() -> spark.sql("CREATE VIEW floe.db.v AS SELECT plus_one(id) FROM floe.db.t"))
        .hasMessageContaining("INVALID_TEMP_OBJ_REFERENCE")
        .hasMessageContaining("plus_one");
    assertThat(viewExists("v")).isFalse();
  }

  @Test
  void aCycleThroughTheViewIsRefusedAndChangesNothing() {
    spark.sql("CREATE VIEW floe.db.v1 AS SELECT id FROM floe.db.t");
    spark.sql("CREATE VIEW floe.db.v2 AS SELECT id FROM floe.db.v1");
    int version = icebergView("v1").currentVersion().versionId();
    assertThatThrownBy(() -> spark.sql("CREATE OR REPLACE VIEW floe.db.v1 AS SELECT id FROM floe.db.v2"))
        .hasMessageContaining("Recursive cycle in view detected")
        .hasMessageContaining("floe.db.v1 -> floe.db.v2 -> floe.db.v1");
    assertThatThrownBy(() -> spark.sql("ALTER VIEW floe.db.v1 AS SELECT id FROM floe.db.v2"))
        .hasMessageContaining("Recursive cycle in view detected");
    assertThat(icebergView("v1").currentVersion().versionId()).isEqualTo(version);
    assertSameRows(spark.sql("SELECT * FROM floe.db.v2"), spark.sql("SELECT id FROM src"));
  }

  @Test
  void aCatalogWithoutViewsSaysSo() {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS hdp.db");
    assertThatThrownBy(() -> spark.sql("CREATE VIEW hdp.db.v AS SELECT 1 AS one"))
        .hasMessageContaining("Cannot create view hdp.db.v: catalog hdp (HadoopCatalog) does not support views")
        .hasMessageContaining("jdbc.schema-version=V1");
    assertThat(spark.sql("SHOW VIEWS IN hdp.db").filter("NOT isTemporary").count()).isZero();
  }
}
