package io.floe.spark.write;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.catalog.TestCatalog;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The official runtime's {@code isolation-level} with {@code validate-from-snapshot-id} for
 * overwrites by filter and dynamic overwrites. The write's view of the table is pinned to an older
 * snapshot, and a commit made after it (through Spark or Iceberg's API) plays the concurrent writer:
 * serializable refuses data or deletes that touch what the write replaces, snapshot refuses only
 * deletes, and a refused write commits nothing and leaves no files behind.
 */
class IsolationLevelOptionTest extends CatalogTestBase {

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  @AfterEach
  void dropTable() {
    sql("DROP TABLE IF EXISTS floe.db.iso");
  }

  private static long createWithOneRow(String partitioning) {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.iso (id BIGINT, p INT) USING iceberg " + partitioning);
    sql("INSERT INTO floe.db.iso VALUES (1, 1)");
    return icebergTable("db.iso").currentSnapshot().snapshotId();
  }

  private static void overwriteAll(String isolation, long validateFrom) throws Exception {
    spark.sql("SELECT 10L AS id, 1 AS p")
        .writeTo("floe.db.iso")
        .option("isolation-level", isolation)
        .option("validate-from-snapshot-id", String.valueOf(validateFrom))
        .overwrite(col("id").geq(0));
  }

  @Test
  void serializableOverwriteFailsOnDataAddedSinceTheValidatedSnapshotAndCommitsNothing() {
    long pinned = createWithOneRow("");
    sql("INSERT INTO floe.db.iso VALUES (2, 1)");
    State before = State.of();

    assertThatThrownBy(() -> overwriteAll("serializable", pinned))
        .hasStackTraceContaining("floe.db.iso")
        .hasStackTraceContaining("isolation-level serializable found a conflicting commit after snapshot "
            + pinned)
        .hasStackTraceContaining("Found conflicting files");

    assertThat(State.of()).isEqualTo(before);
  }

  @Test
  void snapshotIsolationOverwriteAcceptsDataAddedMeanwhile() throws Exception {
    long pinned = createWithOneRow("");
    sql("INSERT INTO floe.db.iso VALUES (2, 1)");

    overwriteAll("snapshot", pinned);

    assertThat(sql("SELECT id FROM floe.db.iso")).containsExactly(row(10L));
  }

  @Test
  void snapshotIsolationOverwriteFailsOnFilesDeletedMeanwhile() {
    long pinned = createWithOneRow("");
    sql("INSERT INTO floe.db.iso VALUES (2, 1)");
    icebergTable("db.iso").newDelete().deleteFromRowFilter(Expressions.equal("id", 1L)).commit();
    State before = State.of();

    assertThatThrownBy(() -> overwriteAll("snapshot", pinned))
        .hasStackTraceContaining("isolation-level snapshot found a conflicting commit")
        .hasStackTraceContaining("Found conflicting deleted files");

    assertThat(State.of()).isEqualTo(before);
  }

  @Test
  void serializableDynamicOverwriteFailsOnlyForPartitionsWrittenMeanwhile() throws Exception {
    long pinned = createWithOneRow("PARTITIONED BY (p)");
    sql("INSERT INTO floe.db.iso VALUES (2, 2)");

    // the concurrent commit touched partition p=2 only: replacing p=1 is serializable
    spark.sql("SELECT 10L AS id, 1 AS p")
        .writeTo("floe.db.iso")
        .option("isolation-level", "serializable")
        .option("validate-from-snapshot-id", String.valueOf(pinned))
        .overwritePartitions();
    assertThat(sql("SELECT id, p FROM floe.db.iso ORDER BY id")).containsExactly(row(2L, 2), row(10L, 1));

    State before = State.of();
    assertThatThrownBy(
            () ->
                spark.sql("SELECT 20L AS id, 2 AS p")
                    .writeTo("floe.db.iso")
                    .option("isolation-level", "serializable")
                    .option("validate-from-snapshot-id", String.valueOf(pinned))
                    .overwritePartitions())
        .hasStackTraceContaining("isolation-level serializable found a conflicting commit")
        .hasStackTraceContaining("Found conflicting files");
    assertThat(State.of()).isEqualTo(before);
  }

  @Test
  void withoutAnIsolationLevelNothingIsValidated() throws Exception {
    long pinned = createWithOneRow("");
    sql("INSERT INTO floe.db.iso VALUES (2, 1)");

    spark.sql("SELECT 10L AS id, 1 AS p")
        .writeTo("floe.db.iso")
        .option("validate-from-snapshot-id", String.valueOf(pinned))
        .overwrite(col("id").geq(0));

    assertThat(sql("SELECT id FROM floe.db.iso")).containsExactly(row(10L));
  }

  @Test
  void badIsolationValuesFailNamingTheOption() {
    createWithOneRow("");
    assertThatThrownBy(
            () ->
                spark.sql("SELECT 10L AS id, 1 AS p")
                    .writeTo("floe.db.iso")
                    .option("isolation-level", "read-committed")
                    .overwrite(col("id").geq(0)))
        .hasMessageContaining(
            "Cannot write to floe.db.iso: option 'isolation-level' must be serializable or"
                + " snapshot, not 'read-committed'");
    assertThatThrownBy(
            () ->
                spark.sql("SELECT 10L AS id, 1 AS p")
                    .writeTo("floe.db.iso")
                    .option("isolation-level", "serializable")
                    .option("validate-from-snapshot-id", "12345")
                    .overwrite(col("id").geq(0)))
        .hasMessageContaining(
            "option 'validate-from-snapshot-id' names no snapshot of the table: 12345");
  }

  private record State(int snapshotCount, List<Row> rows, List<Path> files) {
    static State of() {
      return new State(
          snapshots("db.iso").size(),
          sql("SELECT * FROM floe.db.iso ORDER BY id"),
          dataFilesOnDisk(icebergTable("db.iso").location()));
    }
  }
}
