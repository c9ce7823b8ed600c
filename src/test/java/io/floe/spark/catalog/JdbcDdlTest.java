package io.floe.spark.catalog;

/** {@link DdlSuite} on a JDBC catalog. */
class JdbcDdlTest extends DdlSuite {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.JDBC;
  }
}
