package io.floe.spark.packaging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Spark 4.1 installation made of Maven jars, the way a cluster has one: a {@code SPARK_HOME}
 * whose {@code jars} folder holds Spark and exactly the libraries Spark itself depends on, and
 * nothing of Floe. The jar list is what Maven resolves for {@code spark-sql_2.13} alone, from a
 * throwaway POM, so a library Floe needs is on this classpath only if Spark ships it.
 *
 * <p>Also starts the JVMs of a Spark installation: {@code SparkSubmit}, a standalone Master and
 * Worker. Every child JVM gets Spark's module flags and the environment Spark's scripts would set.
 */
final class SparkDistribution {
  private final Path home;
  private final List<Path> jars;

  private SparkDistribution(Path home, List<Path> jars) {
    this.home = home;
    this.jars = jars;
  }

  private static SparkDistribution shared;

  /**
   * One distribution for all packaging tests of this JVM, in a fresh folder under the build
   * folder that is deleted when the JVM exits.
   */
  static synchronized SparkDistribution shared() throws IOException, InterruptedException {
    if (shared == null) {
      Files.createDirectories(Settings.buildDir());
      Path home = Files.createTempDirectory(Settings.buildDir(), "it-spark-home-");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          deleteRecursively(home);
        } catch (IOException | UncheckedIOException e) {
          // a leftover folder in the build folder is harmless
        }
      }));
      shared = create(home);
    }
    return shared;
  }

  /** Resolves Spark's jars with Maven and links them into {@code <home>/jars}. */
  static SparkDistribution create(Path home) throws IOException, InterruptedException {
    Path project = Files.createDirectories(home.resolve("resolve"));
    String pom =
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n"
            + "  <modelVersion>4.0.0</modelVersion>\n"
            + "  <groupId>io.floe.it</groupId><artifactId>spark-distribution</artifactId>\n"
            + "  <version>1</version><packaging>pom</packaging>\n"
            + "  <dependencies><dependency><groupId>org.apache.spark</groupId>\n"
            + "    <artifactId>spark-sql_" + Settings.scalaBinaryVersion() + "</artifactId>\n"
            + "    <version>" + Settings.sparkVersion() + "</version></dependency></dependencies>\n"
            + "</project>\n";
    Files.writeString(project.resolve("pom.xml"), pom);
    Path classpathFile = project.resolve("classpath.txt");
    List<String> command = new ArrayList<>(List.of(
        Settings.maven(), "-B", "-q", "-f", project.resolve("pom.xml").toString(),
        "-Dmaven.repo.local=" + Settings.localRepository(),
        "org.apache.maven.plugins:maven-dependency-plugin:" + Settings.dependencyPluginVersion()
            + ":build-classpath",
        "-Dmdep.includeScope=runtime",
        "-Dmdep.outputFile=" + classpathFile));
    Path log = project.resolve("maven.log");
    Process maven = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!maven.waitFor(5, TimeUnit.MINUTES) || maven.exitValue() != 0) {
      maven.destroyForcibly();
      throw new IllegalStateException(
          "Cannot resolve Spark's jars with " + command + ":\n" + Files.readString(log));
    }
    List<Path> jars =
        Arrays.stream(Files.readString(classpathFile).trim().split(java.io.File.pathSeparator))
            .map(Paths::get)
            .collect(Collectors.toList());
    Path jarsDir = Files.createDirectories(home.resolve("jars"));
    for (Path jar : jars) {
      Path link = jarsDir.resolve(jar.getFileName());
      if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        Files.createSymbolicLink(link, jar);
      }
    }
    return new SparkDistribution(home, jars);
  }

  Path home() {
    return home;
  }

  /** Spark's jars, in the local Maven repository. */
  List<Path> jars() {
    return jars;
  }

  /**
   * The {@code groupId:artifactId} of each of Spark's jars, read from its place in the Maven
   * repository ({@code <repo>/<group path>/<artifactId>/<version>/<file>}).
   */
  TreeSet<String> modules() {
    Path repository = Paths.get(Settings.localRepository()).toAbsolutePath().normalize();
    TreeSet<String> modules = new TreeSet<>();
    for (Path jar : jars) {
      Path relative = repository.relativize(jar.toAbsolutePath().normalize());
      int n = relative.getNameCount();
      String group = relative.subpath(0, n - 3).toString().replace(java.io.File.separatorChar, '.');
      modules.add(group + ":" + relative.getName(n - 3));
    }
    return modules;
  }

  /** A JVM on Spark's classpath running {@code mainClass}; its output goes to {@code log}. */
  Process start(String mainClass, List<String> jvmOptions, List<String> args, Path log, Path workDir)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(Arrays.asList(Settings.sparkJvmFlags().trim().split("\\s+")));
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(home.resolve("jars").toString() + java.io.File.separator + "*");
    command.add(mainClass);
    command.addAll(args);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(Files.createDirectories(workDir).toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    env.put("SPARK_HOME", home.toString());
    env.put("SPARK_SCALA_VERSION", Settings.scalaBinaryVersion());
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    env.remove("SPARK_CONF_DIR");
    env.remove("SPARK_DIST_CLASSPATH");
    return builder.start();
  }

  /** Runs a JVM to its end; fails with the tail of its output if it fails or runs too long. */
  String run(String mainClass, List<String> jvmOptions, List<String> args, Path log, Path workDir,
      Duration timeout) throws IOException, InterruptedException {
    Process process = start(mainClass, jvmOptions, args, log, workDir);
    boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (!ended) {
      stop(process);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    if (!ended || process.exitValue() != 0) {
      throw new AssertionError(
          mainClass + (ended ? " exited with " + process.exitValue() : " ran longer than " + timeout)
              + "; the end of its output (" + log + "):\n" + tail(output, 80));
    }
    return output;
  }

  /** Stops a process and the processes it started, waiting for them to end. */
  static void stop(Process process) {
    if (process == null) {
      return;
    }
    List<ProcessHandle> children;
    try (Stream<ProcessHandle> descendants = process.descendants()) {
      children = descendants.collect(Collectors.toList());
    }
    process.destroy();
    children.forEach(ProcessHandle::destroy);
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    children.forEach(child -> {
      if (child.isAlive()) {
        child.destroyForcibly();
      }
    });
  }

  static String tail(String output, int lines) {
    String[] all = output.split("\n");
    return String.join("\n", Arrays.asList(all).subList(Math.max(0, all.length - lines), all.length));
  }

  static void deleteRecursively(Path path) throws IOException {
    if (path == null || !Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(file -> {
        try {
          Files.deleteIfExists(file);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
