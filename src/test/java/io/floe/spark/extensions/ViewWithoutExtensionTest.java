package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.catalog.TestCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.View;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a session without {@code FloeSparkSessionExtensions} sees of a Floe catalog's views: the
 * catalog serves them through Spark's {@code ViewCatalog} API, but Spark 4.1 neither creates nor
 * reads them in SQL (the errors docs/views.md names).
 */
class ViewWithoutExtensionTest {
  private static SparkSession spark;
  private static Path warehouse;

  @BeforeAll
  static void startSpark() throws Exception {
    warehouse = Files.createTempDirectory("floe-views-plain");
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName("floe-views-plain")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.catalog.floe", FloeCatalog.class.getName());
    TestCatalog.JDBC.options(warehouse).forEach((k, v) -> builder.config("spark.sql.catalog.floe." + k, v));
    spark = builder.getOrCreate();
    spark.sql("CREATE NAMESPACE floe.db");
    spark.sql("CREATE TABLE floe.db.t (id BIGINT) USING iceberg");
  }

  @AfterAll
  static void stopSpark() throws Exception {
    ExtensionSessions.stop(spark, warehouse);
  }

  @Test
  void theCatalogServesViewsButSparkSqlNeedsTheExtension() throws Exception {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    ((ViewCatalog) catalog.icebergCatalog())
        .buildView(TableIdentifier.of(Namespace.of("db"), "v"))
        .withQuery("spark", "SELECT id FROM t")
        .withDefaultNamespace(Namespace.of("db"))
        .withSchema(new Schema(Types.NestedField.optional(1, "id", Types.LongType.get())))
        .withProperty("spark.query-column-names", "id")
        .create();

    View view = catalog.loadView(Identifier.of(new String[] {"db"}, "v"));
    assertThat(view.query()).isEqualTo("SELECT id FROM t");
    assertThat(view.currentCatalog()).isEqualTo("floe");
    assertThat(view.queryColumnNames()).containsExactly("id");
    assertThat(catalog.listViews("db")).containsExactly(Identifier.of(new String[] {"db"}, "v"));

    assertThatThrownBy(() -> spark.sql("SELECT * FROM floe.db.v"))
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND");
    assertThatThrownBy(() -> spark.sql("CREATE VIEW floe.db.w AS SELECT 1 AS one"))
        .hasMessageContaining("MISSING_CATALOG_ABILITY.VIEWS");
    assertThat(catalog.viewExists(Identifier.of(new String[] {"db"}, "w"))).isFalse();
  }
}
