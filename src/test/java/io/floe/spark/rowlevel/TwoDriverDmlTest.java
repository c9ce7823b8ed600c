package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.ChildJvm;
import io.floe.spark.catalog.TestCatalog;
import io.floe.spark.rowlevel.SerialOrders.Change;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Row-level statements from two driver JVMs at once on one table of a JDBC catalog (SQLite): this
 * test's JVM and a {@link DmlDriver} child process. Both statements read the same snapshot before
 * either commits ({@link RendezvousFiles}). Statements on different partitions both commit;
 * copy-on-write statements on the same rows cannot both commit; merge-on-read deletes of different
 * rows of the same files both commit on a v3 table, their deletion vectors merged. The table always
 * ends equal to a serial order of the statements that committed, and a failure is a conflict.
 */
class TwoDriverDmlTest extends RowLevelTestBase {
  private static Path rendezvous;
  private static int round;

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.JDBC;
  }

  @BeforeAll
  void createRendezvousFolder() throws IOException {
    rendezvous = Files.createTempDirectory(warehouse, "rendezvous");
  }

  /** Whether a statement failed on a validation conflict with a concurrent commit. */
  static boolean isConflict(Throwable failure) {
    return ExceptionUtils.getStackTrace(failure).contains("found a conflicting commit after snapshot");
  }

  @Test
  void copyOnWriteUpdatesOfDifferentPartitionsBothCommit() throws Exception {
    createTable("'format-version' = '2'");
    Change here =
        new Change(
            "UPDATE " + TABLE + " SET data = rendezvous(data, 'here') + 1 WHERE p = 'a'",
            "SELECT id, IF(p = 'a', data + 1, data) AS data, p FROM {in}");
    Change there =
        new Change(
            "UPDATE " + TABLE + " SET data = rendezvous(data, 'there') - 1 WHERE p = 'b'",
            "SELECT id, IF(p = 'b', data - 1, data) AS data, p FROM {in}");

    List<Boolean> committed = runInTwoDrivers(here, there);

    assertThat(committed).containsExactly(true, true);
    SerialOrders.assertEqualsSomeSerialOrder(List.of(here, there), committed);
  }

  @Test
  void copyOnWriteUpdatesOfTheSameRowsCommitOnlyOnce() throws Exception {
    createTable("'format-version' = '2'");
    Change here =
        new Change(
            "UPDATE " + TABLE + " SET data = rendezvous(data, 'here') + 1 WHERE p = 'a'",
            "SELECT id, IF(p = 'a', data + 1, data) AS data, p FROM {in}");
    Change there =
        new Change(
            "UPDATE " + TABLE + " SET data = rendezvous(data, 'there') * 10 WHERE p = 'a' OR id = 3",
            "SELECT id, IF(p = 'a' OR id = 3, data * 10, data) AS data, p FROM {in}");

    List<Boolean> committed = runInTwoDrivers(here, there);

    assertThat(committed).containsExactlyInAnyOrder(true, false);
    SerialOrders.assertEqualsSomeSerialOrder(List.of(here, there), committed);
  }

  @Test
  void mergeOnReadDeletesOfDifferentRowsOfTheSameFilesBothCommitOnVersion3() throws Exception {
    createTable("'format-version' = '3', 'write.delete.mode' = 'merge-on-read'");
    Change here =
        new Change(
            "DELETE FROM " + TABLE + " WHERE rendezvous(data, 'here') IN (10, 40)",
            "SELECT * FROM {in} WHERE NOT (data IN (10, 40)) OR data IS NULL");
    Change there =
        new Change(
            "DELETE FROM " + TABLE + " WHERE rendezvous(data, 'there') IN (20, 50)",
            "SELECT * FROM {in} WHERE NOT (data IN (20, 50)) OR data IS NULL");

    List<Boolean> committed = runInTwoDrivers(here, there);

    assertThat(committed).containsExactly(true, true);
    SerialOrders.assertEqualsSomeSerialOrder(List.of(here, there), committed);
    assertThat(liveDeleteFiles()).allSatisfy(file -> assertThat(file.referencedDataFile()).isNotNull());
  }

  private static void createTable(String properties) {
    create(
        "id BIGINT, data INT, p STRING",
        "PARTITIONED BY (p) TBLPROPERTIES (" + properties + ", 'write.update.isolation-level' = 'serializable')",
        "(1, 10, 'a'), (2, 20, 'a'), (3, 30, 'b')",
        "(4, 40, 'b'), (5, 50, 'c'), (6, NULL, 'c'), (7, 70, 'a')");
  }

  /**
   * Runs {@code here} in this JVM and {@code there} in a child driver JVM, both held after planning
   * until both have planned; true for each that committed.
   */
  private static List<Boolean> runInTwoDrivers(Change here, Change there) throws Exception {
    Path folder = Files.createDirectory(rendezvous.resolve("round-" + round++));
    RendezvousFiles.register(spark, folder.toString());
    Path result = folder.resolve("result");
    Path log = folder.resolve("driver.log");
    Process child = startDriver(folder, result, log, there.statement());
    try {
      CompletableFuture<Boolean> local =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  spark.sql(here.statement()).collectAsList();
                  return true;
                } catch (RuntimeException e) {
                  if (!isConflict(e)) {
                    throw e;
                  }
                  return false;
                }
              });
      RendezvousFiles.release(folder, child, "here", "there");
      boolean hereCommitted = local.get(3, TimeUnit.MINUTES);
      assertThat(child.waitFor(3, TimeUnit.MINUTES)).as("the child driver finished\n%s", tail(log)).isTrue();
      assertThat(child.exitValue()).as("the child driver's exit code\n%s", tail(log)).isZero();
      String outcome = Files.readString(result, StandardCharsets.UTF_8);
      assertThat(outcome).isIn("committed", "conflict");
      return List.of(hereCommitted, outcome.equals("committed"));
    } finally {
      child.destroyForcibly();
    }
  }

  private static Process startDriver(Path folder, Path result, Path log, String statement)
      throws IOException {
    Map<String, String> options = TestCatalog.JDBC.options(warehouse);
    return ChildJvm.start(
        DmlDriver.class,
        List.of(options.get("uri"), options.get("warehouse"), folder.toString(), result.toString(), statement),
        log);
  }

  private static String tail(Path log) throws IOException {
    if (!Files.exists(log)) {
      return "(no log)";
    }
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }
}
