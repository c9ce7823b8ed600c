package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How many files a write makes: 200,000 rows from a source of 8 input partitions, spread evenly
 * over the table partitions (every input partition holds rows of every table partition), written
 * into tables partitioned by each kind of transform. Hash distribution (the default for partitioned
 * tables) must give each table partition to one writer task, so the table gets one file per table
 * partition, not one per table partition per input partition.
 */
class FileCountTest extends SparkTestBase {
  private static final long ROWS = 200_000;
  private static final int INPUT_PARTITIONS = 8;

  @BeforeAll
  static void createSource() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    spark
        .range(0, ROWS, 1, INPUT_PARTITIONS)
        .selectExpr(
            "id",
            // 5 days, 5 months and 5 three-letter prefixes, cycling row by row
            "TIMESTAMP '2024-03-01 06:00:00' + make_interval(0, 0, 0, CAST(id % 5 AS INT)) AS ts",
            "add_months(DATE '2024-01-15', CAST(id % 5 AS INT)) AS d",
            "concat(element_at(array('abc', 'abd', 'xyz', 'qrs', 'klm'), CAST(id % 5 AS INT) + 1), "
                + "CAST(id AS STRING)) AS s")
        .createOrReplaceTempView("src");
  }

  @AfterEach
  void dropTable() {
    sql("DROP TABLE IF EXISTS floe.db.t");
  }

  @Test
  void adaptiveExecutionIsOnByDefault() {
    // the "default advisory settings" below are adaptive execution's: coalescing small shuffle
    // partitions towards spark.sql.adaptive.advisoryPartitionSizeInBytes (64 MB)
    assertThat(spark.conf().get("spark.sql.adaptive.enabled")).isEqualTo("true");
    assertThat(spark.conf().get("spark.sql.adaptive.coalescePartitions.enabled")).isEqualTo("true");
    assertThat(spark.sessionState().conf().getConf(SQLConf.ADVISORY_PARTITION_SIZE_IN_BYTES()))
        .isEqualTo(64L * 1024 * 1024);
    assertThat(spark.table("src").rdd().getNumPartitions()).isEqualTo(INPUT_PARTITIONS);
  }

  @Test
  void daysPartitionsGetOneFileEachWithHashDistribution() {
    List<DataFile> files = insertInto("days(ts)");
    Table table = WrittenFiles.table(spark, "db.t");

    assertThat(WrittenFiles.partitions(table, files)).hasSize(5);
    assertOneFilePerPartitionPerTask(table, files);
    assertThat(files).hasSizeLessThanOrEqualTo(5);
    // with the default advisory size, adaptive execution coalesces the shuffle into one task
    assertThat(WrittenFiles.writerTasks(files)).hasSize(1);
  }

  @Test
  void bucketPartitionsGetOneFileEachWithHashDistribution() {
    List<DataFile> files = insertInto("bucket(16, id)");
    Table table = WrittenFiles.table(spark, "db.t");

    assertThat(WrittenFiles.partitions(table, files)).hasSize(16);
    assertOneFilePerPartitionPerTask(table, files);
    assertThat(files).hasSize(16);
  }

  @Test
  void truncatePartitionsGetOneFileEachWithHashDistribution() {
    List<DataFile> files = insertInto("truncate(3, s)");
    Table table = WrittenFiles.table(spark, "db.t");

    assertThat(WrittenFiles.partitions(table, files))
        .containsExactly("s_trunc=abc", "s_trunc=abd", "s_trunc=klm", "s_trunc=qrs", "s_trunc=xyz");
    assertOneFilePerPartitionPerTask(table, files);
    assertThat(files).hasSize(5);
  }

  @Test
  void monthsPartitionsGetOneFileEachWithHashDistribution() {
    List<DataFile> files = insertInto("months(d)");
    Table table = WrittenFiles.table(spark, "db.t");

    assertThat(WrittenFiles.partitions(table, files))
        .containsExactly("d_month=2024-01", "d_month=2024-02", "d_month=2024-03", "d_month=2024-04", "d_month=2024-05");
    assertOneFilePerPartitionPerTask(table, files);
    assertThat(files).hasSize(5);
  }

  @Test
  void twoFieldPartitionsGetOneFileEachWithHashDistribution() {
    List<DataFile> files = insertInto("bucket(4, id), days(ts)");
    Table table = WrittenFiles.table(spark, "db.t");

    int partitions = WrittenFiles.partitions(table, files).size();
    assertThat(partitions).isEqualTo(20);
    assertOneFilePerPartitionPerTask(table, files);
    assertThat(files).hasSize(partitions);
  }

  @Test
  void withoutDistributionEveryInputPartitionWritesEveryTablePartition() {
    // the contrast that shows what the hash distribution above saves
    List<DataFile> files =
        insertInto("days(ts)", "'write.distribution-mode' = 'none', 'write.spark.fanout.enabled' = 'true'");

    assertThat(files).hasSize(5 * INPUT_PARTITIONS);
  }

  @Test
  void aSmallAdvisoryPartitionSizeSpreadsTheWriteOverMoreTasks() {
    List<DataFile> files =
        insertInto("days(ts)", "'write.spark.advisory-partition-size-bytes' = '4096'");
    Table table = WrittenFiles.table(spark, "db.t");

    // adaptive execution splits each day's shuffle partition into pieces of about 4 KB
    assertThat(WrittenFiles.writerTasks(files)).hasSizeGreaterThan(1);
    assertThat(files).hasSizeGreaterThan(5);
    assertOneFilePerPartitionPerTask(table, files);
  }

  private static List<DataFile> insertInto(String partitioning, String... properties) {
    sql(
        "CREATE TABLE floe.db.t (id BIGINT, ts TIMESTAMP, d DATE, s STRING) USING iceberg "
            + "PARTITIONED BY (%s)%s",
        partitioning,
        properties.length == 0 ? "" : " TBLPROPERTIES (" + String.join(", ", properties) + ")");
    sql("INSERT INTO floe.db.t SELECT id, ts, d, s FROM src");
    Row counts = sql("SELECT count(*), count(DISTINCT id) FROM floe.db.t").get(0);
    assertThat(counts.getLong(0)).isEqualTo(ROWS);
    assertThat(counts.getLong(1)).isEqualTo(ROWS);
    return WrittenFiles.added(WrittenFiles.table(spark, "db.t"));
  }

  private static void assertOneFilePerPartitionPerTask(Table table, List<DataFile> files) {
    Map<String, Integer> counts = WrittenFiles.filesPerPartitionAndTask(table, files);
    assertThat(counts.values()).as("files per table partition per writer task: %s", counts).containsOnly(1);
  }
}
