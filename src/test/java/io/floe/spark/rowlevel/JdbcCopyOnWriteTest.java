package io.floe.spark.rowlevel;

import io.floe.spark.catalog.TestCatalog;

/** The copy-on-write suite against Iceberg's JDBC catalog (SQLite), whose commits swap a row. */
class JdbcCopyOnWriteTest extends CopyOnWriteTest {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.JDBC;
  }
}
