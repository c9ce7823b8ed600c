package io.floe.spark.write;

import io.floe.spark.catalog.TestCatalog;

/** {@link WriteSuite} on a Hadoop catalog. */
class HadoopWriteTest extends WriteSuite {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }
}
