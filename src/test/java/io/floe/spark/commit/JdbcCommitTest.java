package io.floe.spark.commit;

import java.nio.file.Path;
import java.util.Map;

/** {@link CommitSuite} on a JDBC catalog over SQLite. */
class JdbcCommitTest extends CommitSuite {
  @Override
  protected Map<String, String> catalogOptions(Path warehouse) {
    return jdbcOptions(warehouse);
  }

  @Override
  protected boolean supportsNamespaceProperties() {
    return true;
  }
}
