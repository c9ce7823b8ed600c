package io.floe.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.catalog.TestCatalog;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code format("iceberg")}, the name jobs written for the official runtime use, serves Floe. */
class IcebergFormatTest extends CatalogTestBase {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  @BeforeAll
  void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.by_format (id BIGINT, name STRING) USING iceberg");
    sql("INSERT INTO floe.db.by_format VALUES (1, 'one')");
  }

  @Test
  void readsAndAppendsByLocationAndByName() {
    String location = icebergTable("db.by_format").location();
    Dataset<Row> more = spark.sql("SELECT CAST(2 AS BIGINT) AS id, 'two' AS name");

    more.write().format("iceberg").mode("append").save(location);

    List<Row> byLocation = spark.read().format("iceberg").load(location).orderBy("id").collectAsList();
    List<Row> byName = spark.read().format("iceberg").load("floe.db.by_format").orderBy("id").collectAsList();
    assertThat(byLocation).containsExactly(row(1L, "one"), row(2L, "two"));
    assertThat(byName).isEqualTo(byLocation);
    assertThat(operations("db.by_format")).containsExactly("append", "append");
  }
}
