package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A copy-on-write UPDATE with Floe's session extensions ({@link UpdateInPlace}): when no row can
 * change partition and the scan read each partition in one task, the rows are written by the
 * tasks that read them, with no shuffle, one file per partition. When an UPDATE assigns a
 * partition column, reads through a union (a subquery condition), or reads files of an older spec,
 * the shuffle by partition stays. After every statement the table equals the same change computed
 * over a temp view of the same rows.
 */
class UpdateInPlaceTest {
  private static final String TABLE = "floe.uip.t";
  private static Path warehouse;
  private static SparkSession spark;
  private RebalanceCapture capture;

  @BeforeAll
  static void start() throws IOException {
    warehouse = Files.createTempDirectory("floe-update-in-place");
    spark =
        ExtensionSessions.start(
            "update-in-place",
            Map.of(
                "spark.sql.catalog.floe", FloeCatalog.class.getName(),
                "spark.sql.catalog.floe.type", "hadoop",
                "spark.sql.catalog.floe.warehouse", warehouse.toUri().toString()));
    spark.sql("CREATE NAMESPACE floe.uip");
  }

  @AfterAll
  static void stop() throws IOException {
    ExtensionSessions.stop(spark, warehouse);
    spark = null;
  }

  @BeforeEach
  void register() {
    capture = new RebalanceCapture(spark, "ReplaceData");
    spark.listenerManager().register(capture);
  }

  @AfterEach
  void dropTable() {
    spark.listenerManager().unregister(capture);
    spark.sql("DROP TABLE IF EXISTS " + TABLE + " PURGE");
  }

  /** Three inserts of one file per partition: partitions 0, 1 and 2 hold three files each. */
  private static void create(String partitioning) {
    spark.sql(
        "CREATE TABLE " + TABLE + " (id INT, p INT, data STRING) USING iceberg " + partitioning
            + " TBLPROPERTIES ('format-version'='2', 'write.update.mode'='copy-on-write')");
    for (int batch = 0; batch < 3; batch++) {
      spark.sql(
          "INSERT INTO " + TABLE + " SELECT /*+ COALESCE(1) */ CAST(id AS INT), CAST(id % 3 AS INT),"
              + " CONCAT('d', id) FROM range(" + batch * 30 + ", " + (batch + 1) * 30 + ")");
    }
    spark.table(TABLE).localCheckpoint().createOrReplaceTempView("v");
  }

  private static List<Row> rows(String query) {
    return spark.sql(query).collectAsList();
  }

  private static void assertTableIs(String expected) {
    assertThat(rows("SELECT * FROM " + TABLE)).containsExactlyInAnyOrderElementsOf(rows(expected));
  }

  /**
   * Runs {@code UPDATE t SET <assignment> WHERE <condition>}, then checks the table against {@code
   * expected} over the view and the rebalancing shuffles the statement ran with.
   */
  private void update(String assignment, String condition, String expected, long shuffles)
      throws TimeoutException {
    spark.sql("UPDATE " + TABLE + " SET " + assignment + " WHERE " + condition);

    assertThat(capture.rebalances()).as("shuffles by partition under the write").isEqualTo(shuffles);
    assertTableIs(expected);
  }

  private static Map<Integer, Long> filesPerPartition() {
    Map<Integer, Long> files = new HashMap<>();
    for (Row row : rows("SELECT partition.p, count(*) FROM " + TABLE + ".data_files GROUP BY 1")) {
      files.put(row.isNullAt(0) ? null : row.getInt(0), row.getLong(1));
    }
    return files;
  }

  @Test
  void anUpdateThatKeepsThePartitionColumnsWritesFromTheTasksThatReadTheRows() throws TimeoutException {
    create("PARTITIONED BY (p)");

    update(
        "data = 'z'",
        "id % 2 = 0",
        "SELECT id, p, CASE WHEN id % 2 = 0 THEN 'z' ELSE data END FROM v",
        0);

    // each partition's three files were read by one task, which wrote one file
    assertThat(filesPerPartition()).isEqualTo(Map.of(0, 1L, 1, 1L, 2, 1L));
  }

  @Test
  void anUpdateOfThePartitionColumnKeepsTheShuffle() throws TimeoutException {
    create("PARTITIONED BY (p)");

    update(
        "p = (p + 1) % 3",
        "id < 45",
        "SELECT id, CASE WHEN id < 45 THEN (p + 1) % 3 ELSE p END, data FROM v",
        1);

    // the two files of each partition holding ids below 45 became one; the third is untouched
    assertThat(filesPerPartition()).isEqualTo(Map.of(0, 2L, 1, 2L, 2, 2L));
    assertThat(rows("SELECT count(*) FROM " + TABLE + " WHERE p <> id % 3").get(0).getLong(0))
        .isEqualTo(45L);
  }

  @Test
  void anUpdateOfAColumnRenamedIntoThePartitionColumnKeepsTheShuffle() throws TimeoutException {
    create("PARTITIONED BY (p)");

    // the partition column takes another column's value: not the value its row was read with
    update(
        "p = id % 2",
        "id >= 60",
        "SELECT id, CASE WHEN id >= 60 THEN id % 2 ELSE p END, data FROM v",
        1);
  }

  @Test
  void anUpdateWithASubqueryConditionReadsThroughAUnionAndKeepsTheShuffle() throws TimeoutException {
    create("PARTITIONED BY (p)");
    String matched = "id IN (SELECT id * 5 FROM range(0, 10))";

    update(
        "data = 'z'",
        matched,
        "SELECT id, p, CASE WHEN " + matched + " THEN 'z' ELSE data END FROM v",
        1);
  }

  @Test
  void filesOfAnOlderSpecKeepTheShuffle() throws TimeoutException {
    create("PARTITIONED BY (p)");
    spark.sql("ALTER TABLE " + TABLE + " ADD PARTITION FIELD bucket(2, id)");

    // the rows of each old file go to two partitions of the new spec
    update(
        "data = 'z'",
        "id % 2 = 0",
        "SELECT id, p, CASE WHEN id % 2 = 0 THEN 'z' ELSE data END FROM v",
        1);
  }

  @Test
  void anUnpartitionedTableIsUpdatedWithoutAShuffle() throws TimeoutException {
    create("");

    update(
        "data = 'z'",
        "id % 2 = 0",
        "SELECT id, p, CASE WHEN id % 2 = 0 THEN 'z' ELSE data END FROM v",
        0);

    // the three files were read by at most two tasks (the session's two slots), one file each
    assertThat(rows("SELECT count(*) FROM " + TABLE + ".data_files").get(0).getLong(0))
        .isBetween(1L, 2L);
  }
}
