package io.floe.spark.extensions;

import io.floe.spark.catalog.TestCatalog;
import java.nio.file.Path;
import java.util.Map;

/** Views in a JDBC catalog on SQLite ({@code jdbc.schema-version=V1}). */
class ViewJdbcTest extends ViewSuite {
  @Override
  protected Map<String, String> catalogOptions(Path warehouse) {
    return TestCatalog.JDBC.options(warehouse);
  }
}
