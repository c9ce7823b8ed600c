package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.ScanPlans;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The writer a write gets by what its distribution guarantees: an INSERT into a partitioned table
 * without a sort order, hash-distributed by its partitions (the default), runs without a sort and
 * writes with the fanout writer; a sort order, range or none distribution and {@code
 * fanout-enabled=false} keep Spark's sort. Copy-on-write row-level operations on a table without
 * a sort order run without a sort, as in the official runtime, and keep one file per partition per
 * task. {@code use-table-distribution-and-ordering=false} asks Spark for neither shuffle nor sort.
 * The fanout writer's open-file bound keeps every row and one file per partition per task.
 */
class WriterChoiceTest extends SparkTestBase {

  @BeforeAll
  static void createSource() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    // 6 days and 4 kinds, interleaved row by row in each of 3 input partitions
    spark
        .range(0, 12_000, 1, 3)
        .selectExpr(
            "id",
            "TIMESTAMP '2024-03-01 06:00:00' + make_interval(0, 0, 0, CAST(id % 6 AS INT)) AS ts",
            "element_at(array('a', 'b', 'c', 'd'), CAST(id % 4 AS INT) + 1) AS kind")
        .createOrReplaceTempView("src");
  }

  @AfterEach
  void dropTable() {
    sql("DROP TABLE IF EXISTS floe.db.t");
  }

  @Test
  void insertIntoAPartitionedUnsortedTableRunsWithoutSort() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
        + "PARTITIONED BY (days(ts))");

    List<String> nodes = writePlan("INSERT INTO floe.db.t SELECT * FROM src");

    assertThat(nodes).contains("ShuffleExchangeExec").doesNotContain("SortExec");
    assertSameRowsAsSource();
    Table table = WrittenFiles.table(spark, "db.t");
    List<DataFile> files = WrittenFiles.added(table);
    assertThat(WrittenFiles.partitions(table, files)).hasSize(6);
    assertThat(WrittenFiles.filesPerPartitionAndTask(table, files).values()).containsOnly(1);
    // unsorted rows: no file claims an order
    assertThat(files).allSatisfy(file -> assertThat(file.sortOrderId()).isIn(null, 0));
  }

  @Test
  void aTableWithASortOrderStillSortsAndItsFilesRecordTheOrder() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
        + "PARTITIONED BY (days(ts)) TBLPROPERTIES ('write.distribution-mode' = 'hash')");
    WrittenFiles.table(spark, "db.t").replaceSortOrder().asc("id").commit();

    List<String> nodes = writePlan("INSERT INTO floe.db.t SELECT * FROM src");

    assertThat(nodes).contains("SortExec");
    assertSameRowsAsSource();
    Table table = WrittenFiles.table(spark, "db.t");
    int orderId = table.sortOrder().orderId();
    assertThat(orderId).isPositive();
    assertThat(WrittenFiles.added(table)).allSatisfy(file -> assertThat(file.sortOrderId()).isEqualTo(orderId));
  }

  @Test
  void theFanoutWriterOnASortedTableRecordsNoOrder() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
        + "PARTITIONED BY (days(ts)) TBLPROPERTIES ('write.spark.fanout.enabled' = 'true')");
    WrittenFiles.table(spark, "db.t").replaceSortOrder().asc("id").commit();

    sql("INSERT INTO floe.db.t SELECT * FROM src");

    assertSameRowsAsSource();
    Table table = WrittenFiles.table(spark, "db.t");
    assertThat(WrittenFiles.added(table))
        .isNotEmpty()
        .allSatisfy(file -> assertThat(file.sortOrderId()).isIn(null, 0));
  }

  @Test
  void rangeAndNoneDistributionsStillSort() {
    for (String mode : List.of("range", "none")) {
      sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
          + "PARTITIONED BY (days(ts)) TBLPROPERTIES ('write.distribution-mode' = '%s')", mode);

      assertThat(writePlan("INSERT INTO floe.db.t SELECT * FROM src")).as(mode).contains("SortExec");
      assertSameRowsAsSource();
      Table table = WrittenFiles.table(spark, "db.t");
      assertThat(WrittenFiles.filesPerPartitionAndTask(table, WrittenFiles.added(table)).values())
          .as(mode)
          .containsOnly(1);
      sql("DROP TABLE floe.db.t");
    }
  }

  @Test
  void fanoutDisabledByTheTableOrTheWriteStillSorts() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
        + "PARTITIONED BY (days(ts)) TBLPROPERTIES ('write.spark.fanout.enabled' = 'false')");
    assertThat(writePlan("INSERT INTO floe.db.t SELECT * FROM src")).contains("SortExec");
    assertSameRowsAsSource();

    sql("ALTER TABLE floe.db.t UNSET TBLPROPERTIES ('write.spark.fanout.enabled')");
    spark.conf().set("spark.floe.write.fanout-enabled", "false");
    try {
      assertThat(writePlan("INSERT OVERWRITE floe.db.t SELECT * FROM src")).contains("SortExec");
    } finally {
      spark.conf().unset("spark.floe.write.fanout-enabled");
    }
    assertSameRowsAsSource();
  }

  @Test
  void copyOnWriteUpdateAndMergeOfAnUnsortedTableRunWithoutSort() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
        + "PARTITIONED BY (days(ts)) TBLPROPERTIES ('format-version' = '2')");
    sql("INSERT INTO floe.db.t SELECT * FROM src");

    assertThat(writePlan("UPDATE floe.db.t SET kind = 'z' WHERE id % 10 = 0"))
        .contains("ShuffleExchangeExec")
        .doesNotContain("SortExec");
    Table updated = WrittenFiles.table(spark, "db.t");
    assertThat(WrittenFiles.filesPerPartitionAndTask(updated, WrittenFiles.added(updated)).values())
        .containsOnly(1);
    assertThat(writePlan("MERGE INTO floe.db.t t USING (SELECT id, ts, 'm' AS kind FROM src WHERE id % 7 = 0) s "
        + "ON t.id = s.id WHEN MATCHED THEN UPDATE SET kind = s.kind"))
        .doesNotContain("SortExec");
    Table merged = WrittenFiles.table(spark, "db.t");
    assertThat(WrittenFiles.filesPerPartitionAndTask(merged, WrittenFiles.added(merged)).values())
        .containsOnly(1);

    Dataset<Row> expected =
        spark.sql("SELECT id, ts, CASE WHEN id % 7 = 0 THEN 'm' WHEN id % 10 = 0 THEN 'z' ELSE kind END AS kind FROM src");
    assertThat(spark.table("floe.db.t").exceptAll(expected).collectAsList()).isEmpty();
    assertThat(expected.exceptAll(spark.table("floe.db.t")).collectAsList()).isEmpty();
  }

  @Test
  void copyOnWriteOfASortedTableStillSorts() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
        + "PARTITIONED BY (days(ts)) TBLPROPERTIES ('format-version' = '2')");
    WrittenFiles.table(spark, "db.t").replaceSortOrder().asc("id").commit();
    sql("INSERT INTO floe.db.t SELECT * FROM src");

    assertThat(writePlan("UPDATE floe.db.t SET kind = 'z' WHERE id % 10 = 0")).contains("SortExec");

    Dataset<Row> expected =
        spark.sql("SELECT id, ts, CASE WHEN id % 10 = 0 THEN 'z' ELSE kind END AS kind FROM src");
    assertThat(spark.table("floe.db.t").exceptAll(expected).collectAsList()).isEmpty();
    assertThat(expected.exceptAll(spark.table("floe.db.t")).collectAsList()).isEmpty();
  }

  @Test
  void withoutTheTablesDistributionAndOrderingAnInsertNeitherShufflesNorSorts() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
        + "PARTITIONED BY (days(ts))");
    WrittenFiles.table(spark, "db.t").replaceSortOrder().asc("id").commit();

    List<String> nodes =
        writePlan("INSERT INTO floe.db.t WITH ('use-table-distribution-and-ordering' = 'false') "
            + "SELECT * FROM src");

    assertThat(nodes).doesNotContain("ShuffleExchangeExec", "SortExec");
    assertSameRowsAsSource();
    Table table = WrittenFiles.table(spark, "db.t");
    List<DataFile> files = WrittenFiles.added(table);
    // each of the 3 input tasks met all 6 days: one file per day per task, none claiming the order
    assertThat(files).hasSize(18);
    assertThat(WrittenFiles.filesPerPartitionAndTask(table, files).values()).containsOnly(1);
    assertThat(files).allSatisfy(file -> assertThat(file.sortOrderId()).isIn(null, 0));
  }

  @Test
  void aSmallOpenFileBoundKeepsEveryRowAndOneFilePerPartitionPerTask() throws Exception {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
        + "PARTITIONED BY (days(ts), kind)");

    // 12 table partitions (the pairs of day and kind that occur), at most 2 open in each task
    spark.table("src").writeTo("floe.db.t").option("fanout-max-open-files", "2").append();

    assertSameRowsAsSource();
    Table table = WrittenFiles.table(spark, "db.t");
    List<DataFile> files = WrittenFiles.added(table);
    assertThat(WrittenFiles.partitions(table, files)).hasSize(12);
    assertThat(WrittenFiles.filesPerPartitionAndTask(table, files).values()).containsOnly(1);
  }

  @Test
  void aSmallOpenFileBoundOverInterleavedRowsOfOneTaskStillWritesOneFilePerPartition() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
        + "PARTITIONED BY (days(ts)) TBLPROPERTIES ('write.distribution-mode' = 'none', "
        + "'write.spark.fanout.enabled' = 'true', 'write.spark.fanout.max-open-files' = '2')");

    // one task meets the 6 days row after row
    assertThat(writePlan("INSERT INTO floe.db.t SELECT /*+ COALESCE(1) */ * FROM src"))
        .doesNotContain("SortExec");

    assertSameRowsAsSource();
    Table table = WrittenFiles.table(spark, "db.t");
    List<DataFile> files = WrittenFiles.added(table);
    assertThat(files).hasSize(6);
    assertThat(WrittenFiles.partitions(table, files)).hasSize(6);
    assertThat(files.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(12_000L);
  }

  @Test
  void theOpenFileBoundMustBePositive() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg "
        + "PARTITIONED BY (days(ts))");

    assertThatThrownBy(
            () -> spark.table("src").writeTo("floe.db.t").option("fanout-max-open-files", "0").append())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write to floe.db.t: option 'fanout-max-open-files' must be positive, not 0");
    assertThat(WrittenFiles.table(spark, "db.t").currentSnapshot()).isNull();
  }

  private static void assertSameRowsAsSource() {
    Dataset<Row> written = spark.table("floe.db.t");
    Dataset<Row> source = spark.table("src");
    assertThat(written.count()).isEqualTo(source.count());
    assertThat(written.exceptAll(source).collectAsList()).isEmpty();
    assertThat(source.exceptAll(written).collectAsList()).isEmpty();
  }

  /** Runs a write and names the nodes of the plan it ran with, through adaptive stages. */
  private static List<String> writePlan(String statement) {
    Dataset<Row> result = spark.sql(statement);
    SparkPlan plan = ((org.apache.spark.sql.classic.Dataset<Row>) result).queryExecution().executedPlan();
    return ScanPlans.nodes(plan, false).stream().map(node -> node.getClass().getSimpleName()).toList();
  }
}
