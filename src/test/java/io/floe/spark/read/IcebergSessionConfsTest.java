package io.floe.spark.read;

import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import io.floe.spark.write.WriteOptions;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DistributionMode;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.connector.read.partitioning.KeyGroupedPartitioning;
import org.apache.spark.sql.connector.read.partitioning.UnknownPartitioning;
import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A job configured for the official runtime through its {@code spark.sql.iceberg.*} session confs
 * keeps their meaning on Floe: vectorization, reported partitioning, aggregate pushdown,
 * distribution mode and advisory size. Floe's own {@code spark.floe.*} conf wins when both are set,
 * and a read or write option wins over both.
 */
class IcebergSessionConfsTest extends SparkTestBase {
  private static final String TABLE = "floe.confs.t";
  private static final List<String> CONFS =
      List.of(
          "spark.sql.iceberg.vectorization.enabled",
          "spark.sql.iceberg.planning.preserve-data-grouping",
          "spark.sql.iceberg.aggregate-push-down.enabled",
          "spark.sql.iceberg.distribution-mode",
          "spark.floe.read.vectorization-enabled",
          "spark.floe.read.report-partitioning",
          "spark.floe.read.aggregate-pushdown",
          "spark.floe.write.distribution-mode");

  @BeforeAll
  static void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.confs");
    sql("CREATE TABLE %s (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)", TABLE);
    sql("INSERT INTO %s SELECT id, IF(id %% 2 = 0, 'a', 'b') FROM range(0, 40)", TABLE);
  }

  @AfterEach
  void resetConfs() {
    CONFS.forEach(conf -> spark.conf().unset(conf));
  }

  @Test
  void vectorizationFollowsTheOfficialConfUnlessFloesOwnSaysOtherwise() {
    Dataset<Row> byDefault = spark.table(TABLE).orderBy("id");
    List<Row> expected = byDefault.collectAsList();
    assertThat(ScanPlans.nodeNames(byDefault)).contains("ColumnarToRowExec");

    spark.conf().set("spark.sql.iceberg.vectorization.enabled", "false");
    Dataset<Row> rowBased = spark.table(TABLE).orderBy("id");
    assertThat(rowBased.collectAsList()).isEqualTo(expected);
    assertThat(ScanPlans.nodeNames(rowBased)).doesNotContain("ColumnarToRowExec");

    spark.conf().set("spark.floe.read.vectorization-enabled", "true");
    Dataset<Row> columnar = spark.table(TABLE).orderBy("id");
    assertThat(columnar.collectAsList()).isEqualTo(expected);
    assertThat(ScanPlans.nodeNames(columnar)).contains("ColumnarToRowExec");
  }

  @Test
  void preserveDataGroupingOffStopsReportingThePartitioning() {
    assertThat(floeScan(spark.table(TABLE)).outputPartitioning()).isInstanceOf(KeyGroupedPartitioning.class);

    spark.conf().set("spark.sql.iceberg.planning.preserve-data-grouping", "false");
    assertThat(floeScan(spark.table(TABLE)).outputPartitioning()).isInstanceOf(UnknownPartitioning.class);

    spark.conf().set("spark.floe.read.report-partitioning", "true");
    assertThat(floeScan(spark.table(TABLE)).outputPartitioning()).isInstanceOf(KeyGroupedPartitioning.class);
  }

  @Test
  void aggregatePushDownOffScansTheRows() {
    String query = "SELECT count(*), min(id), max(id) FROM " + TABLE;
    Dataset<Row> fromMetadata = spark.sql(query);
    List<Row> expected = fromMetadata.collectAsList();
    assertThat(ScanPlans.nodeNames(fromMetadata)).doesNotContain("BatchScanExec");

    spark.conf().set("spark.sql.iceberg.aggregate-push-down.enabled", "false");
    Dataset<Row> scanned = spark.sql(query);
    assertThat(scanned.collectAsList()).isEqualTo(expected);
    assertThat(ScanPlans.nodeNames(scanned)).contains("BatchScanExec");
  }

  @Test
  void distributionModeNoneLeavesEachTaskWritingEveryPartition() {
    sql("CREATE TABLE floe.confs.w (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)");
    try {
      String insert =
          "INSERT INTO floe.confs.w SELECT /*+ REPARTITION(3) */ id, IF(id % 2 = 0, 'a', 'b')"
              + " FROM range(0, 300)";
      spark.sql(insert);
      assertThat(dataFiles(icebergTable(spark, "confs.w"))).hasSize(2);

      spark.conf().set("spark.sql.iceberg.distribution-mode", "none");
      spark.sql(insert);
      // three input tasks each hold rows of both partitions and nothing regroups them
      assertThat(dataFiles(icebergTable(spark, "confs.w"))).hasSize(2 + 6);

      spark.conf().set("spark.floe.write.distribution-mode", "hash");
      spark.sql(insert);
      assertThat(dataFiles(icebergTable(spark, "confs.w"))).hasSize(2 + 6 + 2);
      assertThat(spark.sql("SELECT count(*), count(DISTINCT id) FROM floe.confs.w").first())
          .isEqualTo(RowFactory.create(900L, 300L));
    } finally {
      sql("DROP TABLE floe.confs.w PURGE");
    }
  }

  @Test
  void writeConfsResolveAfterFloesOwnAndBeforeTableProperties() {
    SQLConf conf = new SQLConf();
    Map<String, String> properties = Map.of("write.distribution-mode", "range");
    conf.setConfString("spark.sql.iceberg.distribution-mode", "none");
    conf.setConfString("spark.sql.iceberg.advisory-partition-size", "4096");

    WriteOptions official = WriteOptions.resolve("db.t", Map.of(), conf, properties);
    assertThat(official.distributionMode()).isEqualTo(DistributionMode.NONE);
    assertThat(official.advisoryPartitionSizeBytes()).isEqualTo(4096L);

    conf.setConfString("spark.floe.write.distribution-mode", "hash");
    conf.setConfString("spark.floe.write.advisory-partition-size", "8192");
    WriteOptions floes = WriteOptions.resolve("db.t", Map.of(), conf, properties);
    assertThat(floes.distributionMode()).isEqualTo(DistributionMode.HASH);
    assertThat(floes.advisoryPartitionSizeBytes()).isEqualTo(8192L);

    WriteOptions option =
        WriteOptions.resolve("db.t", Map.of("distribution-mode", "range"), conf, properties);
    assertThat(option.distributionMode()).isEqualTo(DistributionMode.RANGE);

    conf.unsetConf("spark.floe.write.distribution-mode");
    conf.setConfString("spark.sql.iceberg.distribution-mode", "sideways");
    assertThatThrownBy(() -> WriteOptions.resolve("db.t", Map.of(), conf, properties))
        .hasMessageContaining("db.t")
        .hasMessageContaining("distribution-mode")
        .hasMessageContaining("sideways");
  }
}
