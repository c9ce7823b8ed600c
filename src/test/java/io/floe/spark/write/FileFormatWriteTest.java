package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.catalog.TestCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Data files in the format a write asks for: the write option {@code write-format} over the table
 * property {@code write.format.default} (parquet, orc or avro, in any case), every type read back
 * as written, partitioned or not, with metrics, at the target file size and with the codec asked
 * for; a table whose files are of all three formats reads with filters as the same rows do; a
 * format that is none of the three fails naming the value, with nothing committed.
 */
class FileFormatWriteTest extends CatalogTestBase {

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  @BeforeAll
  void createNamespace() throws Exception {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
  }

  @AfterEach
  void dropTables() throws Exception {
    for (String name : List.of("typed", "mixed", "by_property", "bad_format", "split", "codec")) {
      sql("DROP TABLE IF EXISTS floe.db." + name);
    }
  }

  @ParameterizedTest(name = "{0}, partitioned={1}")
  @CsvSource({"avro,false", "avro,true", "ORC,false", "Orc,true"})
  void everyTypeReadsBackAsWritten(String format, boolean partitioned) throws Exception {
    sql(
        "CREATE TABLE floe.db.typed (%s) USING iceberg %s",
        AllTypes.DDL, partitioned ? "PARTITIONED BY (bucket(2, id), i, days(ts))" : "");
    Dataset<Row> all = spark.createDataFrame(AllTypes.rows(), AllTypes.SCHEMA);
    Dataset<Row> written = all;
    FileFormat expected = FileFormat.fromString(format);
    if (expected == FileFormat.ORC) {
      // ORC 1.9 stores the last second before the epoch a second late: refused, not written wrong
      assertThatThrownBy(() -> all.writeTo("floe.db.typed").option("write-format", format).append())
          .hasStackTraceContaining(
              "Cannot write 1969-12-31T23:59:59.999999 into column 'ts' of an ORC file");
      assertThat(snapshots("db.typed")).isEmpty();
      written =
          all.withColumn(
              "ts",
              functions.when(functions.col("id").equalTo(3), functions.expr("ts - INTERVAL 1 SECOND"))
                  .otherwise(functions.col("ts")));
    }
    written.createOrReplaceTempView("typed_rows");

    written.writeTo("floe.db.typed").option("write-format", format).append();

    assertThat(spark.table("floe.db.typed").orderBy("id").collectAsList())
        .containsExactlyElementsOf(spark.table("typed_rows").orderBy("id").collectAsList());
    assertThat(sql("SELECT id FROM floe.db.typed WHERE s = '' OR i = 0 ORDER BY id"))
        .containsExactlyElementsOf(sql("SELECT id FROM typed_rows WHERE s = '' OR i = 0 ORDER BY id"));
    assertThat(sql("SELECT id, i FROM floe.db.typed WHERE i > 0 ORDER BY id"))
        .containsExactlyElementsOf(sql("SELECT id, i FROM typed_rows WHERE i > 0 ORDER BY id"));
    List<DataFile> files = addedFiles("db.typed");
    assertThat(files).isNotEmpty().allSatisfy(file -> assertThat(file.format()).isEqualTo(expected));
    assertThat(files.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(AllTypes.rows().size());
    assertThat(files)
        .allSatisfy(
            file -> {
              assertThat(file.location()).endsWith("." + expected.name().toLowerCase(Locale.ROOT));
              // Iceberg's Avro writer keeps no column metrics, for the official runtime too
              if (expected != FileFormat.AVRO) {
                assertThat(file.valueCounts()).isNotEmpty();
                assertThat(file.nullValueCounts()).isNotEmpty();
                assertThat(file.lowerBounds()).isNotEmpty();
              }
            });
    if (partitioned) {
      assertThat(files.size()).isGreaterThan(1);
    }
  }

  @Test
  void theTablePropertyPicksTheFormatAndTheOptionOverridesIt() throws Exception {
    sql(
        "CREATE TABLE floe.db.by_property (id BIGINT, data STRING) USING iceberg"
            + " TBLPROPERTIES ('write.format.default' = 'AVRO')");
    sql("INSERT INTO floe.db.by_property VALUES (1, 'a'), (2, 'b')");
    assertThat(addedFiles("db.by_property"))
        .allSatisfy(file -> assertThat(file.format()).isEqualTo(FileFormat.AVRO));

    spark.sql("SELECT CAST(3 AS BIGINT) AS id, 'c' AS data")
        .writeTo("floe.db.by_property")
        .option("write-format", "parquet")
        .append();
    assertThat(addedFiles("db.by_property"))
        .allSatisfy(file -> assertThat(file.format()).isEqualTo(FileFormat.PARQUET));
    assertThat(sql("SELECT id, data FROM floe.db.by_property ORDER BY id"))
        .containsExactly(row(1L, "a"), row(2L, "b"), row(3L, "c"));
  }

  @Test
  void aTableOfParquetOrcAndAvroFilesReadsWithFilters() throws Exception {
    sql("CREATE TABLE floe.db.mixed (id BIGINT, part STRING, v DOUBLE) USING iceberg PARTITIONED BY (part)");
    String rows =
        "SELECT id, CASE WHEN id %% 3 = 0 THEN 'x' ELSE 'y' END AS part, CAST(id * 1.5 AS DOUBLE) AS v"
            + " FROM range(%d, %d)";
    List<Row> all = new ArrayList<>();
    String[] formats = {"parquet", "orc", "avro"};
    for (int i = 0; i < formats.length; i += 1) {
      Dataset<Row> batch = spark.sql(String.format(rows, i * 100, i * 100 + 100));
      all.addAll(batch.collectAsList());
      batch.writeTo("floe.db.mixed").option("write-format", formats[i]).append();
    }
    spark.createDataFrame(all, spark.table("floe.db.mixed").schema()).createOrReplaceTempView("mixed_rows");

    Table table = icebergTable("db.mixed");
    List<FileFormat> seen = new ArrayList<>();
    table.newScan().planFiles().forEach(task -> seen.add(task.file().format()));
    assertThat(seen).contains(FileFormat.PARQUET, FileFormat.ORC, FileFormat.AVRO);
    for (String filter :
        List.of(
            "true",
            "part = 'x'",
            "id BETWEEN 150 AND 250",
            "v > 400 AND part = 'y'",
            "id IN (1, 101, 201, 299)")) {
      String query = "SELECT id, part, v FROM %s WHERE " + filter + " ORDER BY id";
      assertThat(sql(query, "floe.db.mixed"))
          .as(filter)
          .containsExactlyElementsOf(sql(query, "mixed_rows"));
    }
    assertThat(sql("SELECT part, count(*), sum(v) FROM floe.db.mixed GROUP BY part ORDER BY part"))
        .containsExactlyElementsOf(
            sql("SELECT part, count(*), sum(v) FROM mixed_rows GROUP BY part ORDER BY part"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"orc", "avro"})
  void filesRollOverAtTheTargetSize(String format) throws Exception {
    sql("CREATE TABLE floe.db.split (id BIGINT, data STRING) USING iceberg");
    spark.sql("SELECT id, uuid() AS data FROM range(0, 20000, 1, 1)")
        .writeTo("floe.db.split")
        .option("write-format", format)
        .option("target-file-size-bytes", "65536")
        .append();

    List<DataFile> files = addedFiles("db.split");
    assertThat(files.size()).isGreaterThan(2);
    assertThat(files.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(20000L);
    assertThat(sql("SELECT count(*), count(DISTINCT id) FROM floe.db.split"))
        .containsExactly(row(20000L, 20000L));
  }

  @Test
  void avroFilesCarryTheCodecAskedFor() throws Exception {
    sql("CREATE TABLE floe.db.codec (id BIGINT, data STRING) USING iceberg");
    spark.sql("SELECT id, CAST(id AS STRING) AS data FROM range(100)")
        .writeTo("floe.db.codec")
        .option("write-format", "avro")
        .option("compression-codec", "snappy")
        .append();
    assertThat(avroCodecs("db.codec")).containsOnly("snappy");

    spark.sql("SELECT id, CAST(id AS STRING) AS data FROM range(100)")
        .writeTo("floe.db.codec")
        .option("write-format", "avro")
        .option("compression-codec", "zstd")
        .option("compression-level", "3")
        .append();
    assertThat(avroCodecs("db.codec")).containsOnly("zstandard");
    assertThat(sql("SELECT count(*) FROM floe.db.codec")).containsExactly(row(200L));
  }

  @Test
  void aFormatOrCodecOfNoKnownNameFailsNamingItAndCommitsNothing() throws Exception {
    sql("CREATE TABLE floe.db.bad_format (id BIGINT) USING iceberg");
    Dataset<Row> rows = spark.sql("SELECT id FROM range(3)");

    assertThatThrownBy(() -> rows.writeTo("floe.db.bad_format").option("write-format", "csv").append())
        .hasMessageContaining(
            "Cannot write to floe.db.bad_format: option 'write-format' must be parquet, orc or avro,"
                + " not 'csv'");
    assertThatThrownBy(() -> rows.writeTo("floe.db.bad_format").option("delete-format", "text").append())
        .hasMessageContaining("option 'delete-format' must be parquet, orc or avro, not 'text'");
    assertThatThrownBy(
            () ->
                rows.writeTo("floe.db.bad_format")
                    .option("write-format", "avro")
                    .option("compression-codec", "lz4")
                    .append())
        .hasMessageContaining("option 'compression-codec' names no avro codec: 'lz4'");
    sql("ALTER TABLE floe.db.bad_format SET TBLPROPERTIES ('write.format.default' = 'json')");
    assertThatThrownBy(() -> sql("INSERT INTO floe.db.bad_format VALUES (1)"))
        .hasMessageContaining(
            "table property 'write.format.default' must be parquet, orc or avro, not 'json'");

    assertThat(snapshots("db.bad_format")).isEmpty();
    assertThat(localFile(icebergTable("db.bad_format").location()).resolve("data")).doesNotExist();
  }

  private static Path localFile(String location) {
    return Paths.get(URI.create(location.startsWith("file:") ? location : "file:" + location));
  }

  private static List<DataFile> addedFiles(String name) {
    Table table = icebergTable(name);
    List<DataFile> files = new ArrayList<>();
    table.currentSnapshot().addedDataFiles(table.io()).forEach(files::add);
    return files;
  }

  /** The codec each Avro data file of the current snapshot names in its header. */
  private static List<String> avroCodecs(String name) {
    List<String> codecs = new ArrayList<>();
    for (DataFile file : addedFiles(name)) {
      try (DataFileReader<GenericRecord> reader =
          new DataFileReader<>(
              localFile(file.location()).toFile(), new GenericDatumReader<>())) {
        codecs.add(reader.getMetaString("avro.codec"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return codecs;
  }
}
