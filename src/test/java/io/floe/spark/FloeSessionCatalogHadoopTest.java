package io.floe.spark;

import io.floe.spark.catalog.TestCatalog;

class FloeSessionCatalogHadoopTest extends FloeSessionCatalogSuite {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }
}
