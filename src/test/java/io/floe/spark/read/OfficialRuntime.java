package io.floe.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.ChildJvm;
import io.floe.spark.packaging.SqlApp;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The official runtime ({@code iceberg-spark-runtime-4.1_2.13}) in a JVM of its own, with Spark and
 * that jar only on its classpath (no Floe, no other Iceberg jar) and catalog {@code off} over a
 * test's hadoop warehouse ({@link #run}), or with settings of the test's own ({@link
 * #printedRows}): the one launcher the interop tests share.
 */
public final class OfficialRuntime {
  /** Copied into the build folder by the build (maven-dependency-plugin, execution official-runtime). */
  public static final Path RUNTIME_JAR =
      Paths.get(
          Objects.requireNonNull(
              System.getProperty("floe.officialRuntimeJar"),
              "system property floe.officialRuntimeJar (set by the build) is missing"));

  private OfficialRuntime() {}

  /**
   * Runs statements in the official runtime's JVM, with catalog {@code off} over {@code
   * warehouse}; returns the last statement's rows in the canonical form of {@link
   * ReadTestSupport#canonicalRows}.
   */
  public static List<String> run(Path warehouse, String... statements)
      throws IOException, InterruptedException {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.sql.catalog.off", "org.apache.iceberg.spark.SparkCatalog");
    conf.put("spark.sql.catalog.off.type", "hadoop");
    conf.put("spark.sql.catalog.off.warehouse", warehouse.toUri().toString());
    return printedRows(conf, statements).stream()
        .map(OfficialRuntime::canonical)
        .sorted()
        .collect(Collectors.toList());
  }

  /**
   * Runs statements in the official runtime's JVM with the given Spark settings (catalogs,
   * extensions) on top of a small local master; returns every row it prints, as {@code
   * v1|v2|...}, in the order printed.
   */
  public static List<String> printedRows(Map<String, String> sparkConf, String... statements)
      throws IOException, InterruptedException {
    return printedRows(SqlApp.class, sparkConf, statements);
  }

  /**
   * Runs {@code main} (a class of the tests that uses Spark's API only) in the official runtime's
   * JVM with the given Spark settings and arguments; returns every line it prints after {@code
   * row> }, in the order printed.
   */
  public static List<String> printedRows(
      Class<?> main, Map<String, String> sparkConf, String... arguments)
      throws IOException, InterruptedException {
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
    List<String> command = ChildJvm.javaWithTestFlags();
    command.add("-Xmx1g");
    command.add("-Dspark.master=local[1]");
    command.add("-Dspark.ui.enabled=false");
    command.add("-Dspark.driver.host=127.0.0.1");
    command.add("-Dspark.sql.shuffle.partitions=2");
    sparkConf.forEach((key, value) -> command.add("-D" + key + "=" + value));
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classpath));
    command.add(main.getName());
    command.addAll(List.of(arguments));
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
        .map(line -> line.substring("row> ".length()))
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
