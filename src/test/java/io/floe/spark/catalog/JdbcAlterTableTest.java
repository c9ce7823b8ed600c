package io.floe.spark.catalog;

/** {@link AlterTableSuite} on a JDBC catalog. */
class JdbcAlterTableTest extends AlterTableSuite {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.JDBC;
  }
}
