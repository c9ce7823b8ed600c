package io.floe.spark.read;

import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Parquet files Spark wrote with {@code TIMESTAMP_MILLIS} timestamps, beside files with {@code
 * TIMESTAMP_MICROS}, imported into Floe tables the way {@code add_files} imports them (with the
 * column metrics of Iceberg's {@code ParquetUtil.fileMetrics}, which reads millisecond bounds as
 * microseconds) and without column metrics. Filtered reads and MIN/MAX/COUNT must equal Spark's own
 * Parquet row reader over the same files (issue 32).
 */
class ImportedTimestampUnitsTest extends SparkTestBase {
  private static final int ROWS = 4000;
  // 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z
  private static final long FIRST_MILLIS = -62135596800000L;
  private static final long LAST_MILLIS = 253402300799000L;
  private static final long STEP = (LAST_MILLIS - FIRST_MILLIS) / (ROWS - 1);

  private static final List<String> BOTH_UNITS = List.of("TIMESTAMP_MILLIS", "TIMESTAMP_MICROS");

  private static Path files;
  private static final Map<String, List<List<Long>>> ORACLE_IDS = new HashMap<>();

  @BeforeAll
  static void writeFiles() throws IOException {
    ORACLE_IDS.clear();
    spark.conf().set("spark.sql.session.timeZone", "UTC");
    spark.conf().set("spark.sql.parquet.enableVectorizedReader", "false");
    spark.conf().set("spark.sql.parquet.datetimeRebaseModeInWrite", "CORRECTED");
    spark.conf().set("spark.sql.parquet.datetimeRebaseModeInRead", "CORRECTED");
    files = Files.createTempDirectory("floe-ts-units");
    write("TIMESTAMP_MILLIS", 0);
    write("TIMESTAMP_MICROS", ROWS);
    spark.conf().unset("spark.sql.parquet.outputTimestampType");
    spark
        .read()
        .parquet(
            files.resolve("TIMESTAMP_MILLIS").toString(),
            files.resolve("TIMESTAMP_MICROS").toString())
        .createOrReplaceTempView("oracle");
    spark
        .read()
        .parquet(files.resolve("TIMESTAMP_MILLIS").toString())
        .createOrReplaceTempView("oracle_millis");

    sql("CREATE NAMESPACE IF NOT EXISTS floe.imported");
    register("with_metrics", true, null, BOTH_UNITS);
    register("without_metrics", false, null, BOTH_UNITS);
    register("ignoring_ts", true, "ts", BOTH_UNITS);
    register("millis_with_metrics", true, null, List.of("TIMESTAMP_MILLIS"));
    register("millis_without_metrics", false, null, List.of("TIMESTAMP_MILLIS"));
  }

  @AfterAll
  static void deleteFiles() throws IOException {
    deleteRecursively(files);
  }

  /** One file of ROWS rows in several row groups, timestamps rising with id from year 1 to 9999. */
  private static void write(String outputType, int firstId) {
    spark.conf().set("spark.sql.parquet.outputTimestampType", outputType);
    spark
        .range(firstId, firstId + ROWS)
        .selectExpr(
            "id",
            String.format(
                "timestamp_millis(%dL + (id - %d) * %dL) AS ts", FIRST_MILLIS, firstId, STEP))
        .coalesce(1)
        .write()
        .option("parquet.block.size", "8192")
        .option("parquet.page.size", "1024")
        .mode(SaveMode.Overwrite)
        .parquet(files.resolve(outputType).toString());
  }

  private static void register(
      String name, boolean withMetrics, String ignoredColumns, List<String> dirs)
      throws IOException {
    String table = "imported." + name;
    sql("CREATE TABLE floe.%s (id BIGINT, ts TIMESTAMP) USING iceberg", table);
    Table iceberg = icebergTable(spark, table);
    NameMapping mapping = MappingUtil.create(iceberg.schema());
    var properties =
        iceberg
            .updateProperties()
            .set(TableProperties.DEFAULT_NAME_MAPPING, NameMappingParser.toJson(mapping));
    if (ignoredColumns != null) {
      properties.set("read.metrics.ignore-columns", ignoredColumns);
    }
    properties.commit();
    AppendFiles append = iceberg.newAppend();
    for (Path file : parquetFiles(dirs)) {
      InputFile input = iceberg.io().newInputFile(file.toUri().toString());
      DataFiles.Builder builder =
          DataFiles.builder(iceberg.spec())
              .withPath(input.location())
              .withFormat(FileFormat.PARQUET)
              .withFileSizeInBytes(input.getLength());
      if (withMetrics) {
        builder.withMetrics(
            ParquetUtil.fileMetrics(input, MetricsConfig.forTable(iceberg), mapping));
      } else {
        builder.withRecordCount(ROWS);
      }
      DataFile dataFile = builder.build();
      append.appendFile(dataFile);
    }
    append.commit();
  }

  private static List<Path> parquetFiles(List<String> dirs) throws IOException {
    List<Path> found = new ArrayList<>();
    for (String dir : dirs) {
      try (Stream<Path> listed = Files.list(files.resolve(dir))) {
        listed.filter(p -> p.getFileName().toString().endsWith(".parquet")).forEach(found::add);
      }
    }
    assertThat(found).hasSameSizeAs(dirs);
    for (Path file : found) {
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file.toUri());
      try (ParquetFileReader reader =
          ParquetFileReader.open(HadoopInputFile.fromPath(path, new Configuration()))) {
        ParquetMetadata footer = reader.getFooter();
        assertThat(footer.getBlocks()).as("row groups of %s", file).hasSizeGreaterThan(4);
        String unit = file.getParent().getFileName().toString().replace("TIMESTAMP_", "");
        assertThat(footer.getFileMetaData().getSchema().getType("ts").getLogicalTypeAnnotation())
            .hasToString("TIMESTAMP(" + unit + ",true)");
      }
    }
    return found;
  }

  /** Filters on both sides of and across row-group boundaries, ranges and single values. */
  private static List<String> filters() {
    List<String> filters = new ArrayList<>();
    filters.add("ts >= TIMESTAMP '2015-06-01 00:00:00' AND ts < TIMESTAMP '2016-01-01 00:00:00'");
    filters.add("ts < TIMESTAMP '0100-01-01 00:00:00'");
    filters.add("ts >= TIMESTAMP '9000-01-01 00:00:00'");
    filters.add("ts > TIMESTAMP '1970-01-01 00:00:00'");
    filters.add("NOT (ts <= TIMESTAMP '5000-01-01 00:00:00')");
    for (int row = 0; row < ROWS; row += 470) {
      long at = FIRST_MILLIS + row * STEP;
      filters.add(
          String.format(
              "ts BETWEEN timestamp_millis(%dL) AND timestamp_millis(%dL)",
              at - 60 * STEP, at + 60 * STEP));
      filters.add(String.format("ts = timestamp_millis(%dL)", at));
      filters.add(
          String.format("ts IN (timestamp_millis(%dL), timestamp_millis(%dL))", at, at + STEP));
    }
    return filters;
  }

  /**
   * The ids each of {@link #filters()} selects from {@code from}, in the filters' order, each
   * list sorted. One query (a UNION ALL of one filtered scan per filter, each row tagged with its
   * filter's index) runs one job instead of one per filter; each branch is its own scan with its
   * own pushed filter, so every filter still prunes files and row groups on its own.
   */
  private static List<List<Long>> idsPerFilter(String from) {
    List<String> filters = filters();
    List<String> branches = new ArrayList<>();
    for (int i = 0; i < filters.size(); i += 1) {
      branches.add("SELECT " + i + " AS filter, id FROM " + from + " WHERE " + filters.get(i));
    }
    List<List<Long>> ids = new ArrayList<>();
    filters.forEach(filter -> ids.add(new ArrayList<>()));
    for (Row row : spark.sql(String.join(" UNION ALL ", branches)).collectAsList()) {
      ids.get(row.getInt(0)).add(row.getLong(1));
    }
    ids.forEach(Collections::sort);
    return ids;
  }

  /** Spark's ids per filter over an oracle view, computed once: every test only reads them. */
  private static List<List<Long>> oracleIds(String oracle) {
    return ORACLE_IDS.computeIfAbsent(oracle, ImportedTimestampUnitsTest::idsPerFilter);
  }

  private static void assertFilteredReadsMatchSpark(String from, String oracle) {
    List<String> filters = filters();
    List<List<Long>> read = idsPerFilter(from);
    List<List<Long>> expected = oracleIds(oracle);
    for (int i = 0; i < filters.size(); i += 1) {
      assertThat(read.get(i)).as("%s WHERE %s", from, filters.get(i)).isEqualTo(expected.get(i));
    }
  }

  private static void assertFilteredReadsMatchSpark(String from) {
    assertFilteredReadsMatchSpark(from, "oracle");
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void filteredReadsOfFilesWithoutMetricsMatchSpark(boolean vectorized) {
    spark.conf().set("spark.floe.read.vectorization-enabled", String.valueOf(vectorized));
    try {
      assertFilteredReadsMatchSpark("floe.imported.without_metrics");
    } finally {
      spark.conf().unset("spark.floe.read.vectorization-enabled");
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void readOptionIgnoringMetricsOfTsFixesFilteredReadsOfFilesWithWrongBounds(boolean vectorized) {
    spark.conf().set("spark.floe.read.vectorization-enabled", String.valueOf(vectorized));
    try {
      assertFilteredReadsMatchSpark(
          "floe.imported.with_metrics WITH ('ignore-metrics-columns' = 'ts')");
    } finally {
      spark.conf().unset("spark.floe.read.vectorization-enabled");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"with_metrics", "ignoring_ts"})
  void tablePropertyOrSessionConfIgnoringMetricsFixesFilteredReads(String table) {
    if (table.equals("with_metrics")) {
      spark.conf().set("spark.floe.read.ignore-metrics-columns", "id, TS");
    }
    try {
      assertFilteredReadsMatchSpark("floe.imported." + table);
    } finally {
      spark.conf().unset("spark.floe.read.ignore-metrics-columns");
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "with_metrics:oracle",
        "without_metrics:oracle",
        "ignoring_ts:oracle",
        "millis_with_metrics:oracle_millis",
        "millis_without_metrics:oracle_millis"
      })
  void minMaxAndCountMatchSpark(String tableAndOracle) {
    String table = "floe.imported." + tableAndOracle.split(":")[0];
    String oracle = tableAndOracle.split(":")[1];
    String aggregates = "SELECT min(ts), max(ts), count(*), count(ts), min(id), max(id) FROM %s";
    assertThat(sql(aggregates, table)).isEqualTo(sql(aggregates, oracle));
    String filtered = aggregates + " WHERE ts >= TIMESTAMP '2015-06-01 00:00:00'";
    assertThat(sql(filtered, table + " WITH ('ignore-metrics-columns' = 'ts')"))
        .isEqualTo(sql(filtered, oracle));
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void filteredReadsOfMillisFilesWithoutMetricsMatchSpark(boolean vectorized) {
    spark.conf().set("spark.floe.read.vectorization-enabled", String.valueOf(vectorized));
    try {
      assertFilteredReadsMatchSpark("floe.imported.millis_without_metrics", "oracle_millis");
    } finally {
      spark.conf().unset("spark.floe.read.vectorization-enabled");
    }
  }

  @Test
  void minMaxOfTimestampsComeFromMetadataOnlyWhileFloeAddedEveryFile() throws IOException {
    sql("CREATE TABLE floe.imported.written (id BIGINT, ts TIMESTAMP) USING iceberg");
    sql(
        "INSERT INTO floe.imported.written"
            + " SELECT id, timestamp_millis(%dL + id * %dL) FROM range(0, %d)",
        FIRST_MILLIS, STEP, ROWS);
    String aggregates = "SELECT min(ts), max(ts), count(*) FROM floe.imported.written";
    Dataset<Row> written = spark.sql(aggregates);
    List<Row> expected = sql("SELECT min(ts), max(ts), count(*) FROM oracle_millis");
    assertThat(written.collectAsList()).isEqualTo(expected);
    assertThat(ScanPlans.nodeNames(written)).doesNotContain("BatchScanExec");

    Table iceberg = icebergTable(spark, "imported.written");
    iceberg
        .updateProperties()
        .set(
            TableProperties.DEFAULT_NAME_MAPPING,
            NameMappingParser.toJson(MappingUtil.create(iceberg.schema())))
        .commit();
    Path millisFile = parquetFiles(List.of("TIMESTAMP_MILLIS")).get(0);
    InputFile input = iceberg.io().newInputFile(millisFile.toUri().toString());
    iceberg
        .newAppend()
        .appendFile(
            DataFiles.builder(iceberg.spec())
                .withPath(input.location())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(input.getLength())
                .withMetrics(
                    ParquetUtil.fileMetrics(
                        input,
                        MetricsConfig.forTable(iceberg),
                        MappingUtil.create(iceberg.schema())))
                .build())
        .commit();
    Dataset<Row> imported = spark.sql(aggregates);
    Row both = expected.get(0);
    assertThat(imported.collectAsList())
        .containsExactly(RowFactory.create(both.get(0), both.get(1), 2L * ROWS));
    assertThat(ScanPlans.nodeNames(imported)).contains("BatchScanExec");
  }

  @Test
  void minMaxOfTimestampsComeFromMetadataForTheOfficialRuntimesWrites() throws IOException {
    sql("CREATE TABLE floe.imported.official (id BIGINT, ts TIMESTAMP) USING iceberg");
    Table iceberg = icebergTable(spark, "imported.official");
    NameMapping mapping = MappingUtil.create(iceberg.schema());
    iceberg.updateProperties().set(TableProperties.DEFAULT_NAME_MAPPING, NameMappingParser.toJson(mapping)).commit();
    // a microsecond file committed as the official runtime's Spark writes commit: with spark.app.id
    Path microsFile = parquetFiles(List.of("TIMESTAMP_MICROS")).get(0);
    InputFile input = iceberg.io().newInputFile(microsFile.toUri().toString());
    iceberg
        .newAppend()
        .appendFile(
            DataFiles.builder(iceberg.spec())
                .withPath(input.location())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(input.getLength())
                .withMetrics(ParquetUtil.fileMetrics(input, MetricsConfig.forTable(iceberg), mapping))
                .build())
        .set("spark.app.id", "local-1")
        .commit();

    Dataset<Row> aggregates = spark.sql("SELECT min(ts), max(ts), count(*) FROM floe.imported.official");

    assertThat(aggregates.collectAsList())
        .isEqualTo(
            spark.read().parquet(microsFile.toString()).selectExpr("min(ts)", "max(ts)", "count(*)").collectAsList());
    assertThat(ScanPlans.nodeNames(aggregates)).doesNotContain("BatchScanExec");
  }
}
