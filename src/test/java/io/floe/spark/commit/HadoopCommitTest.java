package io.floe.spark.commit;

import java.nio.file.Path;
import java.util.Map;

/** {@link CommitSuite} on a hadoop catalog. */
class HadoopCommitTest extends CommitSuite {
  @Override
  protected Map<String, String> catalogOptions(Path warehouse) {
    return hadoopOptions(warehouse);
  }

  @Override
  protected boolean supportsNamespaceProperties() {
    return false;
  }
}
