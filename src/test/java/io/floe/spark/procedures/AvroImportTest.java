package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.junit.jupiter.api.Test;

/**
 * {@code snapshot}, {@code migrate} and {@code add_files} of Avro sources ({@code USING avro}
 * tables of the session catalog, partitioned and not, and {@code `avro`.`/path`} directories) over
 * files Spark's own Avro data source (spark-avro) wrote: the Iceberg table reads the rows Spark's
 * Avro reader reads from the same files, and holds each file with the record count Spark counts in
 * it; a file that is not Avro fails the import naming it and leaves nothing behind.
 */
class AvroImportTest extends ImportTestBase {
  /**
   * The sources' columns, in table order: the primitive types whose Avro form Spark's writer
   * chooses itself (dates, decimals and timestamps as logical types: {@code TIMESTAMP_NTZ} as
   * {@code local-timestamp-micros}), and nested ones holding them.
   */
  private static final String COLUMNS =
      "id, data, n, d, amount, ts, ntz, flag, f, bin, s, arr, m, cat";

  private static final String SCHEMA =
      "id BIGINT, data STRING, n INT, d DATE, amount DECIMAL(10, 2), ts TIMESTAMP, "
          + "ntz TIMESTAMP_NTZ, flag BOOLEAN, f DOUBLE, bin BINARY, "
          + "s STRUCT<t: TIMESTAMP, x: DECIMAL(5, 1), u: TIMESTAMP_NTZ>, arr ARRAY<DATE>, "
          + "m MAP<STRING, BIGINT>, "
          + "cat STRING";

  @Override
  protected String name() {
    return "floe-avro-import-tests";
  }

  @Override
  protected void configure(SparkSession.Builder builder) {
    builder.config("spark.sql.session.timeZone", "America/Los_Angeles");
  }

  /** The rows of the sources, in {@link #COLUMNS} order, appended in three parts. */
  private static String rows(int part) {
    return String.format(
        "SELECT id, CASE WHEN id %% 7 = 0 THEN NULL ELSE concat('v', id) END AS data, "
            + "CAST(id %% 11 AS INT) AS n, "
            + "CASE WHEN id %% 5 = 0 THEN NULL ELSE date_add(DATE'1969-12-25', CAST(id AS INT)) END AS d, "
            + "CAST(id * -1.25 AS DECIMAL(10, 2)) AS amount, "
            + "CASE WHEN id %% 6 = 0 THEN NULL "
            + "ELSE TIMESTAMP'1969-12-31 16:00:00' + make_interval(0, 0, 0, 0, CAST(id AS INT), 0, id * 0.000123) END AS ts, "
            + "CASE WHEN id %% 4 = 0 THEN NULL "
            + "ELSE TIMESTAMP_NTZ'1969-12-31 23:00:00' + make_interval(0, 0, 0, 0, CAST(id AS INT), 7, id * 0.000011) END AS ntz, "
            + "id %% 2 = 0 AS flag, "
            + "id / 8.0D AS f, "
            + "CAST(concat('b', id) AS BINARY) AS bin, "
            + "CASE WHEN id %% 9 = 0 THEN NULL ELSE named_struct("
            + "'t', TIMESTAMP'2024-03-10 01:30:00' + make_interval(0, 0, 0, 0, CAST(id AS INT), 0, 0), "
            + "'x', CAST(id / 4.0 AS DECIMAL(5, 1)), "
            + "'u', TIMESTAMP_NTZ'2024-03-10 01:30:00' + make_interval(0, 0, 0, 0, CAST(id AS INT), 0, 0)) END AS s, "
            + "array(DATE'1970-01-01' - CAST(id AS INT), CAST(NULL AS DATE)) AS arr, "
            + "map('k', id, 'z', CASE WHEN id %% 2 = 0 THEN NULL ELSE -id END) AS m, "
            + "CASE WHEN id %% 3 = 0 THEN 'a' WHEN id %% 3 = 1 THEN 'b' END AS cat "
            + "FROM range(%d, %d, 1, 2)",
        part * 40, part * 40 + 40);
  }

  /**
   * Creates {@code db.<name>} USING avro (partitioned by cat or not), written by Spark's Avro
   * writer in three inserts, and keeps the rows Spark's Avro reader reads from its files in the
   * view {@code expected}; returns the record count Spark reads from each file.
   */
  private Map<String, Long> createAvroSource(String name, boolean partitioned) {
    sql(
        "CREATE TABLE db.%s (%s) USING avro %s",
        name, SCHEMA, partitioned ? "PARTITIONED BY (cat)" : "");
    for (int part = 0; part < 3; part++) {
      sql("INSERT INTO db.%s %s", name, rows(part));
    }
    return expectFrom("db." + name);
  }

  /**
   * Keeps the rows Spark reads from {@code source} (a table or {@code avro.`path`}) in the view
   * {@code expected}; returns the record count Spark reads from each file.
   */
  private Map<String, Long> expectFrom(String source) {
    Dataset<Row> rows = spark.sql("SELECT " + COLUMNS + " FROM " + source);
    spark.createDataFrame(rows.collectAsList(), rows.schema()).createOrReplaceTempView("expected");
    Map<String, Long> counts = new HashMap<>();
    for (Row row :
        spark.sql("SELECT _metadata.file_path, count(*) FROM " + source + " GROUP BY 1")
            .collectAsList()) {
      counts.put(fileName(row.getString(0)), row.getLong(1));
    }
    return counts;
  }

  private void assertRowsEqualExpected(String table) {
    assertThat(sql("SELECT %s FROM %s", COLUMNS, table))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected"))
        .hasSize(120);
  }

  @Test
  void aSnapshotOfAPartitionedAvroTableReadsItsRowsFromItsFiles() throws IOException {
    Map<String, Long> sourceCounts = createAvroSource("src", true);
    URI sourceLocation = builtIn("src").location();
    Set<Path> sourceFiles = dataFiles(sourceLocation, "avro");
    assertThat(sourceCounts).hasSize(sourceFiles.size());

    assertThat(sql("CALL spark_catalog.system.snapshot('db.src', 'db.snap')"))
        .containsExactly(RowFactory.create((long) sourceFiles.size()));

    assertRowsEqualExpected("db.snap");
    assertThat(icebergRecordCounts("db.snap", "AVRO")).isEqualTo(sourceCounts);
    Table snap = sessionIceberg().loadTable(TableIdentifier.of("db", "snap"));
    assertThat(snap.spec().fields()).singleElement()
        .satisfies(field -> assertThat(field.name()).isEqualTo("cat"));
    for (String filter :
        List.of(
            "id = 45", "cat = 'a'", "cat IS NULL AND id < 30", "d IS NULL",
            "ntz >= TIMESTAMP_NTZ'1970-01-01 10:00:00'", "ntz IS NULL",
            "s.u < TIMESTAMP_NTZ'2024-03-10 04:00:00'", "ts > TIMESTAMP'1970-01-01 00:00:00 UTC'")) {
      assertThat(sql("SELECT %s FROM db.snap WHERE %s", COLUMNS, filter))
          .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected WHERE %s", filter));
    }

    // the source keeps its files and rows
    assertThat(dataFiles(sourceLocation, "avro")).isEqualTo(sourceFiles);
    assertThat(builtIn("src").provider().get()).isEqualTo("avro");
    assertThat(sql("SELECT %s FROM db.src", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(sql("SELECT * FROM expected"));
  }

  @Test
  void migrateOfAnUnpartitionedAvroTableKeepsItsRowsAndFiles() throws IOException {
    Map<String, Long> sourceCounts = createAvroSource("m", false);
    URI location = builtIn("m").location();
    Set<Path> files = dataFiles(location, "avro");

    assertThat(sql("CALL spark_catalog.system.migrate('db.m')"))
        .containsExactly(RowFactory.create((long) files.size()));

    Table migrated = sessionIceberg().loadTable(TableIdentifier.of("db", "m"));
    assertThat(migrated.spec().isUnpartitioned()).isTrue();
    assertThat(migrated.properties()).containsEntry("migrated", "true");
    assertRowsEqualExpected("db.m");
    assertThat(icebergRecordCounts("db.m", "AVRO")).isEqualTo(sourceCounts).hasSize(files.size());
    assertThat(builtIn("m_BACKUP_").tableType()).isEqualTo(CatalogTableType.EXTERNAL());
    assertThat(dataFiles(location, "avro")).isEqualTo(files);

    // new writes go in beside the imported files and read back with them
    sql("INSERT INTO db.m SELECT * FROM expected WHERE id < 3");
    assertThat(sql("SELECT %s FROM db.m", COLUMNS))
        .containsExactlyInAnyOrderElementsOf(
            sql("SELECT * FROM expected UNION ALL SELECT * FROM expected WHERE id < 3"));
  }

  @Test
  void addFilesTakesAnAvroDirectory() throws IOException {
    Path dir = sparkWarehouse.resolve("avro-dir-" + System.nanoTime());
    for (int part = 0; part < 3; part++) {
      spark.sql(rows(part)).write().mode("append").partitionBy("cat").format("avro")
          .save(dir.toUri().toString());
    }
    Map<String, Long> sourceCounts =
        expectFrom("avro.`" + dir.toUri() + "`");
    sql("CREATE TABLE floe.db.target (%s) USING iceberg PARTITIONED BY (cat)", SCHEMA);

    List<Row> added = sql("CALL floe.system.add_files('db.target', '`avro`.`%s`')", dir.toUri());

    assertThat(added).containsExactly(RowFactory.create((long) sourceCounts.size(), 3L));
    assertRowsEqualExpected("floe.db.target");
    assertThat(icebergRecordCounts("floe.db.target", "AVRO")).isEqualTo(sourceCounts);
  }

  @Test
  void aFailedAvroMigrationRestoresTheSourceAndLeavesNoIcebergTable() throws IOException {
    createAvroSource("f", true);
    assertAFailedMigrationRestoresTheSource("f", "avro", "Avro", this::assertRowsEqualExpected);
  }

  @Test
  void addFilesOfADirectoryWithANonAvroFileAddsNothing() throws IOException {
    Path dir = sparkWarehouse.resolve("avro-junk-" + System.nanoTime());
    spark.sql(rows(0)).write().format("avro").save(dir.toUri().toString());
    Files.writeString(dir.resolve("junk.avro"), "not an avro file");
    sql("CREATE TABLE floe.db.junk_target (%s) USING iceberg", SCHEMA);

    assertThatThrownBy(
            () -> sql("CALL floe.system.add_files('db.junk_target', '`avro`.`%s`')", dir.toUri()))
        .hasStackTraceContaining("Cannot add file")
        .hasStackTraceContaining("junk.avro: it is not a readable Avro file");

    assertThat(sql("SELECT count(*) FROM floe.db.junk_target.snapshots").get(0).getLong(0))
        .isEqualTo(0L);
    assertThat(sql("SELECT count(*) FROM floe.db.junk_target").get(0).getLong(0)).isEqualTo(0L);
  }

  @Test
  void aTimestampNtzColumnImportsFromSparksLocalTimestampMicros() throws IOException {
    Path dir = sparkWarehouse.resolve("avro-ntz-" + System.nanoTime());
    spark.sql("SELECT 1L AS id, TIMESTAMP_NTZ'2024-01-01 10:00:00' AS ntz, "
            + "named_struct('u', TIMESTAMP_NTZ'1900-01-01 00:00:00.000001') AS s")
        .write().format("avro").save(dir.toUri().toString());
    // what Spark's Avro writer makes of TIMESTAMP_NTZ
    try (Stream<Path> files = Files.list(dir)) {
      Path file =
          files.filter(p -> p.getFileName().toString().endsWith(".avro")).findFirst().orElseThrow();
      try (org.apache.avro.file.DataFileReader<Object> reader =
          new org.apache.avro.file.DataFileReader<>(
              file.toFile(), new org.apache.avro.generic.GenericDatumReader<>())) {
        assertThat(reader.getSchema().toString()).contains("local-timestamp-micros");
      }
    }
    sql("CREATE TABLE floe.db.ntz_target (id BIGINT, ntz TIMESTAMP_NTZ, s STRUCT<u: TIMESTAMP_NTZ>) "
        + "USING iceberg");

    assertThat(sql("CALL floe.system.add_files('db.ntz_target', '`avro`.`%s`')", dir.toUri()))
        .containsExactly(RowFactory.create(1L, 1L));

    assertThat(sql("SELECT id, ntz, s FROM floe.db.ntz_target"))
        .containsExactlyElementsOf(sql("SELECT id, ntz, s FROM avro.`%s`", dir.toUri()));
    assertThat(sql("SELECT CAST(ntz AS STRING), CAST(s.u AS STRING) FROM floe.db.ntz_target"))
        .containsExactly(RowFactory.create("2024-01-01 10:00:00", "1900-01-01 00:00:00.000001"));
  }

  /**
   * Floe reads the TIMESTAMP and TIMESTAMP_NTZ values of imported Avro files as Spark's Avro
   * reader does; the official runtime, in its own JVM in the same session time zone, fails on
   * the same table.
   */
  @Test
  void floeReadsImportedTimestampsWhereTheOfficialRuntimeFails() throws Exception {
    Path dir = sparkWarehouse.resolve("avro-interop-" + System.nanoTime());
    spark.sql(rows(1)).write().format("avro").save(dir.toUri().toString());
    expectFrom("avro.`" + dir.toUri() + "`");
    sql("CREATE TABLE floe.db.interop (%s) USING iceberg", SCHEMA);
    sql("CALL floe.system.add_files('db.interop', '`avro`.`%s`')", dir.toUri());
    String query = "SELECT id, CAST(ts AS STRING), CAST(ntz AS STRING) FROM %s ORDER BY id";

    assertThat(sql(query, "floe.db.interop")).hasSize(40).isEqualTo(sql(query, "expected"));

    Map<String, String> conf = new java.util.LinkedHashMap<>();
    conf.put("spark.sql.catalog.off", "org.apache.iceberg.spark.SparkCatalog");
    conf.put("spark.sql.catalog.off.type", "hadoop");
    conf.put("spark.sql.catalog.off.warehouse", warehouse.resolve("floe").toUri().toString());
    conf.put("spark.sql.session.timeZone", "America/Los_Angeles");
    // its Avro reader knows no local-timestamp-micros
    assertThatThrownBy(
            () -> io.floe.spark.read.OfficialRuntime.printedRows(
                conf, String.format(query, "off.db.interop")))
        .hasMessageContaining("org.apache.iceberg.avro");
  }
}
