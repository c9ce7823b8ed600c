package io.floe.spark.catalog;

/** {@link AlterTableSuite} on a Hadoop catalog. */
class HadoopAlterTableTest extends AlterTableSuite {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }
}
