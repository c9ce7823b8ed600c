package io.floe.spark.read;

import static io.floe.spark.read.ReadPaths.bothPaths;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import java.math.BigDecimal;
import java.util.List;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Column DEFAULT values on format v3 tables: CREATE TABLE and ADD COLUMN set Iceberg's {@code
 * initial-default} and {@code write-default}, old files read the initial default through both read
 * paths, and INSERTs that leave a column out write the write default. Expected rows come from the
 * same statements run against a Spark Parquet table in the session catalog, which has Spark's own
 * DEFAULT semantics.
 */
class ColumnDefaultsTest extends SparkTestBase {

  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.defaults");
  }

  @Test
  void createTableDefaultsFillInsertsThatOmitTheColumn() {
    String columns = "id INT, c INT DEFAULT 5, s STRING DEFAULT 'none', b BIGINT NOT NULL DEFAULT 7";
    sql("CREATE TABLE floe.defaults.created (%s) USING iceberg TBLPROPERTIES ('format-version'='3')",
        columns);
    String reference = referenceTable("created_ref", columns);

    Types.NestedField c = icebergTable(spark, "defaults.created").schema().findField("c");
    assertThat(c.initialDefault()).isEqualTo(5);
    assertThat(c.writeDefault()).isEqualTo(5);
    assertThat(icebergTable(spark, "defaults.created").schema().findField("s").writeDefault())
        .hasToString("none");
    assertThat(icebergTable(spark, "defaults.created").schema().findField("b").isRequired()).isTrue();

    for (String table : List.of("floe.defaults.created", reference)) {
      sql("INSERT INTO %s (id) VALUES (1), (2)", table);
      sql("INSERT INTO %s (id, s) VALUES (3, 'three')", table);
      sql("INSERT INTO %s VALUES (4, DEFAULT, 'four', DEFAULT)", table);
    }

    assertThat(bothPaths(spark, "SELECT * FROM floe.defaults.created"))
        .isEqualTo(canonicalRows(sql("SELECT * FROM %s", reference)))
        .contains("[1, 5, none, 7]");
  }

  @Test
  void addedColumnReadsItsDefaultFromOldFilesAndInsertsWriteIt() {
    sql("CREATE TABLE floe.defaults.added (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')");
    String reference = referenceTable("added_ref", "id INT");
    for (String table : List.of("floe.defaults.added", reference)) {
      sql("INSERT INTO %s VALUES (1), (2), (3)", table);
      sql("ALTER TABLE %s ADD COLUMN c INT DEFAULT 5", table);
      sql("ALTER TABLE %s ADD COLUMN d DATE DEFAULT DATE '2024-02-29'", table);
      sql("ALTER TABLE %s ADD COLUMN p DECIMAL(6, 2) DEFAULT 12.5", table);
      sql("ALTER TABLE %s ADD COLUMN t TIMESTAMP DEFAULT TIMESTAMP '2024-01-01 10:00:00'", table);
      sql("ALTER TABLE %s ADD COLUMN s STRING DEFAULT 'old'", table);
      sql("ALTER TABLE %s ADD COLUMN f BOOLEAN DEFAULT true", table);
    }
    Table table = icebergTable(spark, "defaults.added");
    assertThat(table.schema().findField("c").initialDefault()).isEqualTo(5);
    assertThat(table.schema().findField("p").initialDefault()).isEqualTo(new BigDecimal("12.50"));
    assertThat(table.schema().findField("s").writeDefault()).hasToString("old");

    String query = "SELECT * FROM floe.defaults.added";
    assertThat(bothPaths(spark, query))
        .isEqualTo(canonicalRows(sql("SELECT * FROM %s", reference)));
    assertThat(bothPaths(spark, "SELECT id FROM floe.defaults.added WHERE c = 5 AND s = 'old'"))
        .hasSize(3);
    String aggregates = "SELECT count(c), min(c), max(p), count(*) FROM %s";
    assertThat(canonicalRows(sql(aggregates, "floe.defaults.added")))
        .isEqualTo(canonicalRows(sql(aggregates, reference)));

    for (String name : List.of("floe.defaults.added", reference)) {
      sql("INSERT INTO %s (id, s) VALUES (4, 'new')", name);
      sql("ALTER TABLE %s ALTER COLUMN c SET DEFAULT 9", name);
      sql("INSERT INTO %s (id) VALUES (5)", name);
    }
    table.refresh();
    assertThat(table.schema().findField("c").initialDefault()).isEqualTo(5);
    assertThat(table.schema().findField("c").writeDefault()).isEqualTo(9);
    assertThat(bothPaths(spark, query))
        .isEqualTo(canonicalRows(sql("SELECT * FROM %s", reference)));

    for (String name : List.of("floe.defaults.added", reference)) {
      sql("ALTER TABLE %s ALTER COLUMN c DROP DEFAULT", name);
      sql("INSERT INTO %s (id) VALUES (6)", name);
    }
    table.refresh();
    assertThat(table.schema().findField("c").writeDefault()).isNull();
    assertThat(table.schema().findField("c").initialDefault()).isEqualTo(5);
    assertThat(bothPaths(spark, query))
        .isEqualTo(canonicalRows(sql("SELECT * FROM %s", reference)))
        .anyMatch(row -> row.startsWith("[6, null,"));
  }

  @Test
  void defaultOfTheWrongTypeNamesTheColumnAndChangesNothing() {
    assertThatThrownBy(
            () -> sql("CREATE TABLE floe.defaults.wrong (id INT, c INT DEFAULT 'abc') USING iceberg "
                + "TBLPROPERTIES ('format-version'='3')"))
        .hasMessageContaining("`c`")
        .hasMessageContaining("DEFAULT");
    assertThat(catalogHas("defaults.wrong")).isFalse();

    sql("CREATE TABLE floe.defaults.kept (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.defaults.kept VALUES (1)");
    String before = metadataLocation("defaults.kept");
    assertThatThrownBy(() -> sql("ALTER TABLE floe.defaults.kept ADD COLUMN c INT DEFAULT 'abc'"))
        .hasMessageContaining("`c`");
    assertThatThrownBy(
            () -> sql("ALTER TABLE floe.defaults.kept ADD COLUMN d DATE DEFAULT current_date()"))
        .hasMessageContaining("column d")
        .hasMessageContaining("not a constant");
    assertThat(metadataLocation("defaults.kept")).isEqualTo(before);
    assertThat(spark.table("floe.defaults.kept").columns()).containsExactly("id");
  }

  @Test
  void defaultsOnAVersion2TableAskForVersion3() {
    assertThatThrownBy(
            () -> sql("CREATE TABLE floe.defaults.v2 (id INT, c INT DEFAULT 5) USING iceberg "
                + "TBLPROPERTIES ('format-version'='2')"))
        .hasMessageContaining("column c")
        .hasMessageContaining("format version 3");
    assertThat(catalogHas("defaults.v2")).isFalse();

    sql("CREATE TABLE floe.defaults.old (id INT) USING iceberg TBLPROPERTIES ('format-version'='2')");
    String before = metadataLocation("defaults.old");
    assertThatThrownBy(() -> sql("ALTER TABLE floe.defaults.old ADD COLUMN c INT DEFAULT 5"))
        .hasMessageContaining("column c")
        .hasMessageContaining("format version 3")
        .hasMessageContaining("the table is v2");
    assertThat(metadataLocation("defaults.old")).isEqualTo(before);

    sql("ALTER TABLE floe.defaults.old SET TBLPROPERTIES ('format-version'='3')");
    sql("ALTER TABLE floe.defaults.old ADD COLUMN c INT DEFAULT 5");
    sql("INSERT INTO floe.defaults.old (id) VALUES (1)");
    assertThat(bothPaths(spark, "SELECT * FROM floe.defaults.old")).containsExactly("[1, 5]");
  }

  /** A Spark Parquet table in the session catalog: Spark's own DEFAULT semantics. */
  private static String referenceTable(String name, String columns) {
    String location = warehouse.resolve("reference").resolve(name).toUri().toString();
    sql("CREATE TABLE default.%s (%s) USING parquet LOCATION '%s'", name, columns, location);
    return "spark_catalog.default." + name;
  }

  private static boolean catalogHas(String name) {
    return ((io.floe.spark.FloeCatalog) spark.sessionState().catalogManager().catalog("floe"))
        .icebergCatalog()
        .tableExists(TableIdentifier.parse(name));
  }

  private static String metadataLocation(String name) {
    return ((HasTableOperations) icebergTable(spark, name)).operations().current().metadataFileLocation();
  }
}
