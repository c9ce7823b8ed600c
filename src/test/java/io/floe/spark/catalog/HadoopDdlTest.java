package io.floe.spark.catalog;

/** {@link DdlSuite} on a Hadoop catalog. */
class HadoopDdlTest extends DdlSuite {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }
}
