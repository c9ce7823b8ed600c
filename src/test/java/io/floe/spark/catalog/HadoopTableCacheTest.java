package io.floe.spark.catalog;

/** {@link TableCacheSuite} on a hadoop catalog. */
class HadoopTableCacheTest extends TableCacheSuite {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }
}
