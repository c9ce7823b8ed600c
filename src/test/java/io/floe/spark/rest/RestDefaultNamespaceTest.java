package io.floe.spark.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.catalog.CatalogTestBase;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A new REST catalog's default namespace takes a table without CREATE NAMESPACE: Floe creates the
 * namespace through the REST client with the first table.
 */
class RestDefaultNamespaceTest extends CatalogTestBase {
  private RestCatalogServer server;

  @Override
  protected Map<String, String> catalogOptions(Path warehouse) {
    server =
        RestCatalogServer.builder(warehouse, warehouse.resolve("tables").toUri().toString()).start();
    return server.catalogOptions();
  }

  @Override
  protected boolean supportsNamespaceProperties() {
    return true;
  }

  @AfterAll
  void stopServer() throws Exception {
    Catalog catalog = icebergCatalog();
    if (catalog instanceof AutoCloseable closeable) {
      closeable.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void createTableInTheDefaultNamespaceOfANewCatalog() {
    assertThat(sql("SHOW TABLES IN floe.default")).isEmpty();

    sql("CREATE TABLE floe.default.t (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.default.t VALUES (7)");

    assertThat(sql("SELECT id FROM floe.default.t")).containsExactly(row(7L));
    assertThat(sql("SHOW NAMESPACES IN floe")).contains(row("default"));
  }
}
