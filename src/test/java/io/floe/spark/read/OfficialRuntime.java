package io.floe.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.ChildJvm;
import io.floe.spark.packaging.SqlApp;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
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

  private static final String ROW_PREFIX = "row> ";

  private OfficialRuntime() {}

  /**
   * Runs statements in the official runtime's JVM, with catalog {@code off} over {@code
   * warehouse}; returns the last statement's rows in the canonical form of {@link
   * ReadTestSupport#canonicalRows}.
   */
  public static List<String> run(Path warehouse, String... statements)
      throws IOException, InterruptedException {
    return printedRows(offCatalog(warehouse), statements).stream()
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
    List<String> command = command(sparkConf);
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
        .filter(line -> line.startsWith(ROW_PREFIX))
        .map(line -> line.substring(ROW_PREFIX.length()))
        .collect(Collectors.toList());
  }

  /**
   * Starts one official-runtime JVM with catalog {@code off} over {@code warehouse} that serves
   * every {@link Session#run} of a test class, so the class pays one JVM and SparkSession start
   * instead of one per check. Its catalog does not cache tables, so each statement sees the
   * commits Floe made since the previous one.
   */
  public static Session session(Path warehouse) throws IOException {
    Map<String, String> conf = offCatalog(warehouse);
    conf.put("spark.sql.catalog.off.cache-enabled", "false");
    List<String> command = command(conf);
    command.add(SqlShell.class.getName());
    return new Session(command);
  }

  private static Map<String, String> offCatalog(Path warehouse) {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.sql.catalog.off", "org.apache.iceberg.spark.SparkCatalog");
    conf.put("spark.sql.catalog.off.type", "hadoop");
    conf.put("spark.sql.catalog.off.warehouse", warehouse.toUri().toString());
    return conf;
  }

  /** The child's {@code java} command up to its main class: Spark and the runtime jar only. */
  private static List<String> command(Map<String, String> sparkConf) {
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
    return command;
  }

  /**
   * One official-runtime JVM running {@link SqlShell}, fed statement by statement; what it carries
   * is the process, its stdin and the lines it has printed. Closing it ends the JVM.
   */
  public static final class Session implements AutoCloseable {
    private static final String END = "end-of-output>";
    private final Process process;
    private final Path log;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private Session(List<String> command) throws IOException {
      this.log = Files.createTempFile("official-runtime-session", ".log");
      ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
      builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
      this.process = builder.start();
      this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      Thread reader = new Thread(this::readOutput, "official-runtime-session-output");
      reader.setDaemon(true);
      reader.start();
    }

    private void readOutput() {
      try (BufferedReader out =
          new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException e) {
        lines.add(SqlShell.ERROR_PREFIX + Base64.getEncoder().encodeToString(
            e.toString().getBytes(StandardCharsets.UTF_8)));
      } finally {
        lines.add(END);
      }
    }

    /** Like {@link OfficialRuntime#run}: every row of the statements, canonical and sorted. */
    public List<String> run(String... statements) throws IOException, InterruptedException {
      return printedRows(statements).stream()
          .map(OfficialRuntime::canonical)
          .sorted()
          .collect(Collectors.toList());
    }

    /** Like {@link OfficialRuntime#printedRows}: every row the statements print, in order. */
    public List<String> printedRows(String... statements) throws IOException, InterruptedException {
      List<String> rows = new ArrayList<>();
      for (String statement : statements) {
        stdin.write(Base64.getEncoder().encodeToString(statement.getBytes(StandardCharsets.UTF_8)));
        stdin.write("\n");
        stdin.flush();
        while (true) {
          String line = lines.poll(300, TimeUnit.SECONDS);
          assertThat(line).as("the official runtime answered %s\n%s", statement, logTail()).isNotNull();
          if (line.startsWith(ROW_PREFIX)) {
            rows.add(line.substring(ROW_PREFIX.length()));
          } else if (line.equals(SqlShell.OK)) {
            break;
          } else if (line.startsWith(SqlShell.ERROR_PREFIX) || line.equals(END)) {
            String trace = line.equals(END) ? "(the JVM ended)" : new String(
                Base64.getDecoder().decode(line.substring(SqlShell.ERROR_PREFIX.length())),
                StandardCharsets.UTF_8);
            throw new AssertionError(
                "the official runtime failed " + statement + ":\n" + trace + "\n" + logTail());
          }
        }
      }
      return rows;
    }

    private String logTail() throws IOException {
      return String.join("\n", tail(Files.readAllLines(log, StandardCharsets.UTF_8)));
    }

    @Override
    public void close() throws IOException, InterruptedException {
      try {
        stdin.close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } finally {
        Files.deleteIfExists(log);
      }
    }
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
