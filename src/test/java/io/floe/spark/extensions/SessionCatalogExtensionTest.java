package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeSessionCatalog;
import io.floe.spark.catalog.TestCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The extension statements on tables of {@link FloeSessionCatalog} as {@code spark_catalog}:
 * Iceberg tables change, a parquet table beside them is refused with an error naming it.
 */
class SessionCatalogExtensionTest {
  private static SparkSession spark;
  private static Path warehouse;
  private static Path sparkWarehouse;

  @BeforeAll
  static void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-session-extensions");
    sparkWarehouse = Files.createTempDirectory("floe-session-extensions-spark");
    Map<String, String> conf = new HashMap<>();
    conf.put("spark.sql.warehouse.dir", sparkWarehouse.toUri().toString());
    conf.put("spark.sql.catalog.spark_catalog", FloeSessionCatalog.class.getName());
    TestCatalog.HADOOP
        .options(warehouse)
        .forEach((key, value) -> conf.put("spark.sql.catalog.spark_catalog." + key, value));
    spark = ExtensionSessions.start("floe-session-extensions-tests", conf);
    sql("CREATE NAMESPACE IF NOT EXISTS db");
    sql("USE db");
  }

  @AfterAll
  static void stopSpark() throws IOException {
    ExtensionSessions.stop(spark, warehouse, sparkWarehouse);
    spark = null;
  }

  private static List<Row> sql(String query, Object... args) {
    return spark.sql(String.format(query, args)).collectAsList();
  }

  private static Table icebergTable(String name) {
    FloeSessionCatalog catalog =
        (FloeSessionCatalog) spark.sessionState().catalogManager().catalog("spark_catalog");
    return catalog.icebergCatalog().loadTable(TableIdentifier.of("db", name));
  }

  @Test
  void statementsChangeIcebergTablesOfTheSessionCatalog() {
    sql("CREATE TABLE events (id BIGINT, kind STRING) USING iceberg");
    spark.sql("SELECT id, CONCAT('k', CAST(id % 3 AS STRING)) AS kind FROM range(0, 30)")
        .createOrReplaceTempView("events_rows");

    sql("ALTER TABLE events ADD PARTITION FIELD kind");
    sql("ALTER TABLE spark_catalog.db.events WRITE LOCALLY ORDERED BY id DESC");
    sql("ALTER TABLE db.events CREATE BRANCH empty");

    Table table = icebergTable("events");
    assertThat(table.spec().fields()).extracting(PartitionField::name).containsExactly("kind");
    assertThat(table.sortOrder().isSorted()).isTrue();
    assertThat(table.properties()).doesNotContainKey(TableProperties.WRITE_DISTRIBUTION_MODE);
    assertThat(table.refs()).containsKey("empty");

    sql("INSERT INTO events SELECT * FROM events_rows");
    Table written = icebergTable("events");
    List<DataFile> files = new ArrayList<>();
    written.currentSnapshot().addedDataFiles(written.io()).forEach(files::add);
    assertThat(files)
        .hasSize(3)
        .allSatisfy(file -> assertThat(file.sortOrderId()).isEqualTo(written.sortOrder().orderId()));
    assertThat(sql("SELECT * FROM events ORDER BY id"))
        .containsExactlyElementsOf(sql("SELECT * FROM events_rows ORDER BY id"));
    sql("DROP TABLE events");
  }

  @Test
  void aParquetTableIsRefusedByName() {
    sql("CREATE TABLE plain (id BIGINT) USING parquet");
    sql("INSERT INTO plain VALUES (1), (2)");

    assertThatThrownBy(() -> sql("ALTER TABLE plain ADD PARTITION FIELD id"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("`spark_catalog`.`db`.`plain` is not an Iceberg table of a Floe catalog");
    assertThatThrownBy(() -> sql("ALTER TABLE plain CREATE BRANCH b"))
        .hasMessageContaining("is not an Iceberg table of a Floe catalog");
    assertThat(sql("SELECT * FROM plain ORDER BY id"))
        .containsExactlyElementsOf(sql("SELECT * FROM VALUES (1L), (2L) AS v(id) ORDER BY id"));
    sql("DROP TABLE plain");
  }
}
