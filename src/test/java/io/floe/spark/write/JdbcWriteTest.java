package io.floe.spark.write;

import io.floe.spark.catalog.TestCatalog;

/** {@link WriteSuite} on a JDBC catalog. */
class JdbcWriteTest extends WriteSuite {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.JDBC;
  }
}
