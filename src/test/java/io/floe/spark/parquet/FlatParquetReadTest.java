package io.floe.spark.parquet;

import static io.floe.spark.read.ReadTestSupport.canonicalRecords;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.types.SparkSchemas;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.datasources.parquet.ParquetUtils;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Floe's own Parquet decoder ({@link FlatParquetReader}) against the rows written: every type it
 * decodes, NULLs in runs and scattered, required columns, dictionaries that overflow into plain
 * pages, every compression codec, batches that end inside pages, row positions, data pages of
 * format version 2, and fixed-length columns. Each case first checks that the files really are decoded by it (a file it
 * turns down goes to Spark's reader, which would make the comparison prove nothing), then compares
 * the columnar scan with the written rows and with Floe's row path (Iceberg's own Parquet reader).
 */
class FlatParquetReadTest extends SparkTestBase {
  private static final String COLUMNS =
      "id BIGINT NOT NULL, b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE, s STRING, low STRING,"
          + " dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, d9 DECIMAL(9,2), d18 DECIMAL(18,4),"
          + " req STRING NOT NULL, bin BINARY, lbin BINARY, d38 DECIMAL(38,10), d20 DECIMAL(20,0),"
          + " nb BOOLEAN";
  // high-cardinality columns overflow their small dictionaries into plain pages; l is NULL for a
  // run of thousands of rows (whole pages of NULLs); negative dates, timestamps and decimals; wide
  // decimals (fixed-length bytes) of every size of unscaled value: Spark's compact long form (up to
  // 18 digits), a long beyond it, the long's limits, and more than a long holds
  private static final String ROWS =
      "SELECT id,"
          + " CASE WHEN id % 7 = 0 THEN NULL ELSE id % 3 = 0 END AS b,"
          + " CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(id * 31 % 100003 AS INT) - 50000 END AS i,"
          + " CASE WHEN id BETWEEN 5000 AND 7999 THEN NULL ELSE id % 50 - 25 END AS l,"
          + " CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id AS FLOAT) / 4 END AS f,"
          + " CASE WHEN id % 13 = 0 THEN NULL ELSE CAST(id % 97 AS DOUBLE) * -1.25 END AS d,"
          + " CASE WHEN id % 17 = 0 THEN NULL"
          + "  ELSE concat('s', CAST(id * 7919 % 1000003 AS STRING),"
          + "   repeat('x', CAST(id % 40 AS INT)))"
          + "  END AS s,"
          + " CASE WHEN id % 19 = 0 THEN NULL WHEN id % 23 = 1 THEN ''"
          + "  ELSE concat('ké-', CAST(id % 23 AS STRING), '-😀') END AS low,"
          + " CASE WHEN id % 9 = 0 THEN NULL"
          + "  ELSE date_add(DATE'1969-12-25', CAST(id % 400 AS INT)) END AS dt,"
          + " CASE WHEN id % 10 = 0 THEN NULL ELSE timestamp_micros(id * 1000003 - 5000000000) END"
          + "  AS ts,"
          + " CASE WHEN id % 8 = 0 THEN NULL"
          + "  ELSE CAST(timestamp_micros(id * 999983) AS TIMESTAMP_NTZ) END AS ntz,"
          + " CASE WHEN id % 6 = 0 THEN NULL"
          + "  ELSE CAST((id % 100000 - 50000) / 100.0 AS DECIMAL(9,2)) END AS d9,"
          + " CASE WHEN id % 4 = 0 THEN NULL"
          + "  ELSE CAST(id * -12345.6789 AS DECIMAL(18,4)) END AS d18,"
          + " concat('r', CAST(id % 3 AS STRING)) AS req,"
          + " CASE WHEN id % 7 = 0 THEN NULL WHEN id % 29 = 1 THEN X''"
          + "  ELSE CAST(concat('b', CAST(id * 7919 % 1000003 AS STRING),"
          + "   repeat('y', CAST(id % 9 AS INT))) AS BINARY) END AS bin,"
          + " CASE WHEN id % 3 = 0 THEN NULL ELSE CAST(concat('k', CAST(id % 5 AS STRING)) AS BINARY)"
          + "  END AS lbin,"
          + " CAST(CASE WHEN id % 5 = 0 THEN NULL"
          + "  WHEN id % 1000 = 7 THEN '99999999.9999999999'"
          + "  WHEN id % 1000 = 8 THEN '-100000000.0000000000'"
          + "  WHEN id % 1000 = 9 THEN '922337203.6854775807'"
          + "  WHEN id % 1000 = 11 THEN '-922337203.6854775808'"
          + "  WHEN id % 1000 = 12 THEN '9999999999999999999999999999.9999999999'"
          + "  WHEN id % 1000 = 13 THEN '-9999999999999999999999999999.9999999999'"
          + "  WHEN id % 3 = 0 THEN concat(CASE WHEN id % 2 = 0 THEN '-' ELSE '' END,"
          + "   CAST(id * 9876543210987 AS STRING), CAST(id AS STRING), '.',"
          + "   lpad(CAST(id * 31 % 10000000000 AS STRING), 10, '0'))"
          + "  ELSE CAST((id - 15000) / 8.0 AS STRING) END AS DECIMAL(38,10)) AS d38,"
          + " CAST(CASE WHEN id % 4 = 0 THEN NULL"
          + "  WHEN id % 4 = 1 THEN CAST(id * 123456789012345 AS STRING)"
          + "  WHEN id % 8 = 2 THEN concat('-9999999999999', lpad(CAST(id AS STRING), 7, '0'))"
          + "  ELSE CAST(15000 - id AS STRING) END AS DECIMAL(20,0)) AS d20,"
          // a nullable column without NULLs: its plain bits are read eight at a time
          + " id * 7919 % 5 < 2 AS nb"
          + " FROM range(0, 30000)";

  @BeforeAll
  static void expectedRows() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.flat");
    spark.sql(ROWS).createOrReplaceTempView("flat_expected");
  }

  @ParameterizedTest
  @ValueSource(strings = {"zstd", "snappy", "gzip", "uncompressed"})
  void everyTypeReadsAsWrittenWithEveryCodec(String codec) throws IOException {
    String table = "floe.flat.t_" + codec;
    sql(
        "CREATE TABLE " + table + " (" + COLUMNS + ") USING iceberg TBLPROPERTIES ("
            + " 'write.parquet.compression-codec'='" + codec + "',"
            + " 'write.parquet.row-group-size-bytes'='65536',"
            + " 'write.parquet.page-size-bytes'='2048',"
            + " 'write.parquet.dict-size-bytes'='4096')");
    spark.sql("INSERT INTO " + table + " " + ROWS).collectAsList();
    Table iceberg = icebergTable(spark, table.substring("floe.".length()));
    for (DataFile file : dataFiles(iceberg)) {
      assertThat(flatlyDecodedRows(file.location(), iceberg.schema()))
          .as("rows of %s decoded by Floe's own decoder", file.location())
          .isEqualTo(file.recordCount());
    }

    List<Row> expected = sql("SELECT * FROM flat_expected ORDER BY id");
    for (String batchSize : List.of("1000", "7")) {
      List<Row> columnar =
          spark
              .read()
              .option("vectorization-enabled", "true")
              .option("batch-size", batchSize)
              .table(table)
              .orderBy("id")
              .collectAsList();
      assertThat(columnar).as("batch size %s", batchSize).containsExactlyElementsOf(expected);
    }
    List<Row> rows =
        spark.read().option("vectorization-enabled", "false").table(table).orderBy("id")
            .collectAsList();
    assertThat(rows).containsExactlyElementsOf(expected);

    String positions = "SELECT _file, _pos, id, low FROM " + table;
    assertThat(
            canonicalRows(
                spark.read().option("vectorization-enabled", "true").option("batch-size", "333")
                    .table(table).selectExpr("_file", "_pos", "id", "low").collectAsList()))
        .as(positions)
        .hasSize(30000)
        .isEqualTo(
            canonicalRows(
                spark.read().option("vectorization-enabled", "false")
                    .table(table).selectExpr("_file", "_pos", "id", "low").collectAsList()));
  }

  @Test
  void onePartitionReadingFilesOfEveryCodecReadsEachAsWritten() {
    // the files of one input partition share the arrays of their pages and row-group buffers, so
    // a later file (of another codec, with pages of other sizes) reuses what an earlier one freed
    String table = "floe.flat.shared";
    sql(
        "CREATE TABLE " + table + " (" + COLUMNS + ") USING iceberg TBLPROPERTIES ("
            + " 'write.parquet.row-group-size-bytes'='65536',"
            + " 'write.parquet.page-size-bytes'='4096')");
    String[] codecs = {"zstd", "uncompressed", "snappy", "zstd", "gzip", "uncompressed"};
    for (int i = 0; i < codecs.length; i++) {
      sql(
          "ALTER TABLE %s SET TBLPROPERTIES ('write.parquet.compression-codec'='%s')",
          table, codecs[i]);
      spark
          .sql(
              "INSERT INTO " + table + " SELECT /*+ COALESCE(1) */ * FROM flat_expected"
                  + " WHERE id % 6 = " + i)
          .collectAsList();
    }
    assertThat(dataFiles(icebergTable(spark, "flat.shared"))).hasSize(codecs.length);

    Dataset<Row> scan =
        spark
            .read()
            .option("vectorization-enabled", "true")
            .option("split-size", String.valueOf(1L << 30))
            .option("batch-size", "500")
            .table(table);
    assertThat(floeScan(scan).toBatch().planInputPartitions()).hasSize(1);
    assertThat(scan.orderBy("id").collectAsList())
        .containsExactlyElementsOf(sql("SELECT * FROM flat_expected ORDER BY id"));
  }

  @Test
  void characterCountsOfPlainStringsAreSparksWhetherOrNotTheyAreAscii() throws IOException {
    // values mostly unique, so the pages are plain after the first; ASCII and non-ASCII values in
    // runs of 500 rows (batches of 7 rows are mostly one or the other, batches of 1,000 hold both),
    // and ASCII values of up to 237 bytes
    String values =
        "SELECT id, CASE WHEN id % 97 = 0 THEN NULL WHEN id % 1000 < 500"
            + " THEN concat('a', CAST(id AS STRING), repeat('x', CAST(id % 230 AS INT)))"
            // values shorter than a word: their bytes are checked one by one
            + " WHEN id % 1000 < 530 THEN concat('ü', CAST(id % 10 AS STRING))"
            + " ELSE concat('é', CAST(id AS STRING), '😀', repeat('y', CAST(id % 7 AS INT)))"
            + " END AS u"
            + " FROM range(0, 6000)";
    sql(
        "CREATE TABLE floe.flat.chars (id BIGINT NOT NULL, u STRING) USING iceberg TBLPROPERTIES ("
            + " 'write.parquet.page-size-bytes'='4096', 'write.parquet.dict-size-bytes'='4096')");
    spark.sql("INSERT INTO floe.flat.chars " + values).collectAsList();
    Table iceberg = icebergTable(spark, "flat.chars");
    for (DataFile file : dataFiles(iceberg)) {
      assertThat(flatlyDecodedRows(file.location(), iceberg.schema()))
          .as("rows of %s decoded by Floe's own decoder", file.location())
          .isEqualTo(file.recordCount());
    }
    spark.sql(values).createOrReplaceTempView("chars_expected");

    String counts =
        "id, length(u), char_length(u), substring(u, -3), lpad(u, 12, '*'), rpad(u, 250, '-')";
    List<Row> expected = sql("SELECT " + counts + " FROM chars_expected ORDER BY id");
    for (String batchSize : List.of("1000", "7")) {
      spark.read().option("batch-size", batchSize).table("floe.flat.chars")
          .createOrReplaceTempView("chars_read");
      assertThat(sql("SELECT " + counts + " FROM chars_read ORDER BY id"))
          .as("batches of %s", batchSize)
          .containsExactlyElementsOf(expected);
    }
  }

  @Test
  void version2DataPagesOfDictionaryEncodedColumnsReadAsWritten() throws IOException {
    sql(
        "CREATE TABLE floe.flat.v2 (id BIGINT NOT NULL, b BOOLEAN, k INT, s STRING, l BIGINT,"
            + " nb BOOLEAN)"
            + " USING iceberg");
    Table table = icebergTable(spark, "flat.v2");
    List<Record> records = new ArrayList<>();
    for (long id = 0; id < 5000; id++) {
      Record record = GenericRecord.create(table.schema());
      record.setField("id", id * 7919 % 1000003);
      record.setField("b", id % 7 == 0 ? null : id % 3 == 0);
      record.setField("k", id % 5 == 0 ? null : (int) (id % 11) - 5);
      record.setField("s", id % 6 == 0 ? null : "v" + (id % 13));
      record.setField("l", id >= 1000 && id < 2500 ? null : id % 17);
      record.setField("nb", id * 7919 % 5 < 2);
      records.add(record);
    }
    String location = appendVersion2File(table, records, 512);

    // the unique ids are delta-encoded, which only Spark's reader decodes; the rest dictionaries
    Schema flat = table.schema().select("b", "k", "s", "l", "nb");
    assertThat(flatlyDecodedRows(location, flat)).isEqualTo(5000);
    assertThat(flatlyDecodedRows(location, table.schema())).isNull();
    assertReadAsWritten("floe.flat.v2", table.schema(), records, flat);
  }

  @Test
  void fixedColumnsReadAsWrittenAndUuidsAreLeftToSparksReader() throws IOException {
    sql(
        "CREATE TABLE floe.flat.fixed (id BIGINT NOT NULL, k INT) USING iceberg"
            + " TBLPROPERTIES ('write.parquet.dict-size-bytes'='2048',"
            + " 'write.parquet.page-size-bytes'='1024')");
    Table table = icebergTable(spark, "flat.fixed");
    // Spark's SQL has no fixed or uuid type: they are added through Iceberg's API
    table
        .updateSchema()
        .addColumn("fx", Types.FixedType.ofLength(5))
        .addColumn("lfx", Types.FixedType.ofLength(3))
        .addColumn("u", Types.UUIDType.get())
        .commit();
    List<Record> records = new ArrayList<>();
    for (long id = 0; id < 6000; id++) {
      Record record = GenericRecord.create(table.schema());
      record.setField("id", id);
      record.setField("k", id % 9 == 0 ? null : (int) (id % 11));
      // version-1 pages store fixed-length values plain, unique or not (see the next test for
      // their dictionaries)
      long unique = id * 7919 % 1000003;
      record.setField(
          "fx",
          id % 7 == 0
              ? null
              : new byte[] {(byte) (unique >> 24), (byte) (unique >> 16), (byte) (unique >> 8),
                (byte) unique, (byte) -id});
      record.setField(
          "lfx", id % 4 == 0 ? null : new byte[] {(byte) (id % 3), (byte) 0xFF, (byte) 0x80});
      record.setField("u", id % 5 == 0 ? null : new java.util.UUID(id * 31, -id));
      records.add(record);
    }
    String location =
        appendWrittenFile(
            table, records, ParquetProperties.WriterVersion.PARQUET_1_0, table.properties());

    Schema fixed = table.schema().select("id", "k", "fx", "lfx");
    assertThat(flatlyDecodedRows(location, fixed)).isEqualTo(6000);
    assertThat(flatlyDecodedRows(location, table.schema())).isNull();
    assertReadAsWritten("floe.flat.fixed", table.schema(), records, fixed);
  }

  @Test
  void version2DictionariesOfFixedLengthValuesReadAsWritten() throws IOException {
    // version-1 files store fixed-length values plain; version 2 gives them dictionaries, whose
    // entries lie one after another without lengths
    sql("CREATE TABLE floe.flat.fixed_v2 (id BIGINT NOT NULL, dc DECIMAL(20,0)) USING iceberg");
    Table table = icebergTable(spark, "flat.fixed_v2");
    table.updateSchema().addColumn("fx", Types.FixedType.ofLength(3)).commit();
    List<Record> records = new ArrayList<>();
    for (long id = 0; id < 5000; id++) {
      Record record = GenericRecord.create(table.schema());
      record.setField("id", id * 7919 % 1000003);
      record.setField(
          "dc",
          id % 6 == 0
              ? null
              : new BigDecimal(
                  BigInteger.valueOf(id % 23 - 11)
                      .multiply(BigInteger.TEN.pow(18))
                      .add(BigInteger.valueOf(id % 5))));
      record.setField(
          "fx", id % 4 == 0 ? null : new byte[] {(byte) (id % 7), (byte) -(id % 3), (byte) 0x80});
      records.add(record);
    }
    String location = appendVersion2File(table, records, 256);

    // the unique ids are delta-encoded, which only Spark's reader decodes
    Schema flat = table.schema().select("dc", "fx");
    assertThat(flatlyDecodedRows(location, flat)).isEqualTo(5000);
    assertReadAsWritten("floe.flat.fixed_v2", table.schema(), records, flat);
  }

  /** {@link #appendWrittenFile} with version-2 data pages of at most {@code pageBytes}. */
  private static String appendVersion2File(Table table, List<Record> records, int pageBytes)
      throws IOException {
    return appendWrittenFile(
        table,
        records,
        ParquetProperties.WriterVersion.PARQUET_2_0,
        Map.of(TableProperties.PARQUET_PAGE_SIZE_BYTES, String.valueOf(pageBytes)));
  }

  /**
   * Writes {@code records} into one Parquet file with Iceberg's generic writer, in the given page
   * format and with the given writer properties, and appends it to {@code table}; the file's
   * location.
   */
  private static String appendWrittenFile(
      Table table,
      List<Record> records,
      ParquetProperties.WriterVersion version,
      Map<String, String> properties)
      throws IOException {
    OutputFile out =
        table.io().newOutputFile(table.locationProvider().newDataLocation("written.parquet"));
    FileAppender<Record> appender =
        Parquet.write(out)
            .schema(table.schema())
            .createWriterFunc(GenericParquetWriter::create)
            .writerVersion(version)
            .setAll(properties)
            .build();
    try (FileAppender<Record> closing = appender) {
      closing.addAll(records);
    }
    table
        .newAppend()
        .appendFile(
            DataFiles.builder(table.spec())
                .withInputFile(out.toInputFile())
                .withFormat(FileFormat.PARQUET)
                .withMetrics(appender.metrics())
                .build())
        .commit();
    return out.location();
  }

  /**
   * Reads {@code table} with batches of 1000 and of 7 rows, whole and projected onto {@code
   * projection}, and compares each with {@code records} (of {@code schema}).
   */
  private static void assertReadAsWritten(
      String table, Schema schema, List<Record> records, Schema projection) {
    List<Record> projected = new ArrayList<>();
    for (Record record : records) {
      Record row = GenericRecord.create(projection);
      for (Types.NestedField field : projection.columns()) {
        row.setField(field.name(), record.getField(field.name()));
      }
      projected.add(row);
    }
    String[] columns =
        projection.columns().stream().map(Types.NestedField::name).toArray(String[]::new);
    for (String batchSize : List.of("1000", "7")) {
      assertThat(
              canonicalRows(
                  spark.read().option("batch-size", batchSize).table(table)
                      .selectExpr(columns).collectAsList()))
          .as("%s, projected, batches of %s", table, batchSize)
          .isEqualTo(canonicalRecords(projected, columns.length));
      assertThat(
              canonicalRows(
                  spark.read().option("batch-size", batchSize).table(table).collectAsList()))
          .as("%s, batches of %s", table, batchSize)
          .isEqualTo(canonicalRecords(records, schema.columns().size()));
    }
  }

  /**
   * Decodes every batch of {@code location}'s columns of {@code projection} with Floe's own
   * decoder, as a scan would ask for them; the rows decoded, or null when it turns the file down.
   */
  static Long flatlyDecodedRows(String location, Schema projection) throws IOException {
    Configuration conf = spark.sessionState().newHadoopConf();
    Path path = new Path(location);
    HadoopInputFile input = HadoopInputFile.fromPath(path, conf);
    ParquetMetadata footer;
    try (ParquetFileReader reader = ParquetFileReader.open(input)) {
      footer = reader.getFooter();
    }
    List<StructField> fields = new ArrayList<>();
    for (Types.NestedField field : projection.columns()) {
      fields.add(
          new StructField(
              field.name(),
              SparkSchemas.toSpark(field.type()),
              true,
              new MetadataBuilder()
                  .putLong(ParquetUtils.FIELD_ID_METADATA_KEY(), field.fieldId())
                  .build()));
    }
    ReadBuffers buffers = ReadBuffers.create();
    FlatParquetReader reader =
        FlatParquetReader.openIfFlat(
            input,
            input.newStream(),
            footer,
            new StructType(fields.toArray(new StructField[0])),
            1000,
            conf,
            path,
            buffers);
    if (reader == null) {
      return null;
    }
    long rows = 0;
    try (FlatParquetReader closing = reader) {
      while (closing.nextBatch()) {
        rows += closing.resultBatch().numRows();
      }
    }
    // a closed reader holds no page: the partition's next file reuses every array
    assertThat(buffers.pages().lentCount()).as("pages still lent after closing").isZero();
    return rows;
  }
}
