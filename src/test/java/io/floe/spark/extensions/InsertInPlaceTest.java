package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An INSERT into a Floe table with Floe's session extensions ({@link InsertInPlace}): when every
 * partition column comes unchanged from a Floe scan of files partitioned the same way, the rows are
 * written by the tasks that read them, with no shuffle, one file per partition, even when the scan
 * had packed a partition's files into two task groups; so are a CTAS and an RTAS of the same spec,
 * and a copy into a coarser spec. A computed partition column, a finer or unrelated spec, files of
 * two specs, a uuid column written as a string, a join, a partition heavier than the write's
 * advisory partition size, or a distribution that is not Floe's clustering keep the shuffle. After every statement the table holds what the same query over a temp view of the
 * source's rows gives.
 */
class InsertInPlaceTest {
  private static final String SOURCE = "floe.iip.src";
  private static final String TARGET = "floe.iip.dst";
  private static Path warehouse;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws IOException {
    warehouse = Files.createTempDirectory("floe-insert-in-place");
    spark =
        ExtensionSessions.start(
            "insert-in-place",
            Map.of(
                "spark.sql.catalog.floe", FloeCatalog.class.getName(),
                "spark.sql.catalog.floe.type", "hadoop",
                "spark.sql.catalog.floe.warehouse", warehouse.toUri().toString()));
    spark.sql("CREATE NAMESPACE floe.iip");
  }

  @AfterAll
  static void stop() throws IOException {
    ExtensionSessions.stop(spark, warehouse);
    spark = null;
  }

  @AfterEach
  void dropTables() {
    spark.sql("DROP TABLE IF EXISTS " + SOURCE + " PURGE");
    spark.sql("DROP TABLE IF EXISTS " + TARGET + " PURGE");
  }

  /**
   * The source: three inserts of 40 rows, one file per partition of {@code partitioning} each, so
   * each partition holds three files; {@code v} is a temp view of its rows.
   */
  private static void source(String partitioning) {
    source(partitioning, 40);
  }

  /** As {@link #source(String)}, with {@code batchRows} rows in each insert. */
  private static void source(String partitioning, int batchRows) {
    spark.sql(
        "CREATE TABLE " + SOURCE + " (id BIGINT, p INT, ts TIMESTAMP, data STRING) USING iceberg "
            + partitioning);
    for (int batch = 0; batch < 3; batch++) {
      spark.sql(
          "INSERT INTO " + SOURCE + " SELECT /*+ COALESCE(1) */ id, CAST(id % 3 AS INT),"
              + " timestamp_seconds(1704067200 + (id % 40) * 86400), CONCAT('d', id) FROM range("
              + batch * batchRows + ", " + (batch + 1) * batchRows + ")");
    }
    spark.table(SOURCE).localCheckpoint().createOrReplaceTempView("v");
  }

  private static void target(String partitioning, String properties) {
    spark.sql(
        "CREATE TABLE " + TARGET + " (id BIGINT, p INT, ts TIMESTAMP, data STRING) USING iceberg "
            + partitioning + properties);
  }

  private static List<Row> rows(String query) {
    return spark.sql(query).collectAsList();
  }

  /**
   * Runs {@code statement} (whose plan names {@code writeNode}), then checks the target against
   * {@code expected} over the view and the rebalancing shuffles the statement ran with.
   */
  private static void write(String statement, String writeNode, String expected, long shuffles)
      throws TimeoutException {
    RebalanceCapture capture = new RebalanceCapture(spark, writeNode);
    spark.listenerManager().register(capture);
    try {
      spark.sql(statement);
      assertThat(capture.rebalances())
          .as("shuffles by partition under the write")
          .isEqualTo(shuffles);
    } finally {
      spark.listenerManager().unregister(capture);
    }
    assertThat(rows("SELECT * FROM " + TARGET)).containsExactlyInAnyOrderElementsOf(rows(expected));
  }

  private static void insert(String select, String expected, long shuffles)
      throws TimeoutException {
    write("INSERT INTO " + TARGET + " " + select, "AppendData", expected, shuffles);
  }

  /** The largest number of data files any partition of the target has. */
  private static long mostFilesInAPartition() {
    return rows("SELECT count(*) FROM " + TARGET + ".data_files GROUP BY partition").stream()
        .mapToLong(row -> row.getLong(0))
        .max()
        .orElseThrow();
  }

  @Test
  void aCopyIntoTheSameSpecIsWrittenByTheTasksThatReadTheRows() throws TimeoutException {
    source("PARTITIONED BY (days(ts))");
    target("PARTITIONED BY (days(ts))", "");

    insert("SELECT * FROM " + SOURCE, "SELECT * FROM v", 0);

    // 40 days of three files each: read two tasks, written one file per day
    assertThat(rows("SELECT count(*) FROM " + TARGET + ".partitions").get(0).getLong(0))
        .isEqualTo(40L);
    assertThat(mostFilesInAPartition()).isEqualTo(1L);
  }

  @Test
  void createAndReplaceTableAsSelectOfTheSameSpecSkipTheShuffle() throws TimeoutException {
    source("PARTITIONED BY (days(ts))");

    // Spark runs the write of a CTAS as an append planned of its own, and that of an RTAS as an
    // overwrite
    write(
        "CREATE TABLE " + TARGET + " USING iceberg PARTITIONED BY (days(ts)) AS SELECT * FROM "
            + SOURCE,
        "AppendData",
        "SELECT * FROM v",
        0);
    assertThat(mostFilesInAPartition()).isEqualTo(1L);

    write(
        "REPLACE TABLE " + TARGET + " USING iceberg PARTITIONED BY (days(ts)) AS SELECT id, p, ts,"
            + " upper(data) AS data FROM " + SOURCE + " WHERE p <> 2",
        "OverwriteByExpression",
        "SELECT id, p, ts, upper(data) FROM v WHERE p <> 2",
        0);
    assertThat(mostFilesInAPartition()).isEqualTo(1L);

    // a CTAS into another spec still shuffles by partition
    spark.sql("DROP TABLE " + TARGET + " PURGE");
    write(
        "CREATE TABLE " + TARGET + " USING iceberg PARTITIONED BY (p) AS SELECT * FROM " + SOURCE,
        "AppendData",
        "SELECT * FROM v",
        1);
  }

  @Test
  void identityAndBucketFieldsThroughAFilterAndARenameSkipTheShuffle() throws TimeoutException {
    source("PARTITIONED BY (p, bucket(4, id))");
    target("PARTITIONED BY (p, bucket(4, id))", "");

    insert(
        "SELECT id, q AS p, ts, data FROM (SELECT id, p AS q, ts, data FROM " + SOURCE
            + " WHERE id % 5 <> 0)",
        "SELECT * FROM v WHERE id % 5 <> 0",
        0);

    assertThat(mostFilesInAPartition()).isEqualTo(1L);
  }

  @Test
  void theClusteredWriterKeepsItsSortButNotTheShuffle() throws TimeoutException {
    source("PARTITIONED BY (p)");
    target("PARTITIONED BY (p)", " TBLPROPERTIES ('write.spark.fanout.enabled'='false')");

    insert("SELECT * FROM " + SOURCE, "SELECT * FROM v", 0);

    assertThat(mostFilesInAPartition()).isEqualTo(1L);
  }

  @Test
  void aDynamicOverwriteOfTheSameSpecSkipsTheShuffle() throws TimeoutException {
    source("PARTITIONED BY (p)");
    target("PARTITIONED BY (p)", "");
    spark.sql("INSERT INTO " + TARGET + " SELECT * FROM " + SOURCE);
    spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
    try {
      write(
          "INSERT OVERWRITE " + TARGET + " SELECT id, p, ts, 'new' FROM " + SOURCE + " WHERE p = 1",
          "OverwritePartitionsDynamic",
          "SELECT id, p, ts, IF(p = 1, 'new', data) FROM v",
          0);
    } finally {
      spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
    }
  }

  @Test
  void aPartitionHeavierThanTheAdvisorySizeKeepsTheShuffle() throws TimeoutException {
    source("PARTITIONED BY (p)");
    // each partition's three files weigh more than a shuffle partition may
    target(
        "PARTITIONED BY (p)",
        " TBLPROPERTIES ('write.spark.advisory-partition-size-bytes'='1000')");

    insert("SELECT * FROM " + SOURCE, "SELECT * FROM v", 1);
  }

  @Test
  void aPartitionWhoseRowsOutweighTheAdvisorySizeKeepsTheShuffle() throws TimeoutException {
    source("PARTITIONED BY (p)", 30_000);
    // 30,000 rows a partition: 1.4 MB as Spark sizes rows (8 bytes and 40 of columns each), and
    // far less in compressed files
    long advisory = 700_000;
    long partitionFileBytes =
        rows("SELECT sum(file_size_in_bytes) FROM " + SOURCE + ".files GROUP BY partition")
            .stream()
            .mapToLong(row -> row.getLong(0))
            .max()
            .orElseThrow();
    assertThat(partitionFileBytes).isLessThan(advisory);
    target(
        "PARTITIONED BY (p)",
        " TBLPROPERTIES ('write.spark.advisory-partition-size-bytes'='" + advisory + "')");

    insert("SELECT * FROM " + SOURCE, "SELECT * FROM v", 1);
  }

  @Test
  void aComputedPartitionColumnKeepsTheShuffle() throws TimeoutException {
    source("PARTITIONED BY (p)");
    target("PARTITIONED BY (p)", "");

    insert(
        "SELECT id, (p + 1) % 3, ts, data FROM " + SOURCE,
        "SELECT id, (p + 1) % 3, ts, data FROM v",
        1);

    assertThat(mostFilesInAPartition()).isEqualTo(1L);
  }

  /** Copies the source partitioned by {@code read} into a target partitioned by {@code written}. */
  private void copy(String read, String written, long shuffles) throws TimeoutException {
    dropTables();
    source(read);
    target(written, "");
    insert("SELECT * FROM " + SOURCE, "SELECT * FROM v", shuffles);
  }

  @Test
  void aCoarserSpecIsWrittenByTheTasksThatReadTheRows() throws TimeoutException {
    // 40 days from January 1st: each month's days, in files of their own, read by one task
    copy("PARTITIONED BY (days(ts))", "PARTITIONED BY (months(ts))", 0);
    assertThat(rows("SELECT count(*) FROM " + TARGET + ".partitions").get(0).getLong(0))
        .isEqualTo(2L);
    assertThat(mostFilesInAPartition()).isEqualTo(1L);

    copy("PARTITIONED BY (p, bucket(4, id))", "PARTITIONED BY (bucket(2, id), p)", 0);
    assertThat(mostFilesInAPartition()).isEqualTo(1L);

    // a read field the written spec lacks
    copy("PARTITIONED BY (p, bucket(2, id))", "PARTITIONED BY (p)", 0);
    assertThat(mostFilesInAPartition()).isEqualTo(1L);

    copy("PARTITIONED BY (p)", "PARTITIONED BY (bucket(2, p))", 0);
    assertThat(mostFilesInAPartition()).isEqualTo(1L);

    copy("PARTITIONED BY (truncate(4, data))", "PARTITIONED BY (truncate(2, data))", 0);
    assertThat(mostFilesInAPartition()).isEqualTo(1L);
  }

  @Test
  void aFinerOrUnrelatedTransformKeepsTheShuffle() throws TimeoutException {
    copy("PARTITIONED BY (months(ts))", "PARTITIONED BY (days(ts))", 1);
    copy("PARTITIONED BY (bucket(4, id))", "PARTITIONED BY (bucket(3, id))", 1);
    copy("PARTITIONED BY (bucket(2, id))", "PARTITIONED BY (bucket(4, id))", 1);
    copy("PARTITIONED BY (truncate(2, data))", "PARTITIONED BY (truncate(3, data))", 1);
    copy("PARTITIONED BY (bucket(2, id))", "PARTITIONED BY (p)", 1);
    assertThat(mostFilesInAPartition()).isEqualTo(1L);
  }

  @Test
  void bucketsOfAUuidColumnWrittenAsAStringKeepTheShuffle() throws TimeoutException {
    // a uuid column reaches Spark as a string, but Iceberg buckets its 16 bytes, not the string's
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
    Schema schema =
        new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "u", Types.UUIDType.get()));
    catalog.createTable(
        TableIdentifier.of("iip", "src"),
        schema,
        PartitionSpec.builderFor(schema).bucket("u", 4).build());
    for (int batch = 0; batch < 3; batch++) {
      spark.sql(
          "INSERT INTO " + SOURCE + " SELECT /*+ COALESCE(1) */ id,"
              + " concat('00000000-0000-0000-0000-', lpad(CAST(id AS STRING), 12, '0')) FROM range("
              + batch * 40 + ", " + (batch + 1) * 40 + ")");
    }
    spark.table(SOURCE).localCheckpoint().createOrReplaceTempView("v");
    spark.sql("CREATE TABLE " + TARGET + " (id BIGINT, u STRING) USING iceberg"
        + " PARTITIONED BY (bucket(4, u))");

    insert("SELECT * FROM " + SOURCE, "SELECT * FROM v", 1);

    assertThat(mostFilesInAPartition()).isEqualTo(1L);
  }

  @Test
  void filesOfTwoSpecsKeepTheShuffle() throws TimeoutException {
    source("PARTITIONED BY (p)");
    spark.sql("ALTER TABLE " + SOURCE + " ADD PARTITION FIELD bucket(2, id)");
    spark.sql("INSERT INTO " + SOURCE + " SELECT 1000, 1, TIMESTAMP'2024-01-01 00:00:00', 'x'");
    spark.table(SOURCE).localCheckpoint().createOrReplaceTempView("v");
    target("PARTITIONED BY (p, bucket(2, id))", "");

    insert("SELECT * FROM " + SOURCE, "SELECT * FROM v", 1);
  }

  @Test
  void aJoinUnderTheWriteKeepsTheShuffle() throws TimeoutException {
    source("PARTITIONED BY (p)");
    target("PARTITIONED BY (p)", "");

    insert(
        "SELECT s.id, s.p, s.ts, s.data FROM " + SOURCE + " s JOIN range(0, 60) r ON s.id = r.id",
        "SELECT * FROM v WHERE id < 60",
        1);
  }

  @Test
  void aRebalanceHintUnderAWriteInNoneModeStays() throws TimeoutException {
    source("PARTITIONED BY (p)");
    target("PARTITIONED BY (p)", " TBLPROPERTIES ('write.distribution-mode'='none')");

    insert("SELECT /*+ REBALANCE(p) */ * FROM " + SOURCE, "SELECT * FROM v", 1);
  }
}
