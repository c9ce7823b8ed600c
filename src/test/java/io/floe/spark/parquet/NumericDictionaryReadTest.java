package io.floe.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.ReadTestSupport;
import java.io.IOException;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Columnar reads of dictionary-encoded numeric, date, timestamp and decimal columns, whose values the
 * reader decodes into the batch once: every row group and file brings a dictionary of its own, a
 * chunk whose dictionary overflows switches to plain pages part way through, and batches start both
 * on and off page boundaries; each value must still be the row's own, NULLs included.
 *
 * <p>{@link NumericDictionaries} serves the files Spark's vectorized reader decodes, not those
 * {@link FlatParquetReader} decodes itself. Every read here projects the variant column {@code var},
 * which Floe's own decoder turns down (a group, not a flat column), so that every file of every read
 * goes through Spark's reader and {@link NumericDictionaries}.
 */
class NumericDictionaryReadTest extends SparkTestBase {
  private static final String TABLE = "floe.numdict.t";
  private static final String COLUMNS = "id, i, l, f, d, dt, ts, tsn, dec9, dec18, wide, var";
  // low-cardinality columns stay dictionary-encoded; wide overflows the small dictionary limit
  private static final String ROWS =
      "SELECT id,"
          + " CASE WHEN pmod(id, 11) = 0 THEN NULL ELSE CAST(pmod(id * 7, 23) - 11 AS INT) END AS i,"
          + " CASE WHEN pmod(id, 13) = 0 THEN NULL ELSE pmod(id * 31, 37) * 1000000007 END AS l,"
          + " CAST(pmod(id, 19) / 4.0 AS FLOAT) AS f,"
          + " CASE WHEN pmod(id, 7) = 0 THEN NULL ELSE CAST(pmod(id, 29) * 1.25 AS DOUBLE) END AS d,"
          + " date_add(DATE'2020-02-28', CAST(pmod(id, 17) AS INT)) AS dt,"
          + " CASE WHEN pmod(id, 5) = 0 THEN NULL"
          + "  ELSE timestamp_micros(1600000000000000 + pmod(id, 31) * 3600000000) END AS ts,"
          + " CAST(timestamp_micros(1500000000000000 + pmod(id, 3) * 1000) AS TIMESTAMP_NTZ) AS tsn,"
          + " CAST(pmod(id, 41) * 1.01 AS DECIMAL(9, 2)) AS dec9,"
          + " CASE WHEN pmod(id, 3) = 0 THEN NULL"
          + "  ELSE CAST(pmod(id, 43) * 123456789.001 AS DECIMAL(18, 3)) END AS dec18,"
          + " pmod(id * 7919, 5003) AS wide,"
          + " parse_json(CAST(pmod(id, 9) AS STRING)) AS var,"
          + " CAST(pmod(id, 4) AS INT) AS part"
          + " FROM range(0, 40000)";

  @BeforeAll
  static void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.numdict");
    sql(
        "CREATE TABLE " + TABLE + " (id BIGINT, i INT, l BIGINT, f FLOAT, d DOUBLE, dt DATE,"
            + " ts TIMESTAMP, tsn TIMESTAMP_NTZ, dec9 DECIMAL(9, 2), dec18 DECIMAL(18, 3),"
            + " wide BIGINT, var VARIANT, part INT) USING iceberg PARTITIONED BY (part) TBLPROPERTIES ("
            + " 'format-version'='3',"
            + " 'write.parquet.row-group-size-bytes'='16384',"
            + " 'write.parquet.page-size-bytes'='1024',"
            + " 'write.parquet.dict-size-bytes'='2048')");
    // two inserts: two files per partition, each with several row groups and dictionaries
    sql("INSERT INTO " + TABLE + " " + ROWS + " WHERE id < 20000");
    sql("INSERT INTO " + TABLE + " " + ROWS + " WHERE id >= 20000");
    spark.sql(ROWS).createOrReplaceTempView("numdict_expected");
  }

  @AfterAll
  static void dropTable() {
    sql("DROP TABLE IF EXISTS " + TABLE + " PURGE");
  }

  private static List<Row> read(boolean vectorized, int batchSize) {
    return spark
        .read()
        .option("vectorization-enabled", String.valueOf(vectorized))
        .option("batch-size", String.valueOf(batchSize))
        .table(TABLE)
        .selectExpr(COLUMNS.split(", "))
        .orderBy("id")
        .collectAsList();
  }

  @Test
  void everyFileIsDecodedBySparksReaderNotFloesFlatOne() throws IOException {
    Table table = ReadTestSupport.icebergTable(spark, "numdict.t");
    Schema read = table.schema().select(COLUMNS.split(", "));
    Schema withoutVariant = table.schema().select(COLUMNS.replace(", var", "").split(", "));
    List<DataFile> files = ReadTestSupport.dataFiles(table);
    assertThat(files).hasSize(8);
    for (DataFile file : files) {
      assertThat(FlatParquetReadTest.flatlyDecodedRows(file.location(), read))
          .as("Floe's flat decoder turns down %s with var", file.location())
          .isNull();
      // without var the file is flat, which is why every read here projects it
      assertThat(FlatParquetReadTest.flatlyDecodedRows(file.location(), withoutVariant))
          .as("Floe's flat decoder reads %s without var", file.location())
          .isEqualTo(file.recordCount());
    }
  }

  @Test
  void columnarValuesMatchTheRowsWrittenAcrossRowGroupsFilesAndBatchSizes() {
    List<Row> expected = sql("SELECT " + COLUMNS + " FROM numdict_expected ORDER BY id");

    // 1000 rows rarely start a batch on a page boundary, 7 and 4096 do now and then
    for (int batchSize : new int[] {7, 1000, 4096}) {
      assertThat(read(true, batchSize)).hasSize(40000).containsExactlyElementsOf(expected);
    }
    assertThat(read(false, 1000)).containsExactlyElementsOf(expected);
  }

  @Test
  void keysReadSeveralTimesPerRowJoinAndGroupAsWritten() {
    String query =
        "SELECT a.i, a.dt, count(*), sum(b.l), max(a.ts), sum(a.dec18), min(b.d), max(a.wide)"
            + " FROM %1$s a JOIN %1$s b ON a.id = b.id + 1 AND a.dec9 IS NOT NULL"
            // var is never NULL: it keeps both sides off Floe's own decoder
            + " AND a.var IS NOT NULL AND b.var IS NOT NULL"
            + " WHERE a.l IS NOT NULL AND b.f < 3.5"
            + " GROUP BY a.i, a.dt ORDER BY a.i, a.dt";

    assertThat(sql(String.format(query, TABLE)))
        .hasSizeGreaterThan(100)
        .containsExactlyElementsOf(sql(String.format(query, "numdict_expected")));
  }

  @Test
  void filtersOnDictionaryNumbersKeepExactlyTheMatchingRows() {
    String filter =
        " WHERE i = -3 OR l = 5000000035 OR d IS NULL OR dt = DATE'2020-03-01'"
            + " OR dec18 = CAST(123456789.001 AS DECIMAL(18, 3)) OR wide = 17";
    assertThat(sql("SELECT " + COLUMNS + " FROM " + TABLE + filter + " ORDER BY id"))
        .hasSizeGreaterThan(1000)
        .containsExactlyElementsOf(
            sql("SELECT " + COLUMNS + " FROM numdict_expected" + filter + " ORDER BY id"));
  }
}
