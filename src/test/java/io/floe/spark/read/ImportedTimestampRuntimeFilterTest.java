package io.floe.spark.read;

import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.exec.ReaderMetrics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
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
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A timestamp column of files imported the way {@code add_files} imports them, stored as {@code
 * TIMESTAMP(MILLIS)}: Iceberg's statistics conversion gives them bounds in the wrong unit, so the
 * scan never offers that column for runtime filtering (a join on it would otherwise skip files
 * holding matching rows); other columns of the same files still are offered.
 */
class ImportedTimestampRuntimeFilterTest extends SparkTestBase {
  private static Path files;

  @BeforeAll
  static void importMillisFiles() throws IOException {
    spark.conf().set(FloeScanBuilder.DATA_COLUMN_RUNTIME_FILTERS, "true");
    spark.conf().set("spark.sql.session.timeZone", "UTC");
    files = Files.createTempDirectory("floe-rtf-millis");
    spark.conf().set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MILLIS");
    for (int file = 0; file < 4; file++) {
      spark
          .range(file * 100, (file + 1) * 100)
          .selectExpr("id", "timestamp_millis(1700000000000 + id * 60000) AS ts")
          .coalesce(1)
          .write()
          .mode(SaveMode.Overwrite)
          .parquet(files.resolve("part" + file).toString());
    }
    spark.conf().unset("spark.sql.parquet.outputTimestampType");
    spark.read().parquet(files.toString() + "/part*").createOrReplaceTempView("millis_oracle");

    sql("CREATE NAMESPACE IF NOT EXISTS floe.rtfimp");
    sql("CREATE TABLE floe.rtfimp.events (id BIGINT, ts TIMESTAMP) USING iceberg");
    Table iceberg = icebergTable(spark, "rtfimp.events");
    NameMapping mapping = MappingUtil.create(iceberg.schema());
    iceberg
        .updateProperties()
        .set(TableProperties.DEFAULT_NAME_MAPPING, NameMappingParser.toJson(mapping))
        .commit();
    AppendFiles append = iceberg.newAppend();
    try (Stream<Path> listed = Files.walk(files)) {
      for (Path path : listed.filter(p -> p.toString().endsWith(".parquet")).toList()) {
        InputFile input = iceberg.io().newInputFile(path.toUri().toString());
        append.appendFile(
            DataFiles.builder(iceberg.spec())
                .withPath(input.location())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(input.getLength())
                .withMetrics(ParquetUtil.fileMetrics(input, MetricsConfig.forTable(iceberg), mapping))
                .build());
      }
    }
    append.commit();

    String dim =
        "SELECT timestamp_millis(1700000000000 + id * 60000) AS ts, id,"
            + " CASE WHEN id IN (150, 320) THEN 'hot' ELSE 'cold' END AS tag FROM range(0, 400, 10)";
    sql("CREATE TABLE floe.rtfimp.dim USING iceberg AS " + dim);
    spark.sql(dim).createOrReplaceTempView("millis_dim");
  }

  @AfterAll
  static void deleteFiles() throws IOException {
    spark.conf().unset("spark.sql.session.timeZone");
    deleteRecursively(files);
  }

  @Test
  void aTimestampColumnWithBoundsInAnotherUnitIsNotOfferedButOtherColumnsAre() {
    Dataset<Row> scan = spark.sql("SELECT id, ts FROM floe.rtfimp.events");
    FloeScan floe = (FloeScan) ScanPlans.floeScanNodes(scan).get(0).scan();
    Set<String> offered = new HashSet<>();
    for (NamedReference reference : floe.filterAttributes()) {
      offered.add(String.join(".", reference.fieldNames()));
    }

    assertThat(offered).containsExactly("id");
  }

  @Test
  void aJoinOnTheImportedTimestampFindsEveryMatchingRow() {
    String query =
        "SELECT e.id, e.ts FROM %s e JOIN %s d ON e.ts = d.ts WHERE d.tag = 'hot'";
    List<Row> rows = sql(query, "floe.rtfimp.events", "floe.rtfimp.dim");

    assertThat(rows)
        .hasSize(2)
        .containsExactlyInAnyOrderElementsOf(sql(query, "millis_oracle", "millis_dim"));
  }

  @Test
  void aJoinOnAnotherColumnOfTheImportedFilesStillPrunes() {
    String query =
        "SELECT e.id, e.ts FROM %s e JOIN %s d ON e.id = d.id WHERE d.tag = 'hot'";
    Dataset<Row> df = spark.sql(String.format(query, "floe.rtfimp.events", "floe.rtfimp.dim"));

    assertThat(df.collectAsList())
        .hasSize(2)
        .containsExactlyInAnyOrderElementsOf(sql(query, "millis_oracle", "millis_dim"));
    // ids 150 and 320 lie in two of the four imported files
    BatchScanExec events =
        ScanPlans.floeScanNodes(df).stream()
            .filter(node -> ((FloeScan) node.scan()).tableName().endsWith("rtfimp.events"))
            .findFirst()
            .orElseThrow();
    assertThat(ScanPlans.metrics(events).get(ReaderMetrics.FILES_READ)).isEqualTo(2);
  }
}
