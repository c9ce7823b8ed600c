package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.read.OfficialRuntime;
import io.floe.spark.s3.S3Server;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import java.util.LinkedHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.types.Types;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.RecordReader;
import org.apache.orc.TypeDescription;
import org.apache.orc.impl.RecordReaderImpl;
import org.apache.spark.sql.SparkSession;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.ReadTestSupport;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code snapshot}, {@code migrate} and {@code add_files} of ORC tables of the session catalog
 * ({@code USING orc}, partitioned and not) over files Spark's own ORC data source wrote: the
 * Iceberg table reads the rows Spark's ORC reader reads, holds each of the source's files with the
 * record count Spark counts in it, and prunes files by the ORC metrics Iceberg's {@code OrcMetrics}
 * read; a file that is not ORC fails the migration and leaves the source as it was.
 *
 * <p>Spark's ORC cannot run in this JVM (see {@link SparkOrcSources}), so the files and the oracle
 * (rows, per-file counts and id ranges) come from a child JVM with Spark's ORC; here the source is
 * only declared over them, which reads no file.
 */
class OrcImportTest extends ImportTestBase {
  private static final String COLUMNS = SparkOrcSources.COLUMNS;

  private Path written;
  private Process writer;

  @Override
  protected String name() {
    return "floe-orc-import-tests";
  }

  @Override
  protected void configure(SparkSession.Builder builder) {
    builder.config("spark.sql.session.timeZone", SparkOrcSources.TIME_ZONE);
  }

  /**
   * Starts writing the sources and their oracle with Spark's own ORC, once for the class, in a
   * child JVM that runs while this JVM starts its session.
   */
  @Override
  protected void beforeSessionStarts() throws IOException {
    written = warehouse.resolve("spark-orc");
    writer = SparkOrcSources.startWriting(written);
  }

  /** Waits for the sources. */
  @BeforeAll
  void writeSources() throws IOException, InterruptedException {
    SparkOrcSources.awaitWriting(writer, written);
  }

  /**
   * Declares {@code db.<name>} USING orc (partitioned by cat or not) over a fresh copy of the files
   * Spark wrote, and keeps the rows Spark's ORC reader read from them in the view {@code expected}
   * and each file's name, record count and id range in the view {@code source_files}.
   */
  private void createOrcSource(String name, boolean partitioned) throws IOException {
    String source = partitioned ? "partitioned" : "flat";
    Path location = sparkWarehouse.resolve("sources").resolve(name + "-" + System.nanoTime());
    copyRecursively(written.resolve(source), location);
    sql(
        "CREATE TABLE db.%s (%s) USING orc %s LOCATION '%s'",
        name, SparkOrcSources.SCHEMA, partitioned ? "PARTITIONED BY (cat)" : "", location.toUri());
    if (partitioned) {
      sql("ALTER TABLE db.%s RECOVER PARTITIONS", name);
    }
    spark.read().parquet(written.resolve(source + "-rows").toUri().toString())
        .createOrReplaceTempView("expected");
    spark.read().parquet(written.resolve(source + "-files").toUri().toString())
        .createOrReplaceTempView("source_files");
  }

  private static void copyRecursively(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : files.toList()) {
        Path target = to.resolve(from.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else {
          Files.copy(file, target);
        }
      }
    }
  }

  private void assertRowsEqualExpected(String table) {
    assertThat(sql("SELECT %s FROM %s EXCEPT ALL SELECT * FROM expected", COLUMNS, table)).isEmpty();
    assertThat(sql("SELECT * FROM expected EXCEPT ALL SELECT %s FROM %s", COLUMNS, table)).isEmpty();
    assertThat(sql("SELECT count(*) FROM %s", table).get(0).getLong(0)).isEqualTo(120L);
  }

  /** Each source file's name and record count as Spark counted the rows it read from it. */
  private Map<String, Long> sourceRecordCounts() {
    Map<String, Long> counts = new HashMap<>();
    for (Row row : sql("SELECT file, records FROM source_files")) {
      counts.put(fileName(row.getString(0)), row.getLong(1));
    }
    return counts;
  }

  /** The names of the data files a query's Floe scan plans to read. */
  private Set<String> plannedFiles(String query) {
    Set<String> files = new HashSet<>();
    for (FloeInputPartition partition : ReadTestSupport.floeScan(spark.sql(query)).partitions()) {
      for (ScanTask task : partition.tasks()) {
        files.add(fileName(((FileScanTask) task).file().location()));
      }
    }
    return files;
  }

  /**
   * Asserts that filters on the Iceberg table return Spark's rows of the source under the same
   * filter and read only the files that can hold them: for a data column, the source files whose
   * id range (as Spark computes it) covers the value; for the partition column, the files of that
   * partition.
   */
  private void assertFiltersPrune(String table) {
    for (String filter :
        List.of(
            "id = 45", "id > 100", "cat = 'a'", "cat IS NULL AND id < 30",
            "ts >= TIMESTAMP'2024-03-10 03:30:00'", "ts < TIMESTAMP'2024-03-10 09:30:00 UTC'",
            "ts IS NULL", "ntz > TIMESTAMP_NTZ'2024-03-10 02:30:00'",
            "ntz = TIMESTAMP_NTZ'2024-03-10 01:31:00.000001'", "s.t < TIMESTAMP'1970-01-01 12:00:00'",
            "s.u >= TIMESTAMP_NTZ'1970-01-01 00:00:30'")) {
      assertThat(sql("SELECT %s FROM %s WHERE %s", COLUMNS, table, filter))
          .containsExactlyInAnyOrderElementsOf(
              sql("SELECT * FROM expected WHERE %s", filter));
    }
    Set<String> holding45 = new HashSet<>();
    Set<String> above100 = new HashSet<>();
    for (Row row : sql("SELECT file, records, min_id, max_id FROM source_files")) {
      if (row.getLong(2) <= 45 && row.getLong(3) >= 45) {
        holding45.add(fileName(row.getString(0)));
      }
      if (row.getLong(3) > 100) {
        above100.add(fileName(row.getString(0)));
      }
    }
    Set<String> all = plannedFiles("SELECT * FROM " + table);
    assertThat(plannedFiles("SELECT * FROM " + table + " WHERE id = 45"))
        .isEqualTo(holding45)
        .hasSizeLessThan(all.size());
    assertThat(plannedFiles("SELECT * FROM " + table + " WHERE id > 100"))
        .isEqualTo(above100)
        .hasSizeLessThan(all.size());
    // a TIMESTAMP_NTZ column prunes by its bounds, and never a file that holds a matching row
    Set<String> afterNtz = new HashSet<>();
    for (Row row : sql("SELECT file, max_ntz FROM source_files")) {
      if (!row.isNullAt(1) && row.getAs(1).toString().compareTo("2024-03-10T02:30") > 0) {
        afterNtz.add(fileName(row.getString(0)));
      }
    }
    assertThat(plannedFiles("SELECT * FROM " + table + " WHERE ntz > TIMESTAMP_NTZ'2024-03-10 02:30:00'"))
        .containsAll(afterNtz);
    // a TIMESTAMP column has no ORC bounds in the table (the file's are local times): no pruning
    assertThat(plannedFiles("SELECT * FROM " + table + " WHERE ts > TIMESTAMP'2024-03-10 05:00:00'"))
        .isEqualTo(all);
  }

  @Test
  void aSnapshotOfAPartitionedOrcTableReadsItsRowsFromItsFiles() throws IOException {
    createOrcSource("src", true);
    URI sourceLocation = builtIn("src").location();
    Set<Path> sourceFiles = dataFiles(sourceLocation, "orc");
    Map<String, Long> sourceCounts = sourceRecordCounts();

    assertThat(sql("CALL spark_catalog.system.snapshot('db.src', 'db.snap')"))
        .containsExactly(RowFactory.create((long) sourceFiles.size()));

    assertRowsEqualExpected("db.snap");
    assertThat(icebergRecordCounts("db.snap", "ORC")).isEqualTo(sourceCounts).hasSize(sourceFiles.size());
    Table snap = sessionIceberg().loadTable(TableIdentifier.of("db", "snap"));
    assertThat(snap.spec().fields()).singleElement()
        .satisfies(field -> assertThat(field.name()).isEqualTo("cat"));
    assertFiltersPrune("db.snap");
    Set<String> catA =
        sourceFiles.stream()
            .filter(p -> p.getParent().getFileName().toString().equals("cat=a"))
            .map(p -> fileName(p.toString()))
            .collect(Collectors.toSet());
    assertThat(plannedFiles("SELECT * FROM db.snap WHERE cat = 'a'")).isEqualTo(catA).isNotEmpty();

    // the snapshot's own writes go to its folder; the source keeps its files and rows
    sql("INSERT INTO db.snap SELECT * FROM expected WHERE id < 3");
    assertThat(sql("SELECT count(*) FROM db.snap").get(0).getLong(0)).isEqualTo(123L);
    assertThat(sql("SELECT %s FROM db.snap", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(
            sql("SELECT * FROM expected UNION ALL SELECT * FROM expected WHERE id < 3"));
    assertThat(sql("SELECT %s FROM db.snap WHERE ts < TIMESTAMP'2024-03-10 01:00:00'", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(
            sql("SELECT * FROM expected WHERE ts < TIMESTAMP'2024-03-10 01:00:00' UNION ALL "
                + "SELECT * FROM expected WHERE id < 3 AND ts < TIMESTAMP'2024-03-10 01:00:00'"));
    assertThat(dataFiles(sourceLocation, "orc")).isEqualTo(sourceFiles);
    assertThat(builtIn("src").provider().get()).isEqualTo("orc");
  }

  @Test
  void migrateOfAnUnpartitionedOrcTableKeepsItsRowsAndFiles() throws IOException {
    createOrcSource("m", false);
    URI location = builtIn("m").location();
    Set<Path> files = dataFiles(location, "orc");
    Map<String, Long> sourceCounts = sourceRecordCounts();

    assertThat(sql("CALL spark_catalog.system.migrate('db.m')"))
        .containsExactly(RowFactory.create((long) files.size()));

    Table migrated = sessionIceberg().loadTable(TableIdentifier.of("db", "m"));
    assertThat(migrated.spec().isUnpartitioned()).isTrue();
    assertThat(migrated.properties()).containsEntry("migrated", "true");
    assertRowsEqualExpected("db.m");
    assertThat(icebergRecordCounts("db.m", "ORC")).isEqualTo(sourceCounts).hasSize(files.size());
    assertThat(builtIn("m_BACKUP_").tableType()).isEqualTo(CatalogTableType.EXTERNAL());
    assertFiltersPrune("db.m");
    assertThat(dataFiles(location, "orc")).isEqualTo(files);
  }

  @Test
  void aFailedOrcMigrationRestoresTheSourceAndLeavesNoIcebergTable() throws IOException {
    createOrcSource("f", true);
    assertAFailedMigrationRestoresTheSource("f", "orc", "ORC", this::assertRowsEqualExpected);
  }

  @Test
  void sparkWritesTimestampsToOrcAsLocalTimesOfItsZoneAndTimestampNtzAsLongs() throws IOException {
    Path file =
        dataFiles(written.resolve("flat").toUri(), "orc").stream().findFirst().orElseThrow();
    try (Reader reader =
            OrcFile.createReader(
                new org.apache.hadoop.fs.Path(file.toUri()),
                OrcFile.readerOptions(new Configuration()));
        RecordReader rows = reader.rows()) {
      TypeDescription schema = reader.getSchema();
      TypeDescription ts = schema.findSubtype("ts");
      TypeDescription ntz = schema.findSubtype("ntz");
      assertThat(ts.getCategory()).isEqualTo(TypeDescription.Category.TIMESTAMP);
      assertThat(ts.getAttributeValue("spark.sql.catalyst.type")).isEqualTo("timestamp");
      assertThat(ntz.getCategory()).isEqualTo(TypeDescription.Category.LONG);
      assertThat(ntz.getAttributeValue("spark.sql.catalyst.type"))
          .isEqualTo("timestamp_ntz");
      assertThat(schema.findSubtype("s.u").getCategory()).isEqualTo(TypeDescription.Category.LONG);
      assertThat(((RecordReaderImpl) rows).readStripeFooter(reader.getStripes().get(0))
              .getWriterTimezone())
          .isEqualTo(SparkOrcSources.TIME_ZONE);
    }
  }

  @Test
  void anOrcImportIntoANanosecondTimestampColumnIsRefusedBeforeAnythingIsAdded() throws IOException {
    createOrcSource("src", false);
    Catalog floe =
        ((FloeCatalog) spark.sessionState().catalogManager().catalog("floe")).icebergCatalog();
    floe.createTable(
        TableIdentifier.of("db", "ns_target"),
        new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "ts", Types.TimestampNanoType.withZone())),
        PartitionSpec.unpartitioned(),
        Map.of("format-version", "3"));

    assertThatThrownBy(
            () -> sql("CALL floe.system.add_files('db.ns_target', 'spark_catalog.db.src')"))
        .hasMessage(
            "Cannot call floe.system.add_files: argument 'source_table' "
                + ImportSource.orcTimestampReason("ts"));
    assertThat(ImportSource.orcTimestampReason("ts"))
        .contains("nanosecond timestamp column ts");
    assertThat(sql("SELECT count(*) FROM floe.db.ns_target.snapshots").get(0).getLong(0))
        .isEqualTo(0L);
  }

  /**
   * Floe reads the imported TIMESTAMP and TIMESTAMP_NTZ values Spark wrote; the official runtime,
   * in its own JVM in the same session time zone, fails on the same table.
   */
  @Test
  void floeReadsTheImportedTimestampsWhereTheOfficialRuntimeFails() throws IOException, InterruptedException {
    createOrcSource("src", false);
    sql("CREATE TABLE floe.db.interop (%s) USING iceberg", SparkOrcSources.SCHEMA);
    sql("CALL floe.system.add_files('db.interop', 'spark_catalog.db.src')");
    String query = "SELECT id, CAST(ts AS STRING), CAST(ntz AS STRING) FROM %s ORDER BY id";
    List<String> floeRows =
        sql(query, "floe.db.interop").stream()
            .map(r -> r.getLong(0) + "|" + r.get(1) + "|" + r.get(2))
            .collect(Collectors.toList());
    assertThat(floeRows)
        .isEqualTo(
            sql(query, "expected").stream()
                .map(r -> r.getLong(0) + "|" + r.get(1) + "|" + r.get(2))
                .collect(Collectors.toList()));

    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.sql.catalog.off", "org.apache.iceberg.spark.SparkCatalog");
    conf.put("spark.sql.catalog.off.type", "hadoop");
    conf.put("spark.sql.catalog.off.warehouse", warehouse.resolve("floe").toUri().toString());
    conf.put("spark.sql.session.timeZone", SparkOrcSources.TIME_ZONE);
    // the official runtime refuses the ORC timestamp as the column's timestamptz
    assertThatThrownBy(
            () -> OfficialRuntime.printedRows(conf, String.format(query, "off.db.interop")))
        .hasMessageContaining("ORCSchemaUtil.buildOrcProjection");
  }

  @Test
  void aLocalTimeOfTheHourTheClocksGoBackFailsTheReadNamingTheColumn() {
    sql("CREATE TABLE floe.db.fall_back (id BIGINT, ts TIMESTAMP) USING iceberg");
    sql("CALL floe.system.add_files('db.fall_back', '`orc`.`%s`')", written.resolve("fall-back").toUri());

    assertThat(sql("SELECT id FROM floe.db.fall_back")).containsExactly(RowFactory.create(1L));
    assertThatThrownBy(() -> sql("SELECT ts FROM floe.db.fall_back"))
        .hasStackTraceContaining(
            "its ORC timestamp column ts holds the local time 2024-11-03T01:30 of "
                + "America/Los_Angeles, which stands for two instants");
  }

  @Test
  void addFilesTakesAnOrcDirectoryAndAnOrcTable() throws IOException {
    createOrcSource("src", true);
    URI location = builtIn("src").location();
    sql(
        "CREATE TABLE floe.db.target (%s) USING iceberg PARTITIONED BY (cat)",
        SparkOrcSources.SCHEMA);

    List<Row> added =
        sql("CALL floe.system.add_files('db.target', '`orc`.`%s`', map('cat', 'a'))", location);

    long catAFiles =
        dataFiles(location, "orc").stream()
            .filter(p -> p.getParent().getFileName().toString().equals("cat=a"))
            .count();
    assertThat(added).containsExactly(RowFactory.create(catAFiles, 1L));
    assertThat(sql("SELECT %s FROM floe.db.target", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected WHERE cat = 'a'"));

    sql("CALL floe.system.add_files('db.target', 'spark_catalog.db.src', map('cat', 'b'))");
    assertThat(sql("SELECT %s FROM floe.db.target", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected WHERE cat IN ('a', 'b')"));
  }

  /**
   * Spark's ORC files in a bucket, in a table whose FileIO is S3FileIO (no Hadoop file system can
   * open them): the read finds the writer's time zone in their stripe footers through the table's
   * FileIO and returns Spark's rows. The files are appended through Iceberg's API, with the name
   * mapping {@code add_files} sets: {@code add_files} lists a source folder through Hadoop, which
   * has no file system for {@code s3://} here.
   */
  @Test
  void orcTimestampsOfFilesInS3ReadThroughTheTablesFileIO() throws IOException {
    createOrcSource("src", false);
    String bucket = "floe-orc-import";
    try (S3Server s3 = S3Server.start("floe-test-access", "floe-test-secret-key")) {
      s3.createBucket(bucket);
      String prefix = "spark.sql.catalog.s3orc";
      spark.conf().set(prefix, FloeCatalog.class.getName());
      spark.conf().set(prefix + ".type", "jdbc");
      spark.conf().set(prefix + ".uri", "jdbc:sqlite:" + warehouse.resolve("s3orc-catalog.db"));
      spark.conf().set(prefix + ".jdbc.schema-version", "V1");
      spark.conf().set(prefix + ".warehouse", "s3://" + bucket + "/warehouse");
      s3.fileIoOptions(true).forEach((key, value) -> spark.conf().set(prefix + "." + key, value));
      sql("CREATE NAMESPACE s3orc.db");
      sql("CREATE TABLE s3orc.db.imported (%s) USING iceberg", SparkOrcSources.SCHEMA);
      Table table =
          ((FloeCatalog) spark.sessionState().catalogManager().catalog("s3orc"))
              .icebergCatalog().loadTable(TableIdentifier.of("db", "imported"));
      table.updateProperties()
          .set(TableProperties.DEFAULT_NAME_MAPPING,
              NameMappingParser.toJson(MappingUtil.create(table.schema())))
          .commit();
      Map<String, Long> counts = sourceRecordCounts();
      AppendFiles append = table.newAppend();
      for (Path file : dataFiles(builtIn("src").location(), "orc")) {
        String location = "s3://" + bucket + "/imports/" + file.getFileName();
        try (InputStream in = Files.newInputStream(file);
            OutputStream out = table.io().newOutputFile(location).create()) {
          in.transferTo(out);
        }
        append.appendFile(
            DataFiles.builder(table.spec())
                .withPath(location)
                .withFormat(FileFormat.ORC)
                .withFileSizeInBytes(Files.size(file))
                .withRecordCount(counts.get(fileName(file.toString())))
                .build());
      }
      append.commit();

      assertThat(s3.keys(bucket, "imports/")).hasSize(counts.size());
      assertRowsEqualExpected("s3orc.db.imported");
      String query = "SELECT id, CAST(ts AS STRING), CAST(s.t AS STRING) FROM %s ORDER BY id";
      assertThat(sql(query, "s3orc.db.imported")).isEqualTo(sql(query, "expected"));
      sql("DROP TABLE s3orc.db.imported");
      sql("DROP NAMESPACE s3orc.db");
    }
  }
}
