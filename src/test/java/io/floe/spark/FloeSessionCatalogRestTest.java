package io.floe.spark;

import io.floe.spark.rest.RestCatalogServer;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.AfterAll;

/** The session catalog over a REST catalog server on loopback. */
class FloeSessionCatalogRestTest extends FloeSessionCatalogSuite {
  private RestCatalogServer server;

  @Override
  protected Map<String, String> catalogOptions(Path warehouse) {
    server =
        RestCatalogServer.builder(warehouse, warehouse.resolve("tables").toUri().toString())
            .start();
    return server.catalogOptions();
  }

  @Override
  protected boolean supportsRename() {
    return true;
  }

  /** Runs before the session stops: the catalog's token refresh must not call a stopped server. */
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
}
