package io.floe.spark.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of the README's commands ({@code bin/floe-sql}, {@code bin/floe-cluster}) the way a user
 * types it: as a child process, from a folder the test chooses, with the environment of a shell and
 * nothing of the test JVM's classpath. The scripts build their own classpath through {@code
 * launcher/pom.xml}; they are pointed at the build folder of the Maven run that runs the test (so they
 * reuse its compiled classes) and at its local repository.
 */
final class UserCommand {
  /** What a finished command left: its exit code and its two output streams. */
  record Result(int exitCode, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr;
    }
  }

  private UserCommand() {}

  static Path projectDir() {
    return Paths.get(required("floe.it.projectDir"));
  }

  static Path buildDir() {
    return Paths.get(required("floe.it.buildDir"));
  }

  /** The script {@code bin/NAME} of the project. */
  static Path script(String name) {
    return projectDir().resolve("bin").resolve(name);
  }

  /**
   * Runs a command in {@code dir} and waits for it.
   *
   * @param stdin what the command reads on standard input (empty: nothing)
   * @param env variables added to the inherited environment
   */
  static Result run(Path dir, String stdin, Map<String, String> env, Duration timeout, String... command)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "stdout-", ".txt");
    Path err = Files.createTempFile(dir, "stderr-", ".txt");
    Path in = Files.createTempFile(dir, "stdin-", ".txt");
    Files.writeString(in, stdin, StandardCharsets.UTF_8);
    ProcessBuilder builder =
        new ProcessBuilder(List.of(command))
            .directory(dir.toFile())
            .redirectInput(in.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    Map<String, String> environment = builder.environment();
    environment.put("FLOE_BUILD_DIR", buildDir().toString());
    // the scripts' own Maven runs use the same local repository as the build that runs this test
    environment.put("MAVEN_OPTS", "-Dmaven.repo.local=" + required("floe.it.localRepository"));
    environment.putAll(env);
    Process process = builder.start();
    if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor();
      throw new AssertionError(
          "Command did not finish within " + timeout + ": " + String.join(" ", command)
              + "\n--- stdout\n" + Files.readString(out) + "\n--- stderr\n" + Files.readString(err));
    }
    Result result =
        new Result(
            process.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    for (Path file : new ArrayList<>(List.of(out, err, in))) {
      Files.delete(file);
    }
    return result;
  }

  private static String required(String key) {
    String value = System.getProperty(key);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "Cannot run the command tests: system property " + key + " is not set; run them with"
              + " mvn verify, which sets it");
    }
    return value;
  }
}
