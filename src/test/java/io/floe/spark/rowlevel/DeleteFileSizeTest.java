package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.TestCatalog;
import org.junit.jupiter.api.Test;

/**
 * Where merge-on-read position-delete files roll: the write option {@code
 * target-delete-file-size-bytes} (the official runtime's name), then the table property {@code
 * write.delete.target-file-size-bytes}. A small target splits one partition's deletes into several
 * files, every deleted row stays deleted, and a bad value fails naming the option, changing nothing.
 */
class DeleteFileSizeTest extends RowLevelTestBase {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  private static void createTable() {
    create(
        "id BIGINT, data INT, p INT",
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version' = '2',"
            + " 'write.delete.mode' = 'merge-on-read', 'write.delete.granularity' = 'partition')");
    sql("INSERT INTO " + TABLE + " SELECT /*+ REPARTITION(2) */ id, CAST(id AS INT), CAST(id % 2 AS INT)"
        + " FROM range(0, 20000)");
    view("v", TABLE);
  }

  private static long deleteFiles() {
    return spark.sql("SELECT count(*) FROM " + TABLE + ".delete_files").first().getLong(0);
  }

  @Test
  void theWriteOptionRollsDeleteFilesAtItsSize() {
    createTable();

    spark.sql("DELETE FROM " + TABLE + " WHERE id % 3 = 0 AND p = 0");
    long oneTarget = deleteFiles();
    assertThat(oneTarget).as("one partition's deletes in one file by default").isEqualTo(1);

    spark.conf().set("spark.floe.write.target-delete-file-size-bytes", "1");
    try {
      spark.sql("DELETE FROM " + TABLE + " WHERE id % 3 = 1 AND p = 1");
    } finally {
      spark.conf().unset("spark.floe.write.target-delete-file-size-bytes");
    }
    // Iceberg's rolling writer checks the size every 1,000 rows: about 3,333 deletes make 4 files
    assertThat(deleteFiles() - oneTarget).isGreaterThan(1);
    assertTableIs("SELECT * FROM v WHERE NOT ((id % 3 = 0 AND p = 0) OR (id % 3 = 1 AND p = 1))");
  }

  @Test
  void aBadValueFailsNamingTheOptionAndChangesNothing() {
    createTable();
    sql("ALTER TABLE " + TABLE + " SET TBLPROPERTIES ('write.delete.target-file-size-bytes' = '0')");
    long snapshot = current().snapshotId();

    assertThatThrownBy(() -> sql("DELETE FROM " + TABLE + " WHERE id % 7 = 0"))
        .hasMessageContaining("target-delete-file-size-bytes")
        .hasMessageContaining("write.delete.target-file-size-bytes");

    assertThat(current().snapshotId()).isEqualTo(snapshot);
    assertTableIs("SELECT * FROM v");
  }
}
