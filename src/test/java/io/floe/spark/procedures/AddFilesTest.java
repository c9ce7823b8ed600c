package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.commit.Committer;
import io.floe.spark.read.ReadTestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code add_files} from Parquet directories (flat and partitioned) and from a Parquet table of
 * the session catalog: the rows afterwards equal the source's (read by Spark's own Parquet
 * reader), the data files carry footer metrics matched by name, duplicates are refused, and bad
 * input changes nothing.
 */
class AddFilesTest extends ProcedureTestBase {
  private static final String TABLE = "db.imported";

  private Path source;

  @BeforeEach
  void createSource() throws IOException {
    source = Files.createTempDirectory("floe-add-files");
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
  }

  @AfterEach
  void dropSource() throws IOException {
    sql("DROP TABLE IF EXISTS spark_catalog.default.parquet_src");
    deleteRecursively(source);
  }

  /** Writes rows (id, data, cat) with Spark's own Parquet writer, partitioned by cat or not. */
  private Dataset<Row> writeSource(boolean partitioned) {
    Dataset<Row> rows =
        spark.sql(
            "SELECT id, CASE WHEN id % 7 = 0 THEN NULL ELSE concat('v', CAST(id AS STRING)) END "
                + "AS data, CASE WHEN id % 3 = 0 THEN 'a' ELSE 'b' END AS cat FROM range(0, 300)");
    if (partitioned) {
      rows.repartition(3).write().partitionBy("cat").parquet(source.resolve("dir").toString());
    } else {
      rows.repartition(3).write().parquet(source.resolve("dir").toString());
    }
    Dataset<Row> written = spark.read().parquet(source.resolve("dir").toString())
        .selectExpr("id", "data", "cat");
    spark.createDataFrame(written.collectAsList(), written.schema())
        .createOrReplaceTempView("expected");
    return written;
  }

  private void assertRowsEqual(String view) {
    String table = CATALOG + "." + TABLE;
    assertThat(sql("SELECT id, data, cat FROM %s EXCEPT ALL SELECT * FROM %s", table, view)).isEmpty();
    assertThat(sql("SELECT * FROM %s EXCEPT ALL SELECT id, data, cat FROM %s", view, table)).isEmpty();
  }

  private String directory() {
    return "`parquet`.`" + source.resolve("dir").toUri() + "`";
  }

  @Test
  void addsAParquetDirectoryWithFooterMetricsAndTheSameRows() {
    sql("CREATE TABLE %s.%s (id BIGINT, data STRING, cat STRING) USING iceberg", CATALOG, TABLE);
    writeSource(false);

    Dataset<Row> result = call("add_files(table => '%s', source_table => '%s')", TABLE, directory());

    assertSchema(
        result.schema(),
        column("added_files_count", DataTypes.LongType, false),
        column("changed_partition_count", DataTypes.LongType, true));
    assertThat(result.collectAsList()).containsExactly(row(3L, 1L));
    Table table = icebergTable(TABLE);
    assertThat(table.properties()).containsKey(TableProperties.DEFAULT_NAME_MAPPING);
    assertThat(table.currentSnapshot().summary()).containsKey(Committer.COMMIT_ID_KEY);
    List<DataFile> files = new java.util.ArrayList<>();
    try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(files).hasSize(3);
    assertThat(files.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(300L);
    long minId = Long.MAX_VALUE;
    for (DataFile file : files) {
      assertThat(file.location()).startsWith(source.resolve("dir").toUri().toString().replace("file:///", "file:/"));
      assertThat(file.valueCounts()).containsKey(1);
      assertThat(file.nullValueCounts().get(2)).isGreaterThan(0L);
      minId = Math.min(minId, Conversions.<Long>fromByteBuffer(Types.LongType.get(), file.lowerBounds().get(1)));
    }
    assertThat(minId).isEqualTo(0L);
    assertRowsEqual("expected");
    // a filter that prunes by the imported metrics keeps Spark's answer
    assertThat(sql("SELECT count(*) FROM %s.%s WHERE id >= 290", CATALOG, TABLE).get(0).getLong(0))
        .isEqualTo(sql("SELECT count(*) FROM expected WHERE id >= 290").get(0).getLong(0));
  }

  @Test
  void millisecondTimestampsGetNoBoundsAndFiltersKeepSparksAnswer() {
    sql("CREATE TABLE %s.%s (id BIGINT, ts TIMESTAMP) USING iceberg", CATALOG, TABLE);
    String previous = spark.conf().get("spark.sql.parquet.outputTimestampType");
    spark.conf().set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MILLIS");
    try {
      spark.sql("SELECT id, timestamp_seconds(1700000000 + id * 3600) AS ts FROM range(0, 50)")
          .coalesce(1).write().parquet(source.resolve("dir").toString());
    } finally {
      spark.conf().set("spark.sql.parquet.outputTimestampType", previous);
    }
    spark.read().parquet(source.resolve("dir").toString()).createOrReplaceTempView("ts_source");

    call("add_files('%s', '%s')", TABLE, directory()).collectAsList();

    Table table = icebergTable(TABLE);
    try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(
          task -> {
            assertThat(task.file().lowerBounds()).containsKey(1).doesNotContainKey(2);
            assertThat(task.file().upperBounds()).doesNotContainKey(2);
          });
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    String filter = "ts >= TIMESTAMP '2023-11-16 00:00:00'";
    assertThat(sql("SELECT count(*) FROM %s.%s WHERE %s", CATALOG, TABLE, filter).get(0).getLong(0))
        .isEqualTo(sql("SELECT count(*) FROM ts_source WHERE %s", filter).get(0).getLong(0))
        .isGreaterThan(0L);
  }

  @Test
  void duplicatesAreRefusedNamingAFileUnlessAllowed() {
    sql("CREATE TABLE %s.%s (id BIGINT, data STRING, cat STRING) USING iceberg", CATALOG, TABLE);
    writeSource(false);
    call("add_files('%s', '%s')", TABLE, directory()).collectAsList();
    String metadata =
        ((HasTableOperations) icebergTable(TABLE)).operations().current().metadataFileLocation();

    assertThatThrownBy(() -> call("add_files('%s', '%s')", TABLE, directory()).collectAsList())
        .hasMessageStartingWith(
            "Cannot call floe.system.add_files: 3 of the files are already in table "
                + "floe.db.imported, such as [")
        .hasMessageContaining(source.resolve("dir").getFileName().toString() + "/part-")
        .hasMessageEndingWith("Use check_duplicate_files => false to add them anyway");
    assertThat(((HasTableOperations) icebergTable(TABLE)).operations().current().metadataFileLocation())
        .isEqualTo(metadata);

    call("add_files(table => '%s', source_table => '%s', check_duplicate_files => false)",
            TABLE, directory())
        .collectAsList();
    spark.sql("SELECT * FROM expected UNION ALL SELECT * FROM expected")
        .createOrReplaceTempView("expected_twice");
    assertRowsEqual("expected_twice");
  }

  @Test
  void partitionedDirectoryWithAPartitionFilterAddsThatPartitionOnly() {
    sql("CREATE TABLE %s.%s (id BIGINT, data STRING, cat STRING) USING iceberg PARTITIONED BY (cat)",
        CATALOG, TABLE);
    writeSource(true);

    List<Row> result =
        call("add_files(table => '%s', source_table => '%s', partition_filter => map('cat', 'a'), "
                + "parallelism => 2)", TABLE, directory())
            .collectAsList();

    assertThat(result.get(0).getLong(1)).isEqualTo(1L);
    List<DataFile> files = ReadTestSupport.dataFiles(icebergTable(TABLE));
    assertThat(files).isNotEmpty();
    assertThat(result.get(0).getLong(0)).isEqualTo(files.size());
    assertThat(files).allMatch(file -> "a".equals(file.partition().get(0, CharSequence.class).toString()));
    spark.sql("SELECT * FROM expected WHERE cat = 'a'").createOrReplaceTempView("expected_a");
    assertRowsEqual("expected_a");
    // identity partition values come from the directories, not the files, and prune correctly
    assertThat(sql("SELECT count(*) FROM %s.%s WHERE cat = 'b'", CATALOG, TABLE).get(0).getLong(0))
        .isEqualTo(0L);
  }

  @Test
  void addsASessionCatalogParquetTable() {
    sql("CREATE TABLE %s.%s (id BIGINT, data STRING, cat STRING) USING iceberg PARTITIONED BY (cat)",
        CATALOG, TABLE);
    writeSource(true);
    sql("CREATE TABLE spark_catalog.default.parquet_src (id BIGINT, data STRING, cat STRING) "
        + "USING parquet PARTITIONED BY (cat) LOCATION '%s'", source.resolve("dir").toUri());
    sql("MSCK REPAIR TABLE spark_catalog.default.parquet_src");

    List<Row> result = call("add_files('%s', 'default.parquet_src')", TABLE).collectAsList();

    assertThat(result.get(0).getLong(1)).isEqualTo(2L);
    assertRowsEqual("expected");
  }

  @Test
  void badSourcesFailNamingThemAndAddNothing() {
    sql("CREATE TABLE %s.%s (id BIGINT, data STRING, cat STRING) USING iceberg", CATALOG, TABLE);
    writeSource(true);
    String metadata =
        ((HasTableOperations) icebergTable(TABLE)).operations().current().metadataFileLocation();

    assertThatThrownBy(() -> call("add_files('%s', '%s')", TABLE, directory()).collectAsList())
        .hasMessage(
            "Cannot call floe.system.add_files: argument 'source_table' is partitioned by [cat]: "
                + "cannot add partitioned files to an unpartitioned table");
    sql("CREATE TABLE spark_catalog.default.csv_src (id BIGINT) USING csv");
    try {
      assertThatThrownBy(
              () -> call("add_files('%s', 'default.csv_src')", TABLE).collectAsList())
          .hasMessage(
              "Cannot call floe.system.add_files: argument 'source_table' is a csv table; "
                  + "Floe imports Parquet, ORC and Avro tables only: default.csv_src");
    } finally {
      sql("DROP TABLE spark_catalog.default.csv_src");
    }
    assertThatThrownBy(
            () -> call("add_files('%s', '`orc`.`%s`')", TABLE, source.resolve("missing").toUri())
                .collectAsList())
        .hasMessageStartingWith(
            "Cannot call floe.system.add_files: argument 'source_table' names a directory that "
                + "does not exist: ");
    assertThatThrownBy(
            () -> call("add_files('%s', '`parquet`.`%s`')", TABLE, source.resolve("missing").toUri())
                .collectAsList())
        .hasMessageStartingWith(
            "Cannot call floe.system.add_files: argument 'source_table' names a directory that "
                + "does not exist: ");
    assertThatThrownBy(
            () -> call("add_files('%s', 'default.no_such_table')", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.add_files: argument 'source_table' names no table of the "
                + "session catalog: default.no_such_table");
    assertThatThrownBy(
            () -> call("add_files(table => '%s', source_table => '%s', parallelism => 0)",
                TABLE, directory()).collectAsList())
        .hasMessage("Cannot call floe.system.add_files: argument 'parallelism' must be at least 1, "
            + "got 0");
    assertThat(((HasTableOperations) icebergTable(TABLE)).operations().current().metadataFileLocation())
        .isEqualTo(metadata);
    assertThat(icebergTable(TABLE).currentSnapshot()).isNull();
    assertThat(files(source)).isNotEmpty();
  }

  private static List<Path> files(Path root) {
    try (java.util.stream.Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).collect(Collectors.toList());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
