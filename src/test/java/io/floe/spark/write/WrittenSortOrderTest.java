package io.floe.spark.write;

import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static io.floe.spark.read.ScanPlans.nodeNames;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Floe write records the table's sort order on its data files exactly when Spark sorted every
 * file's rows by it: then reads may report the order and Spark skips its own sort. Fanout writes,
 * unsorted tables and tasks whose rows did not arrive clustered record none, and their rows read
 * back all the same.
 */
class WrittenSortOrderTest extends SparkTestBase {

  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.sorted");
  }

  @AfterEach
  void resetConf() {
    spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
    spark.conf().unset("spark.sql.sources.v2.bucketing.sorting.enabled");
  }

  @Test
  void insertIntoSortedBucketedTablesRecordsTheOrderAndTheirJoinNeedsNoSort() {
    for (String name : List.of("left_side", "right_side")) {
      sql("CREATE TABLE floe.sorted.%s (id BIGINT, data STRING) USING iceberg"
          + " PARTITIONED BY (bucket(4, id))", name);
      table(name).replaceSortOrder().asc("id").commit();
    }
    sql("INSERT INTO floe.sorted.left_side SELECT id, concat('l', id) FROM range(0, 200, 1, 3)");
    sql("INSERT INTO floe.sorted.right_side SELECT id, concat('r', id) FROM range(0, 300, 2, 3)");

    for (String name : List.of("left_side", "right_side")) {
      Table table = table(name);
      assertThat(table.sortOrder().isUnsorted()).isFalse();
      assertThat(dataFiles(table))
          .isNotEmpty()
          .allSatisfy(file -> assertThat(file.sortOrderId()).isEqualTo(table.sortOrder().orderId()));
    }

    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    Dataset<Row> joined =
        spark.sql("SELECT l.id, l.data, r.data FROM floe.sorted.left_side l"
            + " JOIN floe.sorted.right_side r ON l.id = r.id");
    List<Row> rows = joined.collectAsList();

    assertThat(nodeNames(joined)).contains("SortMergeJoinExec").doesNotContain("SortExec");
    assertThat(rows).hasSize(100);
    assertThat(rows)
        .allSatisfy(row -> {
          assertThat(row.getLong(0) % 2).isZero();
          assertThat(row.getString(1)).isEqualTo("l" + row.getLong(0));
          assertThat(row.getString(2)).isEqualTo("r" + row.getLong(0));
        });
  }

  @Test
  void orderByThePartitionKeyOfAFloeWrittenSortedTableNeedsNoSort() {
    sql("CREATE TABLE floe.sorted.by_category (category STRING, id BIGINT) USING iceberg"
        + " PARTITIONED BY (category)");
    table("by_category").replaceSortOrder().asc("category").asc("id").commit();
    sql("INSERT INTO floe.sorted.by_category"
        + " SELECT element_at(array('a', 'b', 'c'), CAST(id %% 3 + 1 AS INT)), id DIV 3"
        + " FROM range(0, 60, 1, 4)");
    Table table = table("by_category");
    assertThat(dataFiles(table))
        .allSatisfy(file -> assertThat(file.sortOrderId()).isEqualTo(table.sortOrder().orderId()));
    spark.conf().set("spark.sql.sources.v2.bucketing.sorting.enabled", "true");

    Dataset<Row> ordered =
        spark.sql("SELECT category, id FROM floe.sorted.by_category ORDER BY category");
    List<Row> rows = ordered.collectAsList();

    assertThat(nodeNames(ordered)).doesNotContain("SortExec");
    List<String> expected = new ArrayList<>();
    for (String category : List.of("a", "b", "c")) {
      for (long id = 0; id < 20; id++) {
        expected.add(category + "," + id);
      }
    }
    assertThat(rows.stream().map(row -> row.getString(0) + "," + row.getLong(1)).toList())
        .containsExactlyElementsOf(expected);
  }

  @Test
  void aFanoutWriteRecordsNoSortOrderAndReadsBackInOrder() throws Exception {
    sql("CREATE TABLE floe.sorted.fanout (id BIGINT, data STRING) USING iceberg"
        + " PARTITIONED BY (bucket(4, id))");
    table("fanout").replaceSortOrder().asc("id").commit();

    spark.sql("SELECT id, CAST(id AS STRING) AS data FROM range(0, 100, 1, 2)")
        .writeTo("floe.sorted.fanout")
        .option(WriteOptions.FANOUT_ENABLED, "true")
        .append();

    assertThat(dataFiles(table("fanout"))).isNotEmpty().allSatisfy(file -> assertUnsorted(file));
    assertThat(sql("SELECT id FROM floe.sorted.fanout ORDER BY id").stream().map(row -> row.getLong(0)))
        .containsExactlyElementsOf(LongStream.range(0, 100).boxed().toList());
  }

  @Test
  void anUnsortedTableRecordsNoSortOrder() {
    sql("CREATE TABLE floe.sorted.unsorted (id BIGINT) USING iceberg PARTITIONED BY (bucket(2, id))");

    sql("INSERT INTO floe.sorted.unsorted SELECT id FROM range(0, 10)");

    assertThat(dataFiles(table("unsorted"))).isNotEmpty().allSatisfy(file -> assertUnsorted(file));
  }

  @Test
  void aTaskWhoseRowsArrivedUnclusteredRecordsNoSortOrder() {
    sql("CREATE TABLE floe.sorted.zeros (id INT, x DOUBLE) USING iceberg PARTITIONED BY (x)"
        + " TBLPROPERTIES ('write.distribution-mode' = 'none')");
    table("zeros").replaceSortOrder().asc("id").commit();

    // Spark's sort holds 0.0 and -0.0 equal; to Iceberg they are two partitions
    sql("INSERT INTO floe.sorted.zeros SELECT /*+ COALESCE(1) */ * FROM VALUES"
        + " (1, 0.0D), (2, -0.0D), (3, 0.0D), (4, -0.0D)");

    assertThat(dataFiles(table("zeros"))).hasSizeGreaterThan(2).allSatisfy(file -> assertUnsorted(file));
    assertThat(sql("SELECT id, CAST(x AS STRING) FROM floe.sorted.zeros ORDER BY id").stream()
            .map(row -> row.getInt(0) + "=" + row.getString(1)))
        .containsExactly("1=0.0", "2=-0.0", "3=0.0", "4=-0.0");
  }

  /** A file that claims no order: Iceberg reads a missing sort order id as the unsorted order. */
  private static void assertUnsorted(DataFile file) {
    assertThat(file.sortOrderId()).isIn(null, SortOrder.unsorted().orderId());
  }

  private static Table table(String name) {
    return icebergTable(spark, "sorted." + name);
  }
}
