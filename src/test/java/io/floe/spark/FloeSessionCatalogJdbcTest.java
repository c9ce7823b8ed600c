package io.floe.spark;

import io.floe.spark.catalog.TestCatalog;
import java.nio.file.Path;
import java.util.Map;

class FloeSessionCatalogJdbcTest extends FloeSessionCatalogSuite {
  @Override
  protected Map<String, String> catalogOptions(Path warehouse) {
    return TestCatalog.JDBC.options(warehouse);
  }

  @Override
  protected boolean supportsRename() {
    return TestCatalog.JDBC.supportsRename();
  }
}
