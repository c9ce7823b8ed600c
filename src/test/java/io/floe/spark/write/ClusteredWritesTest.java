package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Writes with the clustered writer (distribution none or range, a sort order, or fanout off): it keeps one file open and
 * relies on the ordering the write asks Spark for, which holds the partition transforms even when
 * rows are not distributed. Also: the fanout writer on request, range distribution for sorted
 * tables, the distribution-mode option, and writes Spark plans without a function catalog.
 */
class ClusteredWritesTest extends SparkTestBase {

  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
  }

  @AfterEach
  void dropTable() {
    sql("DROP TABLE IF EXISTS floe.db.t");
  }

  @Test
  void unsortedValuesIntoOneTaskWriteOneFilePerPartition() {
    sql("CREATE TABLE floe.db.t (id INT, p STRING) USING iceberg PARTITIONED BY (p) "
        + "TBLPROPERTIES ('write.distribution-mode' = 'none')");

    // the INSERT INTO t /*+ COALESCE(1) */ VALUES ... is not Spark SQL: hints follow SELECT
    sql("INSERT INTO floe.db.t SELECT /*+ COALESCE(1) */ * FROM VALUES (1, 'b'), (2, 'a'), (3, 'b'), (4, 'a')");

    assertThat(sql("SELECT id, p FROM floe.db.t ORDER BY id"))
        .containsExactly(RowFactory.create(1, "b"), RowFactory.create(2, "a"), RowFactory.create(3, "b"), RowFactory.create(4, "a"));
    Table table = WrittenFiles.table(spark, "db.t");
    List<DataFile> files = WrittenFiles.added(table);
    assertThat(files).hasSize(2);
    assertThat(WrittenFiles.partitions(table, files)).containsExactly("p=a", "p=b");
  }

  @Test
  void withoutDistributionSparkIsStillAskedToSortByThePartitionTransforms() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, s STRING) USING iceberg "
        + "PARTITIONED BY (days(ts), bucket(4, id), truncate(2, s)) "
        + "TBLPROPERTIES ('write.distribution-mode' = 'none')");

    String plan = explain("INSERT INTO floe.db.t SELECT id, current_timestamp(), 'x' FROM range(10)");

    assertThat(plan).doesNotContain("RebalancePartitions").doesNotContain("RepartitionByExpression");
    assertThat(plan).containsPattern(
        "Sort \\[static_invoke\\(io\\.floe\\.spark\\.functions\\.DaysFunction\\$FromTimestamp\\.invoke\\(ts#\\d+\\)\\) ASC NULLS FIRST, invoke\\(floe\\.bucket\\(int, bigint\\)\\.invoke\\(4, id.*\\)\\) "
            + "ASC NULLS FIRST, invoke\\(floe\\.truncate\\(int, string\\)\\.invoke\\(2, s.*\\)\\) ASC NULLS FIRST\\], false");
  }

  @Test
  void everyTransformKindWritesClusteredFromUnsortedInputWithoutDistribution() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, d DATE, s STRING) USING iceberg "
        + "PARTITIONED BY (hours(ts), months(d), bucket(3, id), truncate(1, s)) "
        + "TBLPROPERTIES ('write.distribution-mode' = 'none')");
    // 4 hours x 4 months x 4 letters, moving together, times 3 buckets: 12 table partitions,
    // interleaved row by row in each of the 3 input tasks
    spark.range(0, 6_000, 1, 3)
        .selectExpr(
            "id",
            "TIMESTAMP '2024-03-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(id % 4 AS INT)) AS ts",
            "add_months(DATE '2023-11-15', CAST(id % 4 AS INT)) AS d",
            "concat(char(97 + CAST(id % 4 AS INT)), CAST(id AS STRING)) AS s")
        .createOrReplaceTempView("unsorted");

    sql("INSERT INTO floe.db.t SELECT * FROM unsorted");

    assertThat(sql("SELECT count(*) FROM floe.db.t").get(0).getLong(0)).isEqualTo(6_000L);
    assertThat(sql("SELECT * FROM floe.db.t EXCEPT SELECT * FROM unsorted")).isEmpty();
    Table table = WrittenFiles.table(spark, "db.t");
    List<DataFile> files = WrittenFiles.added(table);
    assertThat(WrittenFiles.partitions(table, files)).hasSize(12);
    // each input task writes each table partition it holds in exactly one file
    assertThat(WrittenFiles.filesPerPartitionAndTask(table, files).values()).containsOnly(1);
    assertThat(WrittenFiles.writerTasks(files)).hasSize(3);
    assertThat(files).hasSize(36);
  }

  @Test
  void rowsOrderedByThePartitionColumnWriteOneFilePerValue() {
    sql("CREATE TABLE floe.db.t (id BIGINT, p INT) USING iceberg PARTITIONED BY (p) "
        + "TBLPROPERTIES ('write.distribution-mode' = 'none')");
    spark.range(0, 100_000, 1, 4).selectExpr("id", "CAST(id % 10 AS INT) AS p")
        .createOrReplaceTempView("hundred_k");

    sql("INSERT INTO floe.db.t SELECT id, p FROM hundred_k ORDER BY p");

    assertThat(sql("SELECT count(*), count(DISTINCT id) FROM floe.db.t").get(0))
        .isEqualTo(RowFactory.create(100_000L, 100_000L));
    Table table = WrittenFiles.table(spark, "db.t");
    List<DataFile> files = WrittenFiles.added(table);
    assertThat(files).hasSize(10);
    assertThat(WrittenFiles.partitions(table, files)).hasSize(10);
    assertThat(files).allSatisfy(file -> assertThat(file.recordCount()).isEqualTo(10_000L));
  }

  @Test
  void rowsThatArriveUnclusteredSwitchTheTaskToTheFanoutWriter() {
    // Spark holds uuids as strings: it cannot compute a uuid's bucket, so it cannot cluster by it
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    Schema schema =
        new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "u", Types.UUIDType.get()));
    catalog.icebergCatalog().createTable(
        TableIdentifier.of("db", "t"),
        schema,
        PartitionSpec.builderFor(schema).bucket("u", 2).build(),
        Map.of("write.distribution-mode", "none"));

    sql("INSERT INTO floe.db.t SELECT /*+ COALESCE(1) */ id, uuid() FROM range(200)");

    assertThat(sql("SELECT count(*), count(DISTINCT u) FROM floe.db.t").get(0)).isEqualTo(RowFactory.create(200L, 200L));
    Table table = WrittenFiles.table(spark, "db.t");
    List<DataFile> files = WrittenFiles.added(table);
    assertThat(WrittenFiles.partitions(table, files)).containsExactly("u_bucket=0", "u_bucket=1");
    // the first partition to come back gets a second file; no partition gets more than two
    assertThat(files).hasSizeBetween(3, 4);
  }

  @Test
  void valuesSparkSortsAsEqualButIcebergPartitionsApartAreWritten() {
    // Spark's sort holds 0.0 and -0.0 equal; to Iceberg they are two partitions
    sql("CREATE TABLE floe.db.t (id INT, x DOUBLE) USING iceberg PARTITIONED BY (x) "
        + "TBLPROPERTIES ('write.distribution-mode' = 'none')");

    sql("INSERT INTO floe.db.t SELECT /*+ COALESCE(1) */ * FROM VALUES (1, 0.0D), (2, -0.0D), (3, 0.0D), (4, -0.0D)");

    List<Row> rows = sql("SELECT id, CAST(x AS STRING) FROM floe.db.t ORDER BY id");
    assertThat(rows).containsExactly(RowFactory.create(1, "0.0"), RowFactory.create(2, "-0.0"), RowFactory.create(3, "0.0"), RowFactory.create(4, "-0.0"));
    Table table = WrittenFiles.table(spark, "db.t");
    assertThat(WrittenFiles.partitions(table, WrittenFiles.added(table))).containsExactly("x=-0.0", "x=0.0");
  }

  @Test
  void fanoutWriterNeedsNoOrdering() {
    sql("CREATE TABLE floe.db.t (id INT, p STRING) USING iceberg PARTITIONED BY (p) "
        + "TBLPROPERTIES ('write.distribution-mode' = 'none', 'write.spark.fanout.enabled' = 'true')");

    assertThat(explain("INSERT INTO floe.db.t VALUES (1, 'b')")).doesNotContain("Sort [");
    sql("INSERT INTO floe.db.t SELECT /*+ COALESCE(1) */ * FROM VALUES (1, 'b'), (2, 'a'), (3, 'b'), (4, 'a')");

    Table table = WrittenFiles.table(spark, "db.t");
    assertThat(WrittenFiles.added(table)).hasSize(2);
    assertThat(sql("SELECT count(*) FROM floe.db.t").get(0).getLong(0)).isEqualTo(4L);
  }

  @Test
  void theDistributionModeOptionOverridesTheTableProperty() throws Exception {
    sql("CREATE TABLE floe.db.t (id BIGINT, p INT) USING iceberg PARTITIONED BY (p) "
        + "TBLPROPERTIES ('write.distribution-mode' = 'none')");
    spark.range(0, 1000, 1, 4).selectExpr("id", "CAST(id % 3 AS INT) AS p")
        .writeTo("floe.db.t").option("distribution-mode", "hash").append();

    Table table = WrittenFiles.table(spark, "db.t");
    // hash: one file per partition instead of one per partition per input task
    assertThat(WrittenFiles.added(table)).hasSize(3);
  }

  @Test
  void sortedTablesAreRangeDistributedAndSortedInEveryFile() {
    sql("CREATE TABLE floe.db.t (id BIGINT, p INT) USING iceberg PARTITIONED BY (p)");
    Table table = WrittenFiles.table(spark, "db.t");
    table.replaceSortOrder().desc("id").commit();

    spark.range(0, 20_000, 1, 4).selectExpr("(id * 7919) % 20000 AS id", "CAST(id % 2 AS INT) AS p")
        .createOrReplaceTempView("shuffled");
    // keep the 4 shuffle partitions apart, so that each partition's rows span several ranges
    spark.conf().set("spark.sql.adaptive.coalescePartitions.enabled", "false");
    try {
      sql("INSERT INTO floe.db.t SELECT * FROM shuffled");
    } finally {
      spark.conf().unset("spark.sql.adaptive.coalescePartitions.enabled");
    }

    List<Row> rows = sql("SELECT _file, p, id FROM floe.db.t");
    assertThat(rows).hasSize(20_000);
    Map<String, List<Long>> idsByFile = new TreeMap<>();
    Map<String, Integer> partitionByFile = new TreeMap<>();
    for (Row row : sql("SELECT _file, p, id FROM floe.db.t ORDER BY _file, _pos")) {
      idsByFile.computeIfAbsent(row.getString(0), f -> new ArrayList<>()).add(row.getLong(2));
      partitionByFile.put(row.getString(0), row.getInt(1));
    }
    // 4 ranges over 2 partitions: more files than partitions ...
    assertThat(idsByFile).hasSizeGreaterThan(2);
    // ... each sorted by id descending, and files of one partition hold disjoint id ranges
    List<long[]> ranges = new ArrayList<>();
    idsByFile.forEach((file, ids) -> {
      List<Long> sorted = new ArrayList<>(ids);
      sorted.sort((a, b) -> Long.compare(b, a));
      assertThat(ids).as("rows of %s", file).isEqualTo(sorted);
      ranges.add(new long[] {partitionByFile.get(file), ids.get(ids.size() - 1), ids.get(0)});
    });
    for (long[] a : ranges) {
      for (long[] b : ranges) {
        if (a != b && a[0] == b[0]) {
          assertThat(a[2] < b[1] || b[2] < a[1]).as("disjoint id ranges").isTrue();
        }
      }
    }
  }

  @Test
  void createTableAsSelectIsDistributedByTheNewTablesTransforms() {
    sql("CREATE TABLE floe.db.t USING iceberg PARTITIONED BY (days(ts)) AS "
        + "SELECT id, TIMESTAMP '2024-03-01 00:00:00' + make_interval(0, 0, 0, CAST(id %% 3 AS INT)) AS ts "
        + "FROM range(0, 3000, 1, 4)");

    Table table = WrittenFiles.table(spark, "db.t");
    assertThat(WrittenFiles.added(table)).hasSize(3);
    assertThat(sql("SELECT count(*) FROM floe.db.t").get(0).getLong(0)).isEqualTo(3000L);
  }

  @Test
  void pathBasedWritesIntoTransformedPartitionsSucceed() {
    sql("CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, p INT) USING iceberg PARTITIONED BY (days(ts), p)");
    Table table = WrittenFiles.table(spark, "db.t");

    // Spark offers no function catalog to path-based writes: only p can be distributed by, and
    // rows reach the clustered writer unclustered by day (it goes on with a fanout writer)
    spark.range(0, 3000, 1, 4)
        .selectExpr(
            "id",
            "TIMESTAMP '2024-03-01 00:00:00' + make_interval(0, 0, 0, CAST(id % 3 AS INT)) AS ts",
            "CAST(id % 2 AS INT) AS p")
        .write().format("floe").mode("append").save(table.location());

    assertThat(sql("SELECT count(*), count(DISTINCT id) FROM floe.db.t").get(0)).isEqualTo(RowFactory.create(3000L, 3000L));
    table.refresh();
    assertThat(WrittenFiles.partitions(table, WrittenFiles.added(table))).hasSize(6);
  }

  private static String explain(String statement) {
    return spark.sql("EXPLAIN EXTENDED " + statement).collectAsList().get(0).getString(0);
  }
}
