package io.floe.spark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a test's second JVM (another driver, another writer) the way this test JVM runs: the
 * same {@code java}, the module and reflection flags Spark needs on Java 17, and the test
 * classpath. Carries nothing; each call builds one command.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** {@code java} of this JVM followed by the flags of this JVM a Spark JVM needs. */
  public static List<String> javaWithTestFlags() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-") || argument.startsWith("-XX:+IgnoreUnrecognizedVMOptions")
          || argument.startsWith("-Djdk.reflect") || argument.startsWith("-Dio.netty")) {
        command.add(argument);
      }
    }
    return command;
  }

  /**
   * Starts {@code main} with {@code arguments} on the test classpath in a JVM of 768 MiB, Spark
   * bound to the loopback address, its output (stdout and stderr) to {@code log}.
   */
  public static Process start(Class<?> main, List<String> arguments, Path log) throws IOException {
    List<String> command = javaWithTestFlags();
    command.add("-Xmx768m");
    command.add("-cp");
    command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    command.add(main.getName());
    command.addAll(arguments);
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return builder.start();
  }
}
