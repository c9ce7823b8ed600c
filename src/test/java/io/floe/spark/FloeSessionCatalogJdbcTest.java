package io.floe.spark;

import io.floe.spark.catalog.TestCatalog;

class FloeSessionCatalogJdbcTest extends FloeSessionCatalogSuite {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.JDBC;
  }
}
