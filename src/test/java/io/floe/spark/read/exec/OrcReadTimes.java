package io.floe.spark.read.exec;

import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeBatch;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.junit.jupiter.api.Test;

/**
 * A small measurement, not part of the suite (its name matches no Surefire pattern; run it with
 * {@code -Dtest=OrcReadTimes}): an aggregate over every column of an ORC table of {@value #ROWS}
 * rows, read by Floe's columnar ORC path, by Floe's row path (both in this JVM, alternating, after
 * a warm-up) and by Spark's own vectorized ORC reader over the same files (in a child JVM, see
 * {@link SparkOrcReads}, after its first read of the files). It prints the times in milliseconds
 * with the machine's load; it asserts only that the three read the same answer. No timestamp
 * column: Spark's ORC reader cannot read Iceberg's.
 */
class OrcReadTimes extends SparkTestBase {
  private static final int ROWS = 500_000;
  private static final int RUNS = 5;
  private static final String AGGREGATE =
      "count(*);sum(id);sum(n);sum(d);max(s);min(dt);sum(amount);count(flag)";

  @Test
  void timeColumnarRowAndSparkOrcReads() throws IOException, InterruptedException {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.orct");
    sql(
        "CREATE TABLE floe.orct.t (id BIGINT, n INT, d DOUBLE, s STRING, dt DATE,"
            + " amount DECIMAL(10,2), flag BOOLEAN) USING iceberg"
            + " TBLPROPERTIES ('write.format.default' = 'orc')");
    sql(
        "INSERT INTO floe.orct.t SELECT id, CAST(id %% 1000 AS INT), id * 0.5D,"
            + " IF(id %% 10 = 0, NULL, concat('value-', id %% 5000)),"
            + " date_add(DATE'2020-01-01', CAST(id %% 2000 AS INT)),"
            + " CAST(id %% 100000 / 100.0 AS DECIMAL(10,2)),"
            + " IF(id %% 3 = 0, NULL, id %% 2 = 0) FROM range(%d)",
        ROWS);
    List<String> files = new ArrayList<>();
    for (DataFile file : dataFiles(icebergTable(spark, "orct.t"))) {
      files.add(file.location());
    }
    String query = "SELECT " + AGGREGATE.replace(';', ',') + " FROM floe.orct.t";
    List<Long> columnar = new ArrayList<>();
    List<Long> rows = new ArrayList<>();
    List<String> answer = null;
    for (int run = 0; run <= RUNS; run++) {
      for (boolean vectorized : List.of(true, false)) {
        spark.conf().set(FloeBatch.VECTORIZATION_CONF, String.valueOf(vectorized));
        long start = System.nanoTime();
        List<String> result = canonicalRows(sql(query));
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (answer == null) {
          answer = result;
        }
        assertThat(result).isEqualTo(answer);
        if (run > 0) {
          (vectorized ? columnar : rows).add(ms);
        }
      }
    }
    spark.conf().unset(FloeBatch.VECTORIZATION_CONF);

    Path out = Files.createTempDirectory("floe-orc-times").resolve("spark");
    String ddl = spark.table("floe.orct.t").schema().toDDL();
    SparkOrcReads.run(files, ddl, out, RUNS, AGGREGATE);
    List<String> sparkTimes = Files.readAllLines(out.resolve("times.txt"));
    spark.read().parquet(out.resolve("rows").toString()).createOrReplaceTempView("spark_orc_t");
    assertThat(canonicalRows(sql("SELECT " + AGGREGATE.replace(';', ',') + " FROM spark_orc_t")))
        .isEqualTo(answer);
    System.out.printf(
        "ORC read times (ms), %d rows in %d files, load %.1f: floe columnar %s, floe rows %s,"
            + " spark orc (child JVM) %s%n",
        ROWS, files.size(), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
        columnar, rows, sparkTimes);
  }
}
