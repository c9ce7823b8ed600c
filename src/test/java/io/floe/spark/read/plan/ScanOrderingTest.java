package io.floe.spark.read.plan;

import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ReadTestSupport;
import io.floe.spark.read.ScanPlans;
import io.floe.spark.read.SortedFiles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A scan reports the table's sort order only when every task group really comes out in it: the
 * files record that they were written in that order and, within a group, do not overlap. Spark then
 * skips the sort before a sort-merge join or an ORDER BY on that key; otherwise it sorts, and the
 * results are ordered either way.
 */
class ScanOrderingTest extends SparkTestBase {
  @BeforeAll
  static void createTables() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.ordering");
    for (String name : List.of("left_side", "right_side", "overlap")) {
      sql(
          "CREATE TABLE floe.ordering.%s (id BIGINT, data STRING) USING iceberg"
              + " PARTITIONED BY (bucket(4, id))",
          name);
      sortById(name);
    }
    SortedFiles.appendPerPartition(table("left_side"), records("left_side", 0, 200, 1, "l"));
    SortedFiles.appendPerPartition(table("right_side"), records("right_side", 0, 300, 2, "r"));
    // two files per bucket whose id ranges interleave
    SortedFiles.appendPerPartition(table("overlap"), records("overlap", 0, 200, 2, "o"));
    SortedFiles.appendPerPartition(table("overlap"), records("overlap", 1, 200, 2, "o"));
  }

  @AfterEach
  void resetConf() {
    spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
    spark.conf().unset("spark.sql.sources.v2.bucketing.sorting.enabled");
  }

  @Test
  void sortedBucketedTablesJoinWithoutAShuffleOrASort() {
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    Dataset<Row> joined =
        spark.sql(
            "SELECT l.id, l.data, r.data FROM floe.ordering.left_side l"
                + " JOIN floe.ordering.right_side r ON l.id = r.id");
    List<Row> rows = joined.collectAsList();

    assertThat(ScanPlans.nodeNames(joined))
        .contains("SortMergeJoinExec")
        .doesNotContain("ShuffleExchangeExec", "SortExec");
    List<String> expected = new ArrayList<>();
    for (long id = 0; id < 200; id += 2) {
      expected.add("[" + id + ", l" + id + ", r" + id + "]");
    }
    assertThat(ReadTestSupport.canonicalRows(rows))
        .containsExactlyElementsOf(expected.stream().sorted().toList());
    FloeScan scan = floeScan(spark.table("floe.ordering.left_side"));
    assertThat(Arrays.stream(scan.outputOrdering()).map(SortOrder::describe))
        .containsExactly("id ASC NULLS FIRST");
    assertThat(scan.description()).contains("ordering=[id ASC NULLS FIRST]");
  }

  @Test
  void overlappingFilesReportNoOrderingAndSparkSortsThemItself() {
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    FloeScan scan = floeScan(spark.table("floe.ordering.overlap"));
    assertThat(scan.outputOrdering()).isEmpty();
    assertThat(scan.partitions()).anySatisfy(group -> assertThat(group.tasks()).hasSizeGreaterThan(1));

    Dataset<Row> joined =
        spark.sql(
            "SELECT o.id, r.data FROM floe.ordering.overlap o"
                + " JOIN floe.ordering.right_side r ON o.id = r.id");
    List<Row> rows = joined.collectAsList();
    assertThat(ScanPlans.nodeNames(joined)).contains("SortMergeJoinExec", "SortExec");
    assertThat(rows).hasSize(100);
    assertThat(rows).allSatisfy(row -> assertThat(row.getString(1)).isEqualTo("r" + row.getLong(0)));

    List<Long> ordered =
        sql("SELECT id FROM floe.ordering.overlap ORDER BY id").stream().map(r -> r.getLong(0)).toList();
    assertThat(ordered).containsExactlyElementsOf(LongStream.range(0, 200).boxed().toList());
  }

  @Test
  void orderByThePartitionKeySkipsTheSortWhenSparkMayUseTheReportedOrdering() {
    sql(
        "CREATE TABLE floe.ordering.by_category (category STRING, id BIGINT) USING iceberg"
            + " PARTITIONED BY (category)");
    Table table = table("by_category");
    table.replaceSortOrder().asc("category").asc("id").commit();
    List<Record> records = new ArrayList<>();
    for (String category : List.of("a", "b", "c")) {
      for (long id = 0; id < 20; id++) {
        records.add(SortedFiles.record(table, category, id));
      }
    }
    SortedFiles.appendPerPartition(table, records);
    spark.conf().set("spark.sql.sources.v2.bucketing.sorting.enabled", "true");

    Dataset<Row> ordered = spark.sql("SELECT category, id FROM floe.ordering.by_category ORDER BY category");
    List<Row> rows = ordered.collectAsList();

    assertThat(ScanPlans.nodeNames(ordered)).doesNotContain("SortExec", "ShuffleExchangeExec");
    List<String> expected = new ArrayList<>();
    for (String category : List.of("a", "b", "c")) {
      for (long id = 0; id < 20; id++) {
        expected.add("[" + category + ", " + id + "]");
      }
    }
    assertThat(rows.stream().map(ReadTestSupport::canonical).map(String::valueOf).toList())
        .containsExactlyElementsOf(expected);
  }

  @Test
  void filesThatDoNotRecordTheSortOrderReportNoOrdering() throws Exception {
    sql("CREATE TABLE floe.ordering.unrecorded (id BIGINT, data STRING) USING iceberg");
    sortById("unrecorded");
    // a fanout write does not sort its rows, so its files record no sort order
    spark
        .sql("SELECT id, CAST(id AS STRING) AS data FROM range(0, 50)")
        .writeTo("floe.ordering.unrecorded")
        .option("fanout-enabled", "true")
        .append();
    assertThat(ReadTestSupport.dataFiles(table("unrecorded")))
        .allSatisfy(file -> assertThat(file.sortOrderId()).isNotEqualTo(table("unrecorded").sortOrder().orderId()));

    FloeScan scan = floeScan(spark.table("floe.ordering.unrecorded"));
    assertThat(scan.outputOrdering()).isEmpty();
    assertThat(sql("SELECT id FROM floe.ordering.unrecorded ORDER BY id DESC LIMIT 3").stream().map(r -> r.getLong(0)))
        .containsExactly(49L, 48L, 47L);
  }

  @Test
  void aGroupOfSeveralSortedFilesIsReadInKeyOrderNotFileOrder() {
    sql("CREATE TABLE floe.ordering.ranges (id BIGINT, data STRING) USING iceberg");
    sortById("ranges");
    Table table = table("ranges");
    for (long start : List.of(200L, 0L, 300L, 100L)) {
      SortedFiles.appendFile(table, records("ranges", start, start + 100, 1, "x"));
    }

    Dataset<Row> df = spark.read().option("split-size", String.valueOf(1L << 30)).table("floe.ordering.ranges");
    FloeScan scan = floeScan(df);
    assertThat(scan.partitions()).hasSize(1);
    assertThat(scan.partitions().get(0).tasks()).hasSize(4);
    assertThat(Arrays.stream(scan.outputOrdering()).map(SortOrder::describe))
        .containsExactly("id ASC NULLS FIRST");
    List<Long> ids = df.select("id").collectAsList().stream().map(r -> r.getLong(0)).toList();
    assertThat(ids).containsExactlyElementsOf(LongStream.range(0, 400).boxed().toList());
  }

  private static Table table(String name) {
    return icebergTable(spark, "ordering." + name);
  }

  private static void sortById(String name) {
    table(name).replaceSortOrder().asc("id").commit();
  }

  private static List<Record> records(String name, long start, long end, long step, String prefix) {
    Table table = table(name);
    List<Record> records = new ArrayList<>();
    for (long id = start; id < end; id += step) {
      records.add(SortedFiles.record(table, id, prefix + id));
    }
    return records;
  }
}
