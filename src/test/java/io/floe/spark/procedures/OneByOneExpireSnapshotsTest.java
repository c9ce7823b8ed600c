package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * {@code expire_snapshots} on a FileIO without bulk deletes: files are deleted one by one on {@code
 * max_concurrent_deletes} threads.
 */
class OneByOneExpireSnapshotsTest extends ProcedureTestBase {
  @Override
  protected Map<String, String> catalogOptions(Path warehouse) {
    Map<String, String> options = new HashMap<>(super.catalogOptions(warehouse));
    options.put("io-impl", OneByOneFileIO.class.getName());
    return options;
  }

  @Test
  void deletesOnMaxConcurrentDeletesThreads() {
    createTable("db.one_by_one");
    long first = append("db.one_by_one", 1);
    append("db.one_by_one", 2);
    Table table = icebergTable("db.one_by_one");
    assertThat(table.io()).isInstanceOf(OneByOneFileIO.class);
    String listOfFirst = table.snapshot(first).manifestListLocation();
    OneByOneFileIO.DELETING_THREADS.clear();

    assertThat(
            call("expire_snapshots(table => 'db.one_by_one', older_than => current_timestamp(), "
                    + "retain_last => 1, max_concurrent_deletes => 2)")
                .collectAsList())
        .containsExactly(row(0L, 0L, 0L, 0L, 1L, 0L));

    assertThat(ExpireSnapshotsTest.exists(listOfFirst)).isFalse();
    assertThat(OneByOneFileIO.DELETING_THREADS).containsOnly("floe-expire-snapshots");
    assertThat(ids("db.one_by_one")).containsExactly(1L, 2L);
  }
}
