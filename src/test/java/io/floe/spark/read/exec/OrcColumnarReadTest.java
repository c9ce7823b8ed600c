package io.floe.spark.read.exec;

import static io.floe.spark.read.ReadPaths.bothPaths;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.orc.OrcVector;
import io.floe.spark.read.FloeBatch;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ReadOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ORC data files (written by Floe with {@code write.format.default=orc}) read as columnar batches
 * over ORC's own vectors: for every type, with NULLs at several densities, the rows equal those
 * Spark's own ORC reader reads from the same files (in a child JVM, {@link SparkOrcReads}) and
 * those Floe's row path reads (timestamps, which Spark's ORC reader cannot read from Iceberg's
 * files, equal the rows written); and so do projections, filters (ORC search arguments prune, Spark
 * filters again), partition constants, metadata columns, merge-on-read deletes (position deletes
 * and deletion vectors), equality deletes and schema evolution.
 */
class OrcColumnarReadTest extends SparkTestBase {
  private static final int ROWS = 3000;
  private static final String COLUMNS =
      "id, b, i, l, f, d, d9, d38, dt, s, bin, st, arr, m, cat, fx";
  private static List<String> sparkOrcRows;
  private static Path oracle;

  @BeforeAll
  static void writeOrcTableAndReadItWithSparksOrc() throws IOException, InterruptedException {
    spark.conf().set(ReadOptions.SESSION_PREFIX + ReadOptions.BATCH_SIZE, "1000");
    sql("CREATE NAMESPACE IF NOT EXISTS floe.orcv");
    sql(
        "CREATE TABLE floe.orcv.types (id BIGINT, b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE,"
            + " d9 DECIMAL(9,2), d38 DECIMAL(38,10), dt DATE,"
            + " s STRING, bin BINARY, st STRUCT<a: INT, b: STRING>, arr ARRAY<BIGINT>,"
            + " m MAP<STRING, DOUBLE>, cat STRING) USING iceberg PARTITIONED BY (cat)"
            + " TBLPROPERTIES ('format-version' = '2', 'write.format.default' = 'orc')");
    icebergTable(spark, "orcv.types")
        .updateSchema()
        .addColumn("fx", Types.FixedType.ofLength(4))
        .commit();
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW orc_src AS SELECT id,"
            + " IF(id % 2 = 0, NULL, id % 3 = 1) AS b,"
            + " IF(id % 3 = 0, NULL, CAST(id * 7 - 5000 AS INT)) AS i,"
            + " id * 1000003 - 9000000000 AS l,"
            + " IF(id % 10 = 0, NULL, CAST(id / 7.0 AS FLOAT)) AS f,"
            + " IF(id % 97 = 0, id * 1.5e10D, NULL) AS d,"
            + " IF(id % 4 = 0, NULL, CAST(id * 1.25 - 300 AS DECIMAL(9,2))) AS d9,"
            + " IF(id % 5 = 0, NULL, CAST(concat(IF(id % 2 = 0, '-', ''), CAST(id AS STRING),"
            + "   '123456789012345678.0123456789') AS DECIMAL(38,10))) AS d38,"
            + " IF(id % 6 = 0, NULL, date_add(DATE'1969-12-01', CAST(id AS INT))) AS dt,"
            + " IF(id % 9 = 0, NULL, repeat(concat('v', id, 'é'), CAST(id % 4 AS INT))) AS s,"
            + " IF(id % 11 = 0, NULL, unhex(hex(id * 31))) AS bin,"
            + " IF(id % 13 = 0, NULL, named_struct('a', IF(id % 3 = 0, NULL, CAST(id AS INT)),"
            + "   'b', concat('s', id))) AS st,"
            + " IF(id % 14 = 0, NULL, IF(id % 5 = 0, CAST(array() AS ARRAY<BIGINT>),"
            + "   array(id, IF(id % 3 = 0, NULL, id + 1), id + 2))) AS arr,"
            + " IF(id % 15 = 0, NULL, IF(id % 4 = 0, CAST(map() AS MAP<STRING, DOUBLE>),"
            + "   map(concat('k', id), id * 0.5D, 'z', IF(id % 2 = 0, NULL, 1.0D)))) AS m,"
            + " CASE WHEN id % 17 = 0 THEN NULL WHEN id % 2 = 0 THEN 'p' ELSE 'q' END AS cat,"
            + " IF(id % 12 = 0, NULL, unhex(lpad(hex(id), 8, '0'))) AS fx"
            + " FROM range(0, " + ROWS + ")");
    // two appends: two files per partition
    sql("INSERT INTO floe.orcv.types SELECT %s FROM orc_src WHERE id < %d", COLUMNS, ROWS / 2);
    sql("INSERT INTO floe.orcv.types SELECT %s FROM orc_src WHERE id >= %d", COLUMNS, ROWS / 2);

    Table table = icebergTable(spark, "orcv.types");
    List<String> files = new ArrayList<>();
    for (DataFile file : dataFiles(table)) {
      assertThat(file.format()).isEqualTo(FileFormat.ORC);
      files.add(file.location());
    }
    assertThat(files).hasSizeGreaterThanOrEqualTo(4);
    oracle = Files.createTempDirectory("floe-orc-oracle");
    String ddl = spark.table("floe.orcv.types").schema().toDDL();
    SparkOrcReads.run(files, ddl, oracle.resolve("types"), 0, "count(*)");
    spark.read().parquet(oracle.resolve("types").resolve("rows").toString())
        .createOrReplaceTempView("spark_orc_types");
    sparkOrcRows = canonicalRows(sql("SELECT %s FROM spark_orc_types", COLUMNS));
  }

  @AfterEach
  void resetConf() {
    spark.conf().unset(FloeBatch.VECTORIZATION_CONF);
  }

  @Test
  void everyColumnReadsAsSparksOrcReaderReadsIt() {
    assertThat(sparkOrcRows).hasSize(ROWS);
    // what was written, as Spark computes it, is what Spark's ORC reader reads back
    assertThat(sparkOrcRows).isEqualTo(canonicalRows(sql("SELECT %s FROM orc_src", COLUMNS)));
    assertThat(bothPaths(spark, "SELECT " + COLUMNS + " FROM floe.orcv.types")).isEqualTo(sparkOrcRows);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"b", "i", "l", "f", "d", "d9", "d38", "dt", "s", "bin", "fx", "st",
          "arr", "m", "st.b", "cat"})
  void eachTypeAloneReadsAsSparksOrcReaderReadsIt(String column) {
    String query = "SELECT id, " + column + " FROM ";
    assertThat(bothPaths(spark, query + "floe.orcv.types"))
        .isEqualTo(canonicalRows(rows(query + "spark_orc_types")));
  }

  /**
   * Timestamps with and without time zone, which Spark's ORC reader cannot read from Iceberg's
   * files (it cannot parse the type name of ORC's {@code timestamp with local time zone}, and
   * refuses ORC's {@code timestamp} as {@code TIMESTAMP_NTZ}): compared with the rows written, as
   * Spark computes them, and with the row path.
   */
  @Test
  void timestampsReadAsWritten() {
    sql(
        "CREATE TABLE floe.orcv.zoned (id BIGINT, ts TIMESTAMP, ntz TIMESTAMP_NTZ,"
            + " st STRUCT<t: TIMESTAMP, n: TIMESTAMP_NTZ>)"
            + " USING iceberg TBLPROPERTIES ('write.format.default' = 'orc')");
    String written =
        "SELECT id, IF(id % 7 = 0, NULL, timestamp_micros(id * 3600000001 - 86400000000)) AS ts,"
            + " IF(id % 8 = 0, NULL,"
            + "   CAST(timestamp_micros(id * 1000001 - 5000000000) AS TIMESTAMP_NTZ)) AS ntz,"
            + " named_struct('t', timestamp_micros(id * 999999937 + 3),"
            + "   'n', CAST(timestamp_micros(id * 999999937 + 3) AS TIMESTAMP_NTZ)) AS st"
            + " FROM range(0, 3000)";
    spark.sql("INSERT INTO floe.orcv.zoned " + written);
    assertThat(bothPaths(spark, "SELECT id, ts, ntz, st FROM floe.orcv.zoned"))
        .isEqualTo(canonicalRows(rows(written)));
    String beforeEpoch = " WHERE ts < TIMESTAMP'1970-01-01 00:00:00Z'";
    assertThat(bothPaths(spark, "SELECT id FROM floe.orcv.zoned" + beforeEpoch))
        .isEqualTo(canonicalRows(rows("SELECT id FROM (" + written + ")" + beforeEpoch)))
        .isNotEmpty();
  }

  @Test
  void columnarBatchesHoldOrcsVectorsNotCopies() throws IOException {
    Dataset<Row> df = spark.table("floe.orcv.types").select("id", "s", "st", "arr", "m", "cat");
    FloeScan scan = floeScan(df);
    PartitionReaderFactory factory = scan.toBatch().createReaderFactory();
    int batches = 0;
    for (FloeInputPartition partition : scan.readPartitions()) {
      assertThat(factory.supportColumnarReads(partition)).isTrue();
      try (PartitionReader<ColumnarBatch> reader = factory.createColumnarReader(partition)) {
        while (reader.next()) {
          ColumnarBatch batch = reader.get();
          assertThat(batch.numRows()).isBetween(1, 1000);
          for (int i = 0; i < 5; i++) {
            assertThat(batch.column(i)).isInstanceOf(OrcVector.class);
          }
          batches++;
        }
      }
    }
    assertThat(batches).isGreaterThanOrEqualTo(4);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "i > 100 AND i < 9000",
        "s LIKE 'v1%'",
        "dt < DATE'1970-01-15' OR dt IS NULL",
        "dt BETWEEN DATE'1970-02-01' AND DATE'1970-03-01'",
        "d9 = 12.50",
        "cat = 'p' AND l < 0",
        "cat IS NULL",
        "b AND st.a > 2000",
        "size(arr) = 3 AND m['z'] IS NULL",
        "id = 2999 OR id = 0"
      })
  void filtersReturnTheRowsSparkComputes(String filter) {
    String query = "SELECT " + COLUMNS + " FROM {table} WHERE " + filter;
    List<String> expected = canonicalRows(rows(query.replace("{table}", "spark_orc_types")));
    assertThat(bothPaths(spark, query.replace("{table}", "floe.orcv.types")))
        .as(filter)
        .isEqualTo(expected);
  }

  @Test
  void metadataColumnsAndPartitionConstantsMatchTheRowPath() {
    List<String> rows =
        bothPaths(spark, "SELECT id, cat, _file, _pos, _spec_id, _partition FROM floe.orcv.types");
    assertThat(rows).hasSize(ROWS);
    for (Row row :
        sql(
            "SELECT count(*), min(_pos), max(_pos), count(DISTINCT _pos) FROM floe.orcv.types"
                + " GROUP BY _file")) {
      assertThat(row.getLong(1)).isZero();
      assertThat(row.getLong(2)).isEqualTo(row.getLong(0) - 1);
      assertThat(row.getLong(3)).isEqualTo(row.getLong(0));
    }
    assertThat(bothPaths(spark, "SELECT DISTINCT _spec_id, _partition.cat, cat FROM floe.orcv.types"))
        .containsExactly("[0, null, null]", "[0, p, p]", "[0, q, q]");
  }

  @ParameterizedTest
  @ValueSource(strings = {"2", "3"})
  void mergeOnReadDeletesAreAppliedToOrcBatches(String formatVersion) {
    String name = "floe.orcv.del_v" + formatVersion;
    sql(
        "CREATE TABLE %s (id BIGINT, s STRING, st STRUCT<a: INT, b: STRING>, cat STRING)"
            + " USING iceberg PARTITIONED BY (cat) TBLPROPERTIES ('format-version' = '%s',"
            + " 'write.format.default' = 'orc', 'write.delete.mode' = 'merge-on-read',"
            + " 'write.update.mode' = 'merge-on-read')",
        name, formatVersion);
    sql("INSERT INTO %s SELECT id, s, st, cat FROM orc_src", name);
    sql("DELETE FROM %s WHERE id %% 10 = 3 OR s IS NULL", name);
    sql("UPDATE %s SET s = 'updated' WHERE id %% 100 = 1", name);
    Table table = icebergTable(spark, name.substring("floe.".length()));
    assertThat(table.currentSnapshot().summary().get("total-delete-files")).isNotEqualTo("0");

    String expected =
        "SELECT id, IF(id % 100 = 1, 'updated', s) AS s, st, cat FROM orc_src"
            + " WHERE NOT (id % 10 = 3 OR s IS NULL)";
    assertThat(bothPaths(spark, "SELECT id, s, st, cat FROM " + name))
        .isEqualTo(canonicalRows(rows(expected)));
    assertThat(bothPaths(spark, "SELECT count(*) FROM " + name))
        .isEqualTo(canonicalRows(rows("SELECT count(*) FROM (" + expected + ")")));
    assertThat(bothPaths(spark, "SELECT id, _pos FROM " + name + " WHERE cat = 'q' AND id < 500"))
        .hasSize(rows("SELECT * FROM (" + expected + ") WHERE cat = 'q' AND id < 500").size());
  }

  @Test
  void stripesSplitIntoTasksKeepTheirFilePositionsAndDeletes() {
    sql(
        "CREATE TABLE floe.orcv.stripes (id BIGINT, s STRING) USING iceberg TBLPROPERTIES ("
            + " 'format-version' = '2', 'write.format.default' = 'orc',"
            + " 'write.orc.stripe-size-bytes' = '65536', 'write.distribution-mode' = 'none',"
            + " 'write.delete.mode' = 'merge-on-read', 'read.split.target-size' = '65536')");
    String written = "SELECT id, concat('row-', id, '-', sha2(CAST(id AS STRING), 256)) AS s"
        + " FROM range(0, 60000, 1, 1)";
    spark.sql("INSERT INTO floe.orcv.stripes " + written);
    assertThat(dataFiles(icebergTable(spark, "orcv.stripes"))).hasSize(1);
    sql("DELETE FROM floe.orcv.stripes WHERE id %% 1000 = 999");
    Dataset<Row> df = spark.table("floe.orcv.stripes");
    long tasks =
        floeScan(df).readPartitions().stream().mapToLong(partition -> partition.tasks().size()).sum();
    assertThat(tasks).as("tasks of one ORC file of several stripes").isGreaterThan(1);

    String expected = "SELECT id, s FROM (" + written + ") WHERE id % 1000 <> 999";
    assertThat(bothPaths(spark, "SELECT id, s FROM floe.orcv.stripes"))
        .isEqualTo(canonicalRows(rows(expected)));
    // the file holds the rows in id order, so a row's position is its id
    assertThat(bothPaths(spark, "SELECT count(*) FROM floe.orcv.stripes WHERE _pos <> id"))
        .containsExactly("[0]");
    assertThat(bothPaths(spark, "SELECT id, _pos FROM floe.orcv.stripes WHERE id BETWEEN 30000 AND 30010"))
        .hasSize(11);
  }

  @Test
  void schemaEvolutionReadsPromotedAddedAndRenamedColumns() {
    sql(
        "CREATE TABLE floe.orcv.evolve (id BIGINT, n INT, x FLOAT, amount DECIMAL(9,2))"
            + " USING iceberg TBLPROPERTIES ('write.format.default' = 'orc')");
    sql(
        "INSERT INTO floe.orcv.evolve SELECT id, CAST(id AS INT), CAST(id / 4 AS FLOAT),"
            + " CAST(id / 8 AS DECIMAL(9,2)) FROM range(50)");
    sql("ALTER TABLE floe.orcv.evolve ALTER COLUMN n TYPE BIGINT");
    sql("ALTER TABLE floe.orcv.evolve ALTER COLUMN x TYPE DOUBLE");
    sql("ALTER TABLE floe.orcv.evolve ALTER COLUMN amount TYPE DECIMAL(20,2)");
    sql("ALTER TABLE floe.orcv.evolve RENAME COLUMN n TO big");
    sql("ALTER TABLE floe.orcv.evolve ADD COLUMN note STRING");
    sql(
        "INSERT INTO floe.orcv.evolve SELECT id, id * 10000000000, id / 4, CAST(id / 8 AS"
            + " DECIMAL(20,2)), concat('n', id) FROM range(50, 80)");
    List<String> expected =
        canonicalRows(
            sql(
                "SELECT id, CAST(id AS BIGINT), CAST(CAST(id / 4 AS FLOAT) AS DOUBLE),"
                    + " CAST(CAST(id / 8 AS DECIMAL(9,2)) AS DECIMAL(20,2)), CAST(NULL AS STRING)"
                    + " FROM range(50) UNION ALL SELECT id, id * 10000000000, id / 4,"
                    + " CAST(id / 8 AS DECIMAL(20,2)), concat('n', id) FROM range(50, 80)"));
    assertThat(bothPaths(spark, "SELECT id, big, x, amount, note FROM floe.orcv.evolve"))
        .isEqualTo(expected);
  }

  /** The rows of a query that may hold {@code %} (no format arguments). */
  private static List<Row> rows(String query) {
    return spark.sql(query).collectAsList();
  }
}
