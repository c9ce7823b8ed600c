package io.floe.spark.catalog;

/** {@link TableCacheSuite} on a JDBC catalog. */
class JdbcTableCacheTest extends TableCacheSuite {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.JDBC;
  }
}
