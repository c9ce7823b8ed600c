package io.floe.spark.rowlevel;

import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.packaging.SqlApp;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Interop with the official runtime ({@code iceberg-spark-runtime-4.1_2.13}), run in its own JVM
 * over the same warehouse: it reads Floe's merge-on-read deletes (position deletes on v2, deletion
 * vectors on v3) and sees the same rows as Floe; and Floe reads the deletes the official runtime's
 * own merge-on-read DELETE writes, then deletes more rows of the same files on top of them, which
 * the official runtime reads back.
 */
class OfficialRuntimeInteropTest extends SparkTestBase {
  /** Copied into the build folder by the build (maven-dependency-plugin, execution official-runtime). */
  private static final Path RUNTIME_JAR =
      Paths.get(
          Objects.requireNonNull(
              System.getProperty("floe.officialRuntimeJar"),
              "system property floe.officialRuntimeJar (set by the build) is missing"));

  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.interop_mor");
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void officialRuntimeAndFloeReadEachOthersDeletes(int formatVersion) throws Exception {
    assertThat(RUNTIME_JAR).as("the official runtime jar the build copies").exists();
    MergeOnReadTables t =
        MergeOnReadTables.create(
            spark, "interop_mor.t_v" + formatVersion, formatVersion, true, Map.of());
    sql("DELETE FROM %s WHERE id %% 4 = 0", t.table());
    sql("UPDATE %s SET val = -1 WHERE id %% 4 = 1", t.table());
    String official = "off.interop_mor.t_v" + formatVersion;

    assertThat(official("SELECT id, dep, val FROM " + official))
        .as("the official runtime reads Floe's deletes")
        .isEqualTo(floeRows(t));

    // the official runtime deletes rows of the same data files, then Floe deletes more on top
    official("DELETE FROM " + official + " WHERE id % 4 = 2");
    assertThat(floeRows(t))
        .isEqualTo(
            canonicalRows(
                spark
                    .sql(
                        "SELECT id, dep, CASE WHEN coalesce(id % 4 = 1, false) THEN -1 ELSE val END"
                            + " FROM " + MergeOnReadTables.VIEW
                            + " WHERE NOT coalesce(id % 4 = 0 OR id % 4 = 2, false)")
                    .collectAsList()));
    sql("DELETE FROM %s WHERE id %% 4 = 3", t.table());
    t.assertOneDeleteFilePerDataFile();
    assertThat(official("SELECT id, dep, val FROM " + official)).isEqualTo(floeRows(t));
    assertThat(t.genericRows()).isEqualTo(floeRows(t));
  }

  private static List<String> floeRows(MergeOnReadTables t) {
    return canonicalRows(spark.sql("SELECT id, dep, val FROM " + t.table()).collectAsList());
  }

  /**
   * Runs statements in a JVM of Spark and the official runtime only (no Floe, no other Iceberg
   * jar), with catalog {@code off} over this test's warehouse; returns the last statement's rows in
   * the canonical form of {@link io.floe.spark.read.ReadTestSupport#canonicalRows}.
   */
  static List<String> official(String... statements) throws IOException, InterruptedException {
    List<String> classpath = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      boolean iceberg = entry.contains(File.separator + "iceberg" + File.separator)
          || entry.contains("org" + File.separator + "apache" + File.separator + "iceberg");
      boolean floeMain = entry.endsWith("classes") && !entry.endsWith("test-classes");
      if (!iceberg && !floeMain) {
        classpath.add(entry);
      }
    }
    classpath.add(RUNTIME_JAR.toString());
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-") || argument.startsWith("-XX:+IgnoreUnrecognized")
          || argument.startsWith("-Djdk.reflect") || argument.startsWith("-Dio.netty")) {
        command.add(argument);
      }
    }
    command.add("-Xmx1g");
    command.add("-Dspark.master=local[1]");
    command.add("-Dspark.ui.enabled=false");
    command.add("-Dspark.driver.host=127.0.0.1");
    command.add("-Dspark.sql.shuffle.partitions=2");
    command.add("-Dspark.sql.catalog.off=org.apache.iceberg.spark.SparkCatalog");
    command.add("-Dspark.sql.catalog.off.type=hadoop");
    command.add("-Dspark.sql.catalog.off.warehouse=" + warehouse.toUri());
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classpath));
    command.add(SqlApp.class.getName());
    command.addAll(List.of(statements));
    Path log = Files.createTempFile("official-runtime", ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean finished = process.waitFor(300, TimeUnit.SECONDS);
    if (!finished) {
      process.destroyForcibly();
    }
    List<String> output = Files.readAllLines(log, StandardCharsets.UTF_8);
    Files.delete(log);
    assertThat(finished && process.exitValue() == 0)
        .as("the official runtime's JVM succeeded:\n%s", String.join("\n", tail(output)))
        .isTrue();
    return output.stream()
        .filter(line -> line.startsWith("row> "))
        .map(line -> canonical(line.substring("row> ".length())))
        .sorted()
        .collect(Collectors.toList());
  }

  /** A printed row {@code 1|a|10} in the form {@code [1, a, 10]}, NULL as {@code null}. */
  private static String canonical(String printed) {
    List<Object> values = new ArrayList<>();
    for (String value : printed.split("\\|", -1)) {
      values.add(value.equals("null") ? null : value);
    }
    return values.toString();
  }

  private static List<String> tail(List<String> lines) {
    return lines.subList(Math.max(0, lines.size() - 40), lines.size());
  }
}
