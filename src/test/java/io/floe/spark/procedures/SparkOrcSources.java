package io.floe.spark.procedures;

import io.floe.spark.ChildJvm;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * ORC sources written and read by Spark's own ORC data source, in a JVM of their own. In Floe's test
 * JVM the ORC jar Iceberg is built against ({@code orc-core} 1.9 {@code nohive}) comes before the
 * ORC 2.x Spark ships, so Spark's {@code USING orc} cannot run there; this JVM has Spark's ORC only.
 *
 * <p>For each source ({@code partitioned}: by {@code cat}; {@code flat}: not) it writes, under the
 * folder given: the ORC files in three appends ({@code <source>/}), the rows as Spark's ORC reader
 * returns them, in Parquet ({@code <source>-rows/}), and per file its name, row count, id and
 * {@code ntz} range as Spark counts them ({@code <source>-files/}): the oracle the tests compare
 * with; and {@code fall-back/}, one TIMESTAMP of the hour the zone's clocks go back. The JVM runs in {@link #TIME_ZONE}, so its ORC files spell {@code TIMESTAMP} in that zone.
 */
public final class SparkOrcSources {
  /** The source's columns, in table order. */
  static final String COLUMNS = "id, data, n, d, amount, ts, ntz, s, cat";

  /** The DDL column list of the sources. */
  static final String SCHEMA =
      "id BIGINT, data STRING, n INT, d DATE, amount DECIMAL(10, 2), ts TIMESTAMP, "
          + "ntz TIMESTAMP_NTZ, s STRUCT<t: TIMESTAMP, u: TIMESTAMP_NTZ>, cat STRING";

  /** The time zone of the writer's JVM and session: not UTC, so that a wrong offset shows. */
  static final String TIME_ZONE = "America/Los_Angeles";

  private SparkOrcSources() {}

  /**
   * Starts {@link #main} writing into {@code folder} in a child JVM with Spark's ORC on its
   * classpath, without waiting: a test class starts it before its own session, so that both JVMs
   * start at once; {@link #awaitWriting} waits for it.
   */
  static Process startWriting(Path folder) throws IOException {
    return startWithSparkOrc(SparkOrcSources.class, List.of(folder.toString()), log(folder));
  }

  /** Waits for the JVM {@link #startWriting} started. */
  static void awaitWriting(Process process, Path folder) throws IOException, InterruptedException {
    await(process, SparkOrcSources.class, log(folder));
  }

  private static Path log(Path folder) {
    return folder.resolveSibling(folder.getFileName() + ".log");
  }

  /**
   * Runs {@code main} with {@code arguments} in a child JVM of 768 MiB whose classpath is the test
   * classpath with Spark's ORC instead of Iceberg's nohive ORC, its output to {@code log}, and waits
   * for it (five minutes at most).
   *
   * @throws IllegalStateException if it does not finish in time or exits with another code than 0
   */
  public static void runWithSparkOrc(Class<?> main, List<String> arguments, Path log)
      throws IOException, InterruptedException {
    await(startWithSparkOrc(main, arguments, log), main, log);
  }

  private static Process startWithSparkOrc(Class<?> main, List<String> arguments, Path log)
      throws IOException {
    List<String> command = ChildJvm.javaWithTestFlags();
    command.add("-Xmx768m");
    // Spark's ORC writer spells TIMESTAMP in the JVM's time zone, and names it in the file
    command.add("-Duser.timezone=" + TIME_ZONE);
    command.add("-cp");
    command.add(sparkOrcClasspath());
    command.add(main.getName());
    command.addAll(arguments);
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return builder.start();
  }

  private static void await(Process process, Class<?> main, Path log)
      throws IOException, InterruptedException {
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException(main.getSimpleName() + " did not finish; see " + log);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          main.getSimpleName() + " failed (" + process.exitValue() + "): " + Files.readString(log));
    }
  }

  /** The test classpath with Spark's ORC instead of Iceberg's nohive ORC and its shims. */
  private static String sparkOrcClasspath() {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> entries = new ArrayList<>();
    for (String entry : classpath.split(File.pathSeparator)) {
      String name = Path.of(entry).getFileName().toString();
      if (name.startsWith("orc-core-") && name.contains("nohive")) {
        continue;
      }
      if (name.startsWith("orc-shims-")) {
        // Spark's ORC needs the shims of its own version, which sits beside the one Maven chose
        Path dir = Path.of(entry).getParent().getParent();
        String sparkOrc =
            Arrays.stream(classpath.split(File.pathSeparator))
                .map(e -> Path.of(e).getFileName().toString())
                .filter(n -> n.startsWith("orc-core-") && !n.contains("nohive"))
                .findFirst()
                .orElseThrow();
        String version = sparkOrc.substring("orc-core-".length(), sparkOrc.indexOf("-shaded"));
        entries.add(dir.resolve(version).resolve("orc-shims-" + version + ".jar").toString());
        continue;
      }
      entries.add(entry);
    }
    return entries.stream().collect(Collectors.joining(File.pathSeparator));
  }

  public static void main(String[] args) {
    Path folder = Path.of(args[0]);
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("floe-spark-orc-sources")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.session.timeZone", TIME_ZONE)
            .getOrCreate();
    try {
      for (String source : List.of("partitioned", "flat")) {
        String location = folder.resolve(source).toUri().toString();
        for (int i = 0; i < 3; i++) {
          Dataset<Row> rows =
              spark.sql(
                  String.format(
                      "SELECT id, CASE WHEN id %% 7 = 0 THEN NULL ELSE concat('v', id) END AS data, "
                          + "CAST(id %% 11 AS INT) AS n, "
                          + "date_add(DATE'2024-01-01', CAST(id AS INT)) AS d, "
                          + "CAST(id * 1.25 AS DECIMAL(10, 2)) AS amount, "
                          // through the spring-forward gap of Los Angeles (no 02:00 to 03:00)
                          + "CASE WHEN id %% 6 = 0 THEN NULL ELSE TIMESTAMP'2024-03-10 00:30:00' "
                          + "+ make_interval(0, 0, 0, 0, 0, CAST(id AS INT) * 3, id * 0.000123) END AS ts, "
                          // through the spring-forward gap, which a local time does not have
                          + "CASE WHEN id %% 5 = 0 THEN NULL ELSE TIMESTAMP_NTZ'2024-03-10 01:30:00' "
                          + "+ make_interval(0, 0, 0, 0, 0, CAST(id AS INT), id * 0.000001) END AS ntz, "
                          + "CASE WHEN id %% 9 = 0 THEN NULL ELSE named_struct("
                          + "'t', TIMESTAMP'1969-12-31 16:00:00' + make_interval(0, 0, 0, 0, CAST(id AS INT), 0, 0), "
                          + "'u', TIMESTAMP_NTZ'1969-12-31 23:59:59' + make_interval(0, 0, 0, 0, 0, 0, id * 0.5)) "
                          + "END AS s, "
                          + "CASE WHEN id %% 3 = 0 THEN 'a' WHEN id %% 3 = 1 THEN 'b' END AS cat "
                          + "FROM range(%d, %d, 1, 2)",
                      i * 40, i * 40 + 40));
          if (source.equals("partitioned")) {
            rows.write().mode(SaveMode.Append).partitionBy("cat").orc(location);
          } else {
            rows.write().mode(SaveMode.Append).orc(location);
          }
        }
        spark.read().schema(SCHEMA).orc(location).createOrReplaceTempView("src");
        spark.sql("SELECT " + COLUMNS + " FROM src")
            .write().parquet(folder.resolve(source + "-rows").toUri().toString());
        spark.sql(
                "SELECT input_file_name() AS file, count(*) AS records, min(id) AS min_id, "
                    + "max(id) AS max_id, min(ntz) AS min_ntz, max(ntz) AS max_ntz "
                    + "FROM src GROUP BY input_file_name()")
            .write().parquet(folder.resolve(source + "-files").toUri().toString());
      }
      // one instant of the hour Los Angeles' clocks go back: its local time stands for two
      spark.sql("SELECT 1L AS id, TIMESTAMP'2024-11-03 09:30:00 UTC' AS ts")
          .write().orc(folder.resolve("fall-back").toUri().toString());
    } finally {
      spark.stop();
    }
  }
}
