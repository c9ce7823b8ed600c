package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.rowlevel.SerialOrders.Change;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two threads of one session run copy-on-write statements on one table at the same time, under
 * each isolation level. Statements on different partitions both succeed; statements on the same
 * rows may both succeed only one after the other. Whatever happens, the table ends equal to some
 * serial order of the statements that succeeded, and a failure is a validation conflict.
 */
class RowLevelConcurrencyTest extends RowLevelTestBase {
  private static final int ROUNDS = 3;
  /** Where the two statements of a round wait for each other, once each, inside their jobs. */
  private static volatile CyclicBarrier barrier;
  private static final Set<String> MET = ConcurrentHashMap.newKeySet();

  /**
   * {@code meet(value, name)} returns the value; the first call for a name waits until the other
   * statement's first call, so both statements have planned (read the same snapshot) before
   * either commits.
   */
  @BeforeAll
  void registerMeet() {
    spark.udf()
        .register(
            "meet",
            (UDF2<Integer, String, Integer>)
                (value, name) -> {
                  if (MET.add(name)) {
                    try {
                      barrier.await(30, TimeUnit.SECONDS);
                    } catch (Exception e) {
                      throw new IllegalStateException("Statement " + name + " met no other", e);
                    }
                  }
                  return value;
                },
            DataTypes.IntegerType);
  }

  private static void createTable(String isolation) {
    create(
        "id BIGINT, data INT, p STRING",
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version'='2',"
            + " 'write.update.isolation-level'='" + isolation + "',"
            + " 'write.delete.isolation-level'='" + isolation + "')",
        "(1, 10, 'a'), (2, 20, 'a'), (3, 30, 'b')",
        "(4, 40, 'b'), (5, 50, 'c'), (6, NULL, 'c'), (7, 70, 'a')");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"serializable", "snapshot"})
  void statementsOnDifferentPartitionsBothCommit(String isolation) throws Exception {
    createTable(isolation);
    for (int round = 0; round < ROUNDS; round += 1) {
      Change a =
          new Change(
              "UPDATE " + TABLE + " SET data = meet(data, 'a') + 1 WHERE p = 'a'",
              "SELECT id, IF(p = 'a', data + 1, data) AS data, p FROM {in}");
      Change b =
          new Change(
              "UPDATE " + TABLE + " SET data = meet(data, 'b') - 1 WHERE p = 'b'",
              "SELECT id, IF(p = 'b', data - 1, data) AS data, p FROM {in}");
      List<Boolean> committed = runTogether(a, b);

      assertThat(committed).containsExactly(true, true);
      SerialOrders.assertEqualsSomeSerialOrder(List.of(a, b), committed);
      view("v", TABLE);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"serializable", "snapshot"})
  void statementsOnTheSameRowsEndInASerialOrder(String isolation) throws Exception {
    createTable(isolation);
    for (int round = 0; round < ROUNDS; round += 1) {
      Change a =
          new Change(
              "UPDATE " + TABLE + " SET data = meet(data, 'a') + 1 WHERE p = 'a'",
              "SELECT id, IF(p = 'a', data + 1, data) AS data, p FROM {in}");
      Change b =
          new Change(
              "UPDATE " + TABLE + " SET data = meet(data, 'b') * 10 WHERE p = 'a' OR id = 3",
              "SELECT id, IF(p = 'a' OR id = 3, data * 10, data) AS data, p FROM {in}");
      List<Boolean> committed = runTogether(a, b);

      // both read the same snapshot and rewrite the same files: exactly one may commit
      assertThat(committed).containsExactlyInAnyOrder(true, false);
      SerialOrders.assertEqualsSomeSerialOrder(List.of(a, b), committed);
      view("v", TABLE);
    }
  }

  /**
   * Runs the statements in two threads started together; true for each that committed. A failure
   * must be a validation conflict, never anything else.
   */
  private static List<Boolean> runTogether(Change... changes) throws Exception {
    barrier = new CyclicBarrier(changes.length);
    MET.clear();
    ExecutorService pool = Executors.newFixedThreadPool(changes.length);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (Change change : changes) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  try {
                    spark.sql(change.statement()).collectAsList();
                    return true;
                  } catch (RuntimeException e) {
                    assertThat(e).hasStackTraceContaining("found a conflicting commit after snapshot");
                    return false;
                  }
                }));
      }
      start.countDown();
      List<Boolean> committed = new ArrayList<>();
      for (Future<Boolean> result : results) {
        committed.add(result.get(5, TimeUnit.MINUTES));
      }
      return committed;
    } finally {
      pool.shutdownNow();
    }
  }
}
