package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code migrate} and {@code snapshot} of tables of a real Hive metastore (Spark's Hive support
 * over an embedded Derby metastore): Hive Parquet tables, partitioned, become Iceberg tables that
 * read the rows Spark read from the Hive table; a failed migration restores the Hive table.
 *
 * <p>The checks ({@link HiveMigrationChecks}) run in one child JVM, so that Hive's classes and
 * metastore never start in the shared test JVM; each test asserts that its check passed there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HiveMigrateTest {
  private Path root;
  private List<String> output;

  @BeforeAll
  void runChecks() throws IOException, InterruptedException {
    root = Files.createTempDirectory("floe-hive-migrate");
    Path log = root.resolve("checks.log");
    List<String> command = ChildJvm.javaWithTestFlags();
    command.add("-Xmx1g");
    command.add("-Dderby.stream.error.file=" + root.resolve("derby.log"));
    command.add("-cp");
    command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    command.add(HiveMigrationChecks.class.getName());
    command.add(root.toString());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Process process = builder.start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("The Hive checks did not finish; see " + log);
    }
    output = Files.readAllLines(log);
    // a JVM that ran no check (it could not start Hive) fails every test with its output
    assertThat(output)
        .as("output of the Hive checks' JVM (exit %d)", process.exitValue())
        .anyMatch(line -> line.startsWith(HiveMigrationChecks.PASS)
            || line.startsWith(HiveMigrationChecks.FAIL));
  }

  @AfterAll
  void deleteRoot() throws IOException {
    if (root == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private void assertPassed(String check) {
    assertThat(HiveMigrationChecks.CHECKS).contains(check);
    String failure =
        String.join("\n", output.subList(failureStart(check), output.size()));
    assertThat(output).as(failure).contains(HiveMigrationChecks.PASS + check);
  }

  /** Where the check's failure starts in the output, or its end if it did not fail. */
  private int failureStart(String check) {
    for (int i = 0; i < output.size(); i++) {
      if (output.get(i).startsWith(HiveMigrationChecks.FAIL + check + ":")) {
        return i;
      }
    }
    return output.size();
  }

  @Test
  void migrateReplacesAPartitionedHiveParquetTableByAnIcebergTableOverItsFiles() {
    assertPassed("migrate");
  }

  @Test
  void aFailedMigrationOfAHiveTableRestoresIt() {
    assertPassed("failedMigrate");
  }

  @Test
  void aSnapshotOfAHiveTableLeavesItAsItWas() {
    assertPassed("snapshot");
  }
}
