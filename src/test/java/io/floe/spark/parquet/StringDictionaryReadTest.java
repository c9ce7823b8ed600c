package io.floe.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ReadTestSupport;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Columnar reads of dictionary-encoded strings, whose decoded values the reader keeps per column chunk:
 * every row group and file brings a dictionary of its own, and a chunk whose dictionary overflows
 * switches to plain pages part way through; each value must still be the row's own.
 */
class StringDictionaryReadTest extends SparkTestBase {
  private static final String TABLE = "floe.dict.t";
  // low: 23 values with multi-byte characters, dictionary-encoded throughout; mid: a dictionary that
  // overflows its small size limit and falls back to plain pages; NULLs in both
  private static final String ROWS =
      "SELECT id,"
          + " CASE WHEN pmod(id, 11) = 0 THEN NULL"
          + "  ELSE concat('ké-', CAST(pmod(id * 7, 23) AS STRING), '-😀') END AS low,"
          + " CASE WHEN pmod(id, 13) = 0 THEN NULL"
          + "  ELSE concat('v', CAST(pmod(id * 31, 3001) AS STRING)) END AS mid,"
          + " CAST(pmod(id, 4) AS INT) AS part,"
          + " CAST(pmod(id, 7) AS INT) AS w"
          + " FROM range(0, 40000)";

  @BeforeAll
  static void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.dict");
    sql(
        "CREATE TABLE " + TABLE + " (id BIGINT, low STRING, mid STRING, part INT, w INT)"
            + " USING iceberg"
            + " PARTITIONED BY (part) TBLPROPERTIES ("
            + " 'write.parquet.row-group-size-bytes'='8192',"
            + " 'write.parquet.page-size-bytes'='1024',"
            + " 'write.parquet.dict-size-bytes'='2048')");
    // two inserts: two files per partition, each with several row groups and dictionaries
    sql("INSERT INTO " + TABLE + " " + ROWS + " WHERE id < 20000");
    sql("INSERT INTO " + TABLE + " " + ROWS + " WHERE id >= 20000");
    // a widened column: a scan that reads it goes to Spark's reader, not Floe's decoder
    sql("ALTER TABLE " + TABLE + " ALTER COLUMN w TYPE BIGINT");
    spark.sql(ROWS).createOrReplaceTempView("dict_expected");
  }

  @AfterAll
  static void dropTable() {
    sql("DROP TABLE IF EXISTS " + TABLE + " PURGE");
  }

  @Test
  void columnarStringsMatchTheRowsWrittenAcrossRowGroupsAndFiles() {
    List<Row> expected = sql("SELECT id, low, mid FROM dict_expected ORDER BY id");
    List<Row> columnar =
        spark
            .read()
            .option("vectorization-enabled", "true")
            .option("batch-size", "1000")
            .table(TABLE)
            .selectExpr("id", "low", "mid")
            .orderBy("id")
            .collectAsList();
    List<Row> rows =
        spark
            .read()
            .option("vectorization-enabled", "false")
            .table(TABLE)
            .selectExpr("id", "low", "mid")
            .orderBy("id")
            .collectAsList();

    assertThat(columnar).hasSize(40000).containsExactlyElementsOf(expected);
    assertThat(rows).containsExactlyElementsOf(expected);
  }

  @Test
  void stringsKeptFromOneBatchAreNotChangedByTheNext() {
    // collecting the values themselves (not their hashes) keeps references to decoded strings
    // across batches and row groups
    List<Row> expected =
        sql("SELECT low, count(*), min(id), max(mid) FROM dict_expected GROUP BY low ORDER BY low");
    List<Row> actual =
        sql("SELECT low, count(*), min(id), max(mid) FROM " + TABLE + " GROUP BY low ORDER BY low");

    assertThat(actual).hasSize(24).containsExactlyElementsOf(expected);
  }

  @ParameterizedTest(name = "with the widened column: {0}")
  @ValueSource(booleans = {false, true})
  void aDictionaryValueIsOneStringPerChunkAndEveryRowReadsItsOwnValue(boolean widened)
      throws IOException {
    String[] projection =
        widened ? new String[] {"id", "low", "mid", "w"} : new String[] {"id", "low", "mid"};
    FloeScan scan =
        ReadTestSupport.floeScan(
            spark.read().option("batch-size", "1000").table(TABLE).selectExpr(projection));
    int idColumn = scan.readSchema().fieldIndex("id");
    int lowColumn = scan.readSchema().fieldIndex("low");
    int midColumn = scan.readSchema().fieldIndex("mid");
    Batch batch = scan.toBatch();
    PartitionReaderFactory factory = batch.createReaderFactory();
    Map<Long, List<String>> read = new HashMap<>();
    int repeats = 0;
    for (InputPartition partition : batch.planInputPartitions()) {
      assertThat(factory.supportColumnarReads(partition)).isTrue();
      try (PartitionReader<ColumnarBatch> reader = factory.createColumnarReader(partition)) {
        while (reader.next()) {
          ColumnarBatch columns = reader.get();
          // Spark's reader (the widened column) or Floe's decoder, each with its own string vector
          assertThat(columns.column(lowColumn))
              .isInstanceOf(widened ? DictionaryStringVector.class : BytesBatchVector.class);
          // a batch lies in one row group, where `low` is dictionary-encoded throughout
          Map<String, UTF8String> firstSeen = new HashMap<>();
          for (int i = 0; i < columns.numRows(); i++) {
            UTF8String low = columns.column(lowColumn).getUTF8String(i);
            UTF8String mid = columns.column(midColumn).getUTF8String(i);
            read.put(
                columns.column(idColumn).getLong(i),
                java.util.Arrays.asList(
                    low == null ? null : low.toString(), mid == null ? null : mid.toString()));
            if (low != null) {
              UTF8String first = firstSeen.putIfAbsent(low.toString(), low);
              if (first != null) {
                assertThat(low).as("the string of a repeated dictionary entry").isSameAs(first);
                repeats++;
              }
            }
          }
        }
      }
    }

    assertThat(repeats).isGreaterThan(30000);
    List<Row> expected = sql("SELECT id, low, mid FROM dict_expected");
    assertThat(read).hasSize(expected.size());
    for (Row row : expected) {
      assertThat(read.get(row.getLong(0)))
          .as("row %d", row.getLong(0))
          .containsExactly(row.getString(1), row.getString(2));
    }
  }

  @Test
  void filtersOnDictionaryStringsKeepExactlyTheMatchingRows() {
    String filter = " WHERE low = 'ké-5-😀' OR mid IN ('v17', 'v2999') OR mid IS NULL";
    assertThat(sql("SELECT id, low, mid FROM " + TABLE + filter + " ORDER BY id"))
        .containsExactlyElementsOf(
            sql("SELECT id, low, mid FROM dict_expected" + filter + " ORDER BY id"));
  }
}
