package io.floe.spark.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Catalog configuration and DDL mistakes: each fails with an error that names the cause, and none
 * leaves a table or a change behind.
 */
class BadDdlInputTest extends CatalogTestBase {

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  @BeforeAll
  void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
  }

  @Test
  void unknownCatalogTypeNamesTheTypeAndTheCatalog() {
    spark.conf().set("spark.sql.catalog.bad", FloeCatalog.class.getName());
    spark.conf().set("spark.sql.catalog.bad.type", "nosuch");

    assertThatThrownBy(() -> sql("SHOW NAMESPACES IN bad"))
        .hasMessageContaining("Cannot create catalog bad")
        .hasMessageContaining("unknown catalog type 'nosuch'");
  }

  @Test
  void jdbcCatalogWithoutWarehouseNamesTheMissingOption() {
    spark.conf().set("spark.sql.catalog.nowarehouse", FloeCatalog.class.getName());
    spark.conf().set("spark.sql.catalog.nowarehouse.type", "jdbc");
    spark.conf().set(
        "spark.sql.catalog.nowarehouse.uri", "jdbc:sqlite:" + warehouse.resolve("no-warehouse.db"));

    assertThatThrownBy(() -> sql("SHOW NAMESPACES IN nowarehouse"))
        .hasMessageContaining("Cannot create catalog nowarehouse")
        .hasMessageContaining("'warehouse' is required for type=jdbc")
        .hasMessageContaining("spark.sql.catalog.nowarehouse.warehouse");
  }

  @Test
  void intervalColumnIsRejectedNamingTheColumn() {
    assertThatThrownBy(
            () -> sql("CREATE TABLE floe.db.intervals (id BIGINT, span INTERVAL DAY TO SECOND) USING iceberg"))
        .hasMessageContaining(
            "Cannot convert column 'span' of type interval day to second to an Iceberg type");
    assertThat(tables()).doesNotContain("intervals");
  }

  @Test
  void variantColumnOfAFormatVersionTwoTableIsRejectedNamingTheColumnAndVersion() {
    assertThatThrownBy(() -> sql("CREATE TABLE floe.db.variants (id BIGINT, v VARIANT) USING iceberg"))
        .hasMessageContaining("Cannot create table")
        .hasMessageContaining("column v has type variant, which needs Iceberg format version 3"
            + " (the table is v2");
    assertThatThrownBy(
            () -> sql("CREATE TABLE floe.db.variants USING iceberg AS SELECT parse_json('{}') AS v"))
        .hasMessageContaining("column v has type variant")
        .hasMessageContaining("the table is v2");
    assertThat(tables()).doesNotContain("variants");
  }

  @Test
  void unknownTransformIsRejectedNamingTheTransform() {
    assertThatThrownBy(
            () -> sql("CREATE TABLE floe.db.unknown_transform (id BIGINT) USING iceberg"
                + " PARTITIONED BY (zorder(id))"))
        .hasMessageContaining("unsupported transform 'zorder'");
    assertThat(tables()).doesNotContain("unknown_transform");
  }

  @Test
  void transformOnAColumnOfTheWrongTypeIsRejected() {
    assertThatThrownBy(
            () -> sql("CREATE TABLE floe.db.wrong_transform (id BIGINT) USING iceberg"
                + " PARTITIONED BY (days(id))"))
        .hasMessageContaining("days(id)")
        .hasMessageContaining("cannot be applied to column 'id'");
    assertThatThrownBy(
            () -> sql("CREATE TABLE floe.db.wrong_transform (id BIGINT) USING iceberg"
                + " PARTITIONED BY (bucket(0, id))"))
        .hasMessageContaining("must be positive");
    assertThat(tables()).doesNotContain("wrong_transform");
  }

  @Test
  void partitioningByAMissingColumnNamesTheColumn() {
    assertThatThrownBy(
            () -> sql("CREATE TABLE floe.db.missing_column (id BIGINT) USING iceberg"
                + " PARTITIONED BY (bucket(4, nope))"))
        .hasMessageContaining("Couldn't find column nope");
    assertThat(tables()).doesNotContain("missing_column");
  }

  @Test
  void readingOrWritingAMissingTableIsTableOrViewNotFound() {
    assertThatThrownBy(() -> sql("SELECT * FROM floe.db.nope"))
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND")
        .hasMessageContaining("`floe`.`db`.`nope`");
    assertThatThrownBy(() -> sql("INSERT INTO floe.db.nope VALUES (1)"))
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND");
    assertThatThrownBy(() -> spark.range(1).writeTo("floe.db.nope").append())
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND");
  }

  @Test
  void anotherProviderIsRejectedNamingIt() {
    assertThatThrownBy(() -> sql("CREATE TABLE floe.db.pq (id INT) USING parquet"))
        .hasMessageContaining("provider 'parquet' is not supported")
        .hasMessageContaining("floe.db.pq");
    assertThatThrownBy(() -> sql("CREATE TABLE floe.db.pq USING parquet AS SELECT 1 AS id"))
        .hasMessageContaining("provider 'parquet' is not supported");
    assertThat(tables()).doesNotContain("pq");
  }

  @Test
  void defaultValuesOnAVersion2TableAreRejectedNamingTheColumn() {
    // default values need format v3 (see ColumnDefaultsTest); a new table is v2 unless it says so
    assertThatThrownBy(
            () -> sql("CREATE TABLE floe.db.defaults (id BIGINT, n INT DEFAULT 42) USING iceberg"))
        .hasMessageContaining("floe.db.defaults")
        .hasMessageContaining("column n has a DEFAULT")
        .hasMessageContaining("format version 3");
    assertThat(tables()).doesNotContain("defaults");
  }

  private static List<String> tables() {
    return sql("SHOW TABLES IN floe.db").stream().map(r -> r.getString(1)).collect(Collectors.toList());
  }
}
