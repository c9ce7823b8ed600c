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
 * Views through {@code spark_catalog} when it is {@link FloeSessionCatalog} over a hadoop catalog,
 * which keeps no views, with Floe's extensions: CREATE VIEW, SELECT, SHOW VIEWS, ALTER VIEW and
 * DROP VIEW are Spark's own, on views of the built-in catalog, also over Iceberg tables (where the
 * official runtime refuses to create any view); {@code view-format=iceberg} names the cause.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionCatalogSparkViewsTest {
  private SparkSession spark;
  private Path warehouse;

  @BeforeAll
  void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-session-spark-views");
    Map<String, String> conf = new HashMap<>();
    conf.put("spark.sql.warehouse.dir", warehouse.resolve("spark").toUri().toString());
    conf.put("spark.sql.catalog.spark_catalog", FloeSessionCatalog.class.getName());
    TestCatalog.HADOOP.options(warehouse.resolve("iceberg"))
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
  }

  @AfterEach
  void dropNamespace() {
    spark.conf().unset("spark.sql.catalog.spark_catalog." + FloeSessionCatalog.VIEW_FORMAT);
    sql("USE spark_catalog.default");
    sql("DROP NAMESPACE IF EXISTS db CASCADE");
  }

  private List<Row> sql(String text, Object... args) {
    return spark.sql(String.format(text, args)).collectAsList();
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

  @Test
  void viewStatementsAreSparksOwnOverIcebergTables() {
    String query = "SELECT id, data FROM db.t WHERE id > 1";

    sql("CREATE VIEW db.v AS %s", query);

    assertThat(isSparkView("v")).isTrue();
    assertThat(sql("SELECT * FROM db.v")).containsExactlyInAnyOrderElementsOf(sql(query));
    assertThat(sql("SHOW VIEWS IN db")).containsExactly(RowFactory.create("db", "v", false));
    sql("ALTER VIEW db.v AS SELECT id FROM db.t");
    assertThat(sql("SELECT * FROM db.v")).containsExactlyInAnyOrderElementsOf(sql("SELECT id FROM db.t"));
    sql("CREATE OR REPLACE VIEW db.v AS SELECT data FROM db.t");
    assertThat(sql("SELECT * FROM db.v")).containsExactlyInAnyOrderElementsOf(sql("SELECT data FROM db.t"));

    sql("DROP VIEW db.v");
    assertThat(isSparkView("v")).isFalse();
    assertThat(sql("SHOW VIEWS IN db")).isEmpty();
    assertThat(sql("SELECT count(*) FROM db.t").get(0).getLong(0)).isEqualTo(4L);
  }

  @Test
  void viewFormatIcebergOnACatalogWithoutViewsNamesTheCause() {
    spark.conf().set("spark.sql.catalog.spark_catalog." + FloeSessionCatalog.VIEW_FORMAT, "iceberg");

    assertThatThrownBy(() -> sql("CREATE VIEW db.v AS SELECT id FROM db.t"))
        .hasMessageContaining("does not support views");
    spark.conf().unset("spark.sql.catalog.spark_catalog." + FloeSessionCatalog.VIEW_FORMAT);
    assertThat(isSparkView("v")).isFalse();
    assertThat(sql("SHOW VIEWS IN db")).isEmpty();
  }
}
