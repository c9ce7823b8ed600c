package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeScan;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Which rows a write accepts and where their partition values come from: NOT NULL rules (checked
 * per row, not at planning), partition values taken from the table's columns whatever the input
 * plan's projection and names, and partitioned tables with nested columns.
 */
class ColumnRulesTest extends SparkTestBase {

  @BeforeAll
  static void createSources() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.nullable_src (id BIGINT, data STRING) USING iceberg");
    sql("INSERT INTO floe.db.nullable_src VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    sql("CREATE TABLE floe.db.with_null_src (id BIGINT, data STRING) USING iceberg");
    // one file, NULL last: a single task reads it and meets the NULL after writing three rows
    sql("INSERT INTO floe.db.with_null_src "
        + "SELECT /*+ COALESCE(1) */ * FROM VALUES (1L, 'a'), (2L, 'b'), (3L, 'c'), (CAST(NULL AS BIGINT), 'd')");
  }

  @AfterEach
  void dropTables() {
    sql("DROP TABLE IF EXISTS floe.db.t");
    sql("DROP TABLE IF EXISTS floe.db.src");
  }

  @Test
  void notNullSourceIntoOptionalColumnIsAcceptedUnpartitioned() {
    notNullSourceIntoOptionalColumnIsAccepted("");
  }

  @Test
  void notNullSourceIntoOptionalColumnIsAcceptedPartitioned() {
    notNullSourceIntoOptionalColumnIsAccepted("PARTITIONED BY (bucket(4, id), data)");
  }

  private static void notNullSourceIntoOptionalColumnIsAccepted(String partitioning) {
    sql("CREATE TABLE floe.db.t (id BIGINT, data STRING) USING iceberg " + partitioning);
    assertThat(spark.range(3).schema().fields()[0].nullable()).isFalse();

    sql("INSERT INTO floe.db.t SELECT id, CAST(id AS STRING) FROM range(3)");

    assertThat(sql("SELECT id, data FROM floe.db.t ORDER BY id"))
        .containsExactly(RowFactory.create(0L, "0"), RowFactory.create(1L, "1"), RowFactory.create(2L, "2"));
  }

  @Test
  void nullableSourceWithoutNullsIntoRequiredColumnIsAcceptedUnpartitioned() {
    nullableSourceWithoutNullsIntoRequiredColumnIsAccepted("");
  }

  @Test
  void nullableSourceWithoutNullsIntoRequiredColumnIsAcceptedPartitioned() {
    nullableSourceWithoutNullsIntoRequiredColumnIsAccepted("PARTITIONED BY (bucket(4, id))");
  }

  private static void nullableSourceWithoutNullsIntoRequiredColumnIsAccepted(String partitioning) {
    sql("CREATE TABLE floe.db.t (id BIGINT NOT NULL, data STRING) USING iceberg " + partitioning);
    assertThat(spark.table("floe.db.nullable_src").schema().fields()[0].nullable()).isTrue();

    sql("INSERT INTO floe.db.t SELECT id, data FROM floe.db.nullable_src");

    assertThat(sql("SELECT id, data FROM floe.db.t ORDER BY id"))
        .containsExactly(RowFactory.create(1L, "a"), RowFactory.create(2L, "b"), RowFactory.create(3L, "c"));
  }

  @Test
  void nullIntoRequiredColumnFailsTheWriteAndLeavesNothingUnpartitioned() {
    // one task, no sort: rows 1 to 3 are written to a file before the NULL arrives
    nullIntoRequiredColumnFailsTheWriteAndLeavesNothing("TBLPROPERTIES ('write.distribution-mode' = 'none')");
  }

  @Test
  void nullIntoRequiredColumnFailsTheWriteAndLeavesNothingPartitioned() {
    nullIntoRequiredColumnFailsTheWriteAndLeavesNothing("PARTITIONED BY (data)");
  }

  private static void nullIntoRequiredColumnFailsTheWriteAndLeavesNothing(String clauses) {
    sql("CREATE TABLE floe.db.t (id BIGINT NOT NULL, data STRING) USING iceberg " + clauses);
    sql("INSERT INTO floe.db.t VALUES (10, 'x')");
    Table table = WrittenFiles.table(spark, "db.t");
    int snapshots = WrittenFiles.snapshotCount(table);
    Set<Path> files = WrittenFiles.parquetFilesOnDisk(table);
    assertThat(files).hasSize(1);

    // accepted at planning: the plan is built and explained without error
    assertThat(spark.sql("SELECT id, data FROM floe.db.with_null_src").schema().fields()[0].nullable()).isTrue();
    spark.sql("EXPLAIN INSERT INTO floe.db.t SELECT id, data FROM floe.db.with_null_src").collectAsList();

    assertThatThrownBy(() -> sql("INSERT INTO floe.db.t SELECT id, data FROM floe.db.with_null_src"))
        .hasStackTraceContaining("NULL")
        .hasStackTraceContaining("id");

    table.refresh();
    assertThat(WrittenFiles.snapshotCount(table)).isEqualTo(snapshots);
    assertThat(sql("SELECT id, data FROM floe.db.t")).containsExactly(RowFactory.create(10L, "x"));
    assertThat(WrittenFiles.parquetFilesOnDisk(table)).isEqualTo(files);
  }

  @Test
  void partitionValuesComeFromTheTablesColumnsAfterAProjection() {
    sql("CREATE TABLE floe.db.src (a STRING, b INT) USING iceberg");
    sql("INSERT INTO floe.db.src VALUES ('x', 1), ('y', 2), ('z', 3)");
    sql("CREATE TABLE floe.db.t (id INT, p STRING) USING iceberg PARTITIONED BY (p)");

    sql("INSERT INTO floe.db.t SELECT b AS id, a AS p FROM floe.db.src");

    assertThat(sql("SELECT id, p FROM floe.db.t ORDER BY id"))
        .containsExactly(RowFactory.create(1, "x"), RowFactory.create(2, "y"), RowFactory.create(3, "z"));
    assertThat(sql("SELECT partition.p, record_count, file_count FROM floe.db.t.partitions ORDER BY 1"))
        .containsExactly(RowFactory.create("x", 1L, 1), RowFactory.create("y", 1L, 1), RowFactory.create("z", 1L, 1));
    assertThat(sql("SELECT _partition.p, p FROM floe.db.t")).allSatisfy(row -> assertThat(row.get(0)).isEqualTo(row.get(1)));

    Dataset<Row> pruned = spark.sql("SELECT id, p FROM floe.db.t WHERE p = 'y'");
    assertThat(pruned.collectAsList()).containsExactly(RowFactory.create(2, "y"));
    assertThat(plannedFiles(pruned)).isEqualTo(1);
  }

  @Test
  void partitionValuesComeFromTheTablesColumnsWhateverTheInputOrder() throws Exception {
    sql("CREATE TABLE floe.db.t (id INT, ts TIMESTAMP, p STRING) USING iceberg PARTITIONED BY (days(ts), p)");

    sql("INSERT INTO floe.db.t (p, ts, id) VALUES ('b', TIMESTAMP '2024-01-02 10:00:00', 1)");
    spark.sql("SELECT 'a' AS p, 2 AS id, TIMESTAMP '2024-01-01 10:00:00' AS ts").writeTo("floe.db.t").append();

    assertThat(sql("SELECT id, CAST(ts AS STRING), p, CAST(_partition.ts_day AS STRING), _partition.p "
            + "FROM floe.db.t ORDER BY id"))
        .containsExactly(
            RowFactory.create(1, "2024-01-02 10:00:00", "b", "2024-01-02", "b"),
            RowFactory.create(2, "2024-01-01 10:00:00", "a", "2024-01-01", "a"));
  }

  @Test
  void partitionedTablesWithNestedColumnsWriteAndReadBack() {
    sql("CREATE TABLE floe.db.t (id INT, p STRING, "
        + "arr ARRAY<STRUCT<x: INT, y: STRING>>, m MAP<STRING, ARRAY<INT>>, st STRUCT<a: INT, b: MAP<STRING, STRING>>) "
        + "USING iceberg PARTITIONED BY (p, bucket(2, id), st.a)");
    String values =
        "(1, 'a', array(named_struct('x', 1, 'y', 'one'), named_struct('x', 2, 'y', NULL)), "
            + "map('k', array(1, 2), 'e', array()), named_struct('a', 7, 'b', map('q', 'r'))), "
            + "(2, 'a', array(), map(), named_struct('a', 8, 'b', map())), "
            + "(3, 'b', NULL, NULL, NULL), "
            + "(4, 'b', array(NULL), map('n', NULL), named_struct('a', NULL, 'b', NULL))";

    sql("INSERT INTO floe.db.t VALUES " + values);

    List<Row> expected = spark.sql("SELECT * FROM VALUES " + values + " AS v(id, p, arr, m, st) ORDER BY id").collectAsList();
    assertThat(sql("SELECT * FROM floe.db.t ORDER BY id")).containsExactlyElementsOf(expected);
    assertThat(sql("SELECT id FROM floe.db.t WHERE st.a = 7")).containsExactly(RowFactory.create(1));
    Table table = WrittenFiles.table(spark, "db.t");
    assertThat(WrittenFiles.partitions(table, WrittenFiles.added(table))).hasSize(4);
  }

  /** How many data files the scan behind a query planned. */
  private static int plannedFiles(Dataset<Row> query) {
    return CollectionConverters.asJava(query.queryExecution().executedPlan().collectLeaves()).stream()
        .filter(BatchScanExec.class::isInstance)
        .map(scan -> (FloeScan) ((BatchScanExec) scan).scan())
        .mapToInt(scan -> scan.partitions().stream().mapToInt(partition -> partition.tasks().size()).sum())
        .sum();
  }
}
