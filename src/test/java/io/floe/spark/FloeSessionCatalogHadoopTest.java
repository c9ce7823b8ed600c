package io.floe.spark;

import io.floe.spark.catalog.TestCatalog;
import java.nio.file.Path;
import java.util.Map;

class FloeSessionCatalogHadoopTest extends FloeSessionCatalogSuite {
  @Override
  protected Map<String, String> catalogOptions(Path warehouse) {
    return TestCatalog.HADOOP.options(warehouse);
  }

  @Override
  protected boolean supportsRename() {
    return TestCatalog.HADOOP.supportsRename();
  }
}
