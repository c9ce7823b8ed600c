package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeSessionCatalog;
import io.floe.spark.catalog.TestCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Views through {@code spark_catalog} when it is {@link FloeSessionCatalog} over a catalog that
 * keeps views (JDBC, {@code jdbc.schema-version=V1}), with Floe's extensions: a new persistent view
 * is an Iceberg view, as with the official runtime's {@code SparkSessionCatalog}, while Spark's
 * own views of the built-in catalog keep working as Spark runs them (read, replaced, listed,
 * dropped). Every read is compared with the view's query run by Spark over the same tables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionCatalogViewsTest {
  private SparkSession spark;
  private Path warehouse;

  @BeforeAll
  void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-session-views");
    Map<String, String> conf = new HashMap<>();
    conf.put("spark.sql.warehouse.dir", warehouse.resolve("spark").toUri().toString());
    conf.put("spark.sql.catalog.spark_catalog", FloeSessionCatalog.class.getName());
    Files.createDirectories(warehouse.resolve("iceberg"));
    TestCatalog.JDBC.options(warehouse.resolve("iceberg"))
        .forEach((key, value) -> conf.put("spark.sql.catalog.spark_catalog." + key, value));
    spark = ExtensionSessions.start(getClass().getSimpleName(), conf);
  }

  @AfterAll
  void stopSpark() throws IOException {
    ExtensionSessions.stop(spark, warehouse);
  }

  @BeforeEach
  void createTables() {
    sql("CREATE NAMESPACE IF NOT EXISTS db");
    sql("CREATE TABLE db.t (id BIGINT, data STRING) USING iceberg");
    sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, NULL)");
    sql("CREATE TABLE db.p (id BIGINT, score INT) USING parquet");
    sql("INSERT INTO db.p VALUES (1, 10), (3, 30), (5, 50)");
  }

  @AfterEach
  void dropNamespace() {
    spark.conf().unset("spark.sql.catalog.spark_catalog." + FloeSessionCatalog.VIEW_FORMAT);
    spark.catalog().dropTempView("tmp");
    sql("USE spark_catalog.default");
    sql("DROP NAMESPACE IF EXISTS db CASCADE");
  }

  private List<Row> sql(String text, Object... args) {
    return spark.sql(String.format(text, args)).collectAsList();
  }

  private ViewCatalog icebergViews() {
    return (ViewCatalog)
        ((FloeSessionCatalog) spark.sessionState().catalogManager().v2SessionCatalog())
            .icebergCatalog();
  }

  private boolean isIcebergView(String name) {
    return icebergViews().viewExists(TableIdentifier.of(Namespace.of("db"), name));
  }

  private boolean isSparkView(String name) {
    org.apache.spark.sql.catalyst.TableIdentifier ident =
        new org.apache.spark.sql.catalyst.TableIdentifier(name, scala.Option.apply("db"));
    try {
      return spark.sessionState().catalog().tableExists(ident)
          && spark.sessionState().catalog().getTableMetadata(ident).tableType()
              == CatalogTableType.VIEW();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Creates Spark's own view db.{name}, as a session with {@code view-format=spark} does. */
  private void createSparkView(String name, String query) {
    spark.conf().set("spark.sql.catalog.spark_catalog." + FloeSessionCatalog.VIEW_FORMAT, "spark");
    sql("CREATE VIEW db.%s AS %s", name, query);
    spark.conf().unset("spark.sql.catalog.spark_catalog." + FloeSessionCatalog.VIEW_FORMAT);
    assertThat(isSparkView(name)).isTrue();
    assertThat(isIcebergView(name)).isFalse();
  }

  @Test
  void createViewMakesAnIcebergViewThatReadsAndDrops() {
    String query = "SELECT id, data FROM db.t WHERE id > 1";

    sql("CREATE VIEW db.iv COMMENT 'later ids' AS %s", query);

    assertThat(isIcebergView("iv")).isTrue();
    assertThat(isSparkView("iv")).isFalse();
    assertThat(icebergViews().loadView(TableIdentifier.of("db", "iv")).sqlFor("spark").sql())
        .isEqualTo(query);
    assertThat(sql("SELECT * FROM db.iv")).containsExactlyInAnyOrderElementsOf(sql(query));
    assertThat(sql("SELECT * FROM spark_catalog.db.iv")).containsExactlyInAnyOrderElementsOf(sql(query));
    assertThat(spark.table("db.iv").collectAsList()).containsExactlyInAnyOrderElementsOf(sql(query));

    // a one-part name in the current namespace, and the view over another view
    sql("USE db");
    sql("CREATE VIEW iv2 AS SELECT id FROM iv WHERE data <> 'b'");
    assertThat(isIcebergView("iv2")).isTrue();
    assertThat(sql("SELECT * FROM iv2"))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT id FROM (%s) WHERE data <> 'b'", query));
    sql("CREATE OR REPLACE VIEW iv2 AS SELECT id * 10 AS id FROM t");
    assertThat(sql("SELECT * FROM iv2"))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT id * 10 AS id FROM db.t"));

    sql("ALTER VIEW iv2 SET TBLPROPERTIES ('owner-team' = 'x')");
    assertThat(icebergViews().loadView(TableIdentifier.of("db", "iv2")).properties())
        .containsEntry("owner-team", "x");
    assertThat(sql("DESCRIBE iv2")).extracting(row -> row.getString(0)).containsExactly("id");
    sql("ALTER VIEW iv2 RENAME TO iv3");
    assertThat(isIcebergView("iv3")).isTrue();
    assertThat(isIcebergView("iv2")).isFalse();
    assertThat(sql("SELECT * FROM iv3"))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT id * 10 AS id FROM db.t"));

    sql("DROP VIEW iv3");
    sql("DROP VIEW spark_catalog.db.iv");
    assertThat(isIcebergView("iv")).isFalse();
    assertThat(isIcebergView("iv3")).isFalse();
    assertThatThrownBy(() -> sql("SELECT * FROM db.iv")).hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND");
    assertThatThrownBy(() -> sql("DROP VIEW db.iv")).hasMessageContaining("db").hasMessageContaining("iv");
    sql("DROP VIEW IF EXISTS db.iv");
    assertThat(sql("SELECT count(*) FROM db.t").get(0).getLong(0)).isEqualTo(4L);
  }

  @Test
  void sparkViewsKeepWorkingBesideIcebergViews() {
    String sparkQuery = "SELECT id, score FROM db.p WHERE score > 10";
    createSparkView("sv", sparkQuery);
    sql("CREATE VIEW db.iv AS SELECT id FROM db.t");

    assertThat(sql("SELECT * FROM db.sv")).containsExactlyInAnyOrderElementsOf(sql(sparkQuery));
    assertThat(sql("SELECT sv.id, iv.id FROM db.sv JOIN db.iv ON sv.id = iv.id"))
        .containsExactlyInAnyOrderElementsOf(
            sql("SELECT a.id, b.id FROM (%s) a JOIN db.t b ON a.id = b.id", sparkQuery));

    // an existing Spark view stays Spark's: replaced in place, IF NOT EXISTS and a plain CREATE
    // see it
    sql("CREATE OR REPLACE VIEW db.sv AS SELECT id, score * 2 AS score FROM db.p");
    assertThat(isSparkView("sv")).isTrue();
    assertThat(isIcebergView("sv")).isFalse();
    assertThat(sql("SELECT * FROM db.sv"))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT id, score * 2 AS score FROM db.p"));
    sql("CREATE VIEW IF NOT EXISTS db.sv AS SELECT 1 AS one");
    assertThat(sql("SELECT count(*) FROM db.sv").get(0).getLong(0)).isEqualTo(3L);
    assertThatThrownBy(() -> sql("CREATE VIEW db.sv AS SELECT 1 AS one"))
        .hasMessageContaining("already exists");
    assertThatThrownBy(() -> sql("CREATE VIEW db.p AS SELECT 1 AS one"))
        .hasMessageContaining("already exists");
    assertThat(isIcebergView("p")).isFalse();

    // SHOW VIEWS lists both kinds and the temporary views, as Spark lists them
    spark.sql("SELECT 1 AS one").createOrReplaceTempView("tmp");
    List<Row> expected =
        List.of(
            RowFactory.create("db", "iv", false),
            RowFactory.create("db", "sv", false),
            RowFactory.create("", "tmp", true));
    assertThat(sql("SHOW VIEWS IN db")).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(sql("SHOW VIEWS IN spark_catalog.db")).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(sql("SHOW VIEWS IN db LIKE 's*'")).containsExactly(RowFactory.create("db", "sv", false));
    sql("USE db");
    assertThat(sql("SHOW VIEWS")).containsExactlyInAnyOrderElementsOf(expected);

    // DROP VIEW finds each view in its own catalog
    sql("DROP VIEW sv");
    assertThat(isSparkView("sv")).isFalse();
    assertThat(isIcebergView("iv")).isTrue();
    sql("DROP VIEW iv");
    assertThat(isIcebergView("iv")).isFalse();
    assertThat(sql("SHOW VIEWS IN db")).containsExactly(RowFactory.create("", "tmp", true));
  }

  @Test
  void dropNamespaceCascadeDropsIcebergViewsAndRefusesWithoutCascade() {
    sql("CREATE NAMESPACE db2");
    sql("CREATE VIEW db2.iv AS SELECT id FROM db.t");

    assertThatThrownBy(() -> sql("DROP NAMESPACE db2")).hasMessageContaining("db2");
    assertThat(icebergViews().viewExists(TableIdentifier.of("db2", "iv"))).isTrue();

    sql("DROP NAMESPACE db2 CASCADE");
    assertThat(icebergViews().viewExists(TableIdentifier.of("db2", "iv"))).isFalse();
    assertThat(sql("SHOW NAMESPACES")).doesNotContain(RowFactory.create("db2"));
  }

  @Test
  void aPersistentFunctionInAViewIsReadFromTheViewsNamespace() {
    sql("CREATE FUNCTION db.plus_one(x BIGINT) RETURNS BIGINT RETURN x + 1");
    sql("USE db");
    sql("CREATE VIEW fv AS SELECT id, plus_one(id) AS next FROM t WHERE upper(data) <> 'B'");
    assertThat(isIcebergView("fv")).isTrue();
    String expected = "SELECT id, db.plus_one(id) AS next FROM db.t WHERE upper(data) <> 'B'";

    // from another namespace, where plus_one alone names nothing
    sql("USE default");
    assertThatThrownBy(() -> sql("SELECT plus_one(1)")).hasMessageContaining("plus_one");
    assertThat(sql("SELECT * FROM db.fv")).containsExactlyInAnyOrderElementsOf(sql(expected));

    // a temporary function of the same name does not shadow the view's function
    sql("CREATE TEMPORARY FUNCTION plus_one(x BIGINT) RETURNS BIGINT RETURN x + 100");
    try {
      assertThat(sql("SELECT * FROM db.fv")).containsExactlyInAnyOrderElementsOf(sql(expected));
    } finally {
      sql("DROP TEMPORARY FUNCTION plus_one");
    }
  }

  @Test
  void schemaEvolutionClausesAreRefusedForIcebergViewsAndKeptForSparkViews() {
    assertThatThrownBy(() -> sql("CREATE VIEW db.e WITH SCHEMA EVOLUTION AS SELECT id FROM db.t"))
        .hasMessageContaining(
            "Cannot create view spark_catalog.db.e: WITH SCHEMA EVOLUTION is not supported for "
                + "Iceberg views, which store a fixed schema per version; omit the clause or use "
                + "WITH SCHEMA BINDING");
    assertThatThrownBy(
            () -> sql("CREATE VIEW db.e WITH SCHEMA TYPE EVOLUTION AS SELECT id FROM db.t"))
        .hasMessageContaining("WITH SCHEMA TYPE EVOLUTION is not supported for Iceberg views");
    assertThat(isIcebergView("e")).isFalse();
    assertThat(isSparkView("e")).isFalse();

    sql("CREATE VIEW db.b WITH SCHEMA BINDING AS SELECT id, data FROM db.t");
    assertThat(isIcebergView("b")).isTrue();
    assertThat(sql("SELECT * FROM db.b"))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT id, data FROM db.t"));
    assertThatThrownBy(() -> sql("ALTER VIEW db.b WITH SCHEMA EVOLUTION"))
        .hasMessageContaining(
            "Cannot alter view spark_catalog.db.b WITH SCHEMA EVOLUTION: Iceberg views keep no "
                + "schema binding mode");

    // Spark's own views keep Spark's schema modes
    createSparkView("se", "SELECT id FROM db.p");
    sql("ALTER VIEW db.se WITH SCHEMA EVOLUTION");
    assertThat(sql("SELECT * FROM db.se")).containsExactlyInAnyOrderElementsOf(sql("SELECT id FROM db.p"));
  }

  @Test
  void anInvalidViewFormatIsRefusedNamingTheOption() {
    spark.conf().set("spark.sql.catalog.spark_catalog." + FloeSessionCatalog.VIEW_FORMAT, "hive");

    assertThatThrownBy(() -> sql("CREATE VIEW db.x AS SELECT 1 AS one"))
        .hasMessageContaining(
            "Invalid value for catalog option spark.sql.catalog.spark_catalog.view-format: 'hive'; "
                + "use iceberg or spark");
    spark.conf().unset("spark.sql.catalog.spark_catalog." + FloeSessionCatalog.VIEW_FORMAT);
    assertThat(isIcebergView("x")).isFalse();
    assertThat(isSparkView("x")).isFalse();
  }
}
