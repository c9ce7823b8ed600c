package io.floe.spark.extensions;

import io.floe.spark.rest.RestCatalogServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/** Views in a REST catalog served on loopback. */
class ViewRestTest extends ViewSuite {
  private RestCatalogServer server;

  @Override
  protected Map<String, String> catalogOptions(Path warehouse) {
    server = RestCatalogServer.builder(warehouse, warehouse.resolve("tables").toUri().toString()).start();
    return server.catalogOptions();
  }

  // an overriding method is a lifecycle method only when annotated itself: without it JUnit never
  // stopped this class's session, and the next class's getOrCreate() took it over
  @Override
  @AfterAll
  void stopSpark() throws java.io.IOException {
    try {
      RestCatalogServer.closeCatalog(spark, "floe");
      if (server != null) {
        server.close();
      }
    } finally {
      super.stopSpark();
    }
  }
}
