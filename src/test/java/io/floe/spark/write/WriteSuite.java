package io.floe.spark.write;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.commit.Committer;
import java.io.IOException;
import java.math.BigDecimal;
import java.sql.Date;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every way a user writes to a Floe table (INSERT INTO, INSERT OVERWRITE static and dynamic,
 * DataFrameWriterV2, CTAS, RTAS), checked by the rows read back and by the snapshots each write
 * leaves, plus read-after-write of every type and file rolling at the target size.
 */
abstract class WriteSuite extends CatalogTestBase {

  @BeforeAll
  void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
  }

  @Test
  void insertIntoAppendsOneSnapshotPerStatement() {
    sql("CREATE TABLE floe.db.appended (id BIGINT, data STRING, p INT) USING iceberg PARTITIONED BY (p)");

    sql("INSERT INTO floe.db.appended VALUES (1, 'a', 1), (2, 'b', 2)");
    sql("INSERT INTO floe.db.appended SELECT 3L, 'c', 1");

    assertThat(sql("SELECT * FROM floe.db.appended ORDER BY id"))
        .containsExactly(row(1L, "a", 1), row(2L, "b", 2), row(3L, "c", 1));
    assertThat(operations("db.appended")).containsExactly("append", "append");
    assertThat(snapshots("db.appended"))
        .allSatisfy(snapshot -> assertThat(snapshot.summary()).containsKey(Committer.COMMIT_ID_KEY));
    assertThat(snapshots("db.appended").get(1).summary()).containsEntry("added-data-files", "1");
  }

  @Test
  void insertOverwriteWithoutPartitionReplacesTheWholeTable() {
    createPartitioned("overwrite_all");

    sql("INSERT OVERWRITE floe.db.overwrite_all VALUES (10, 'new', 3)");

    assertThat(sql("SELECT * FROM floe.db.overwrite_all")).containsExactly(row(10L, "new", 3));
    assertThat(operations("db.overwrite_all")).containsExactly("append", "overwrite");
  }

  @Test
  void insertOverwriteOfAStaticPartitionReplacesOnlyThatPartition() {
    createPartitioned("overwrite_static");

    sql("INSERT OVERWRITE floe.db.overwrite_static PARTITION (p = 1) VALUES (10, 'new')");

    assertThat(sql("SELECT * FROM floe.db.overwrite_static ORDER BY id"))
        .containsExactly(row(2L, "b", 2), row(10L, "new", 1));
    assertThat(operations("db.overwrite_static")).containsExactly("append", "overwrite");
  }

  @Test
  void dynamicInsertOverwriteReplacesOnlyThePartitionsWritten() {
    createPartitioned("overwrite_dynamic");
    spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
    try {
      sql("INSERT OVERWRITE floe.db.overwrite_dynamic VALUES (10, 'new', 1), (11, 'newer', 4)");
    } finally {
      spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
    }

    assertThat(sql("SELECT * FROM floe.db.overwrite_dynamic ORDER BY id"))
        .containsExactly(row(2L, "b", 2), row(10L, "new", 1), row(11L, "newer", 4));
    assertThat(operations("db.overwrite_dynamic")).containsExactly("append", "overwrite");
  }

  @Test
  void dataFrameWriterV2CreatesAppendsAndOverwrites() throws Exception {
    Dataset<Row> first = spark.sql("SELECT * FROM VALUES (1L, 'a', 1), (2L, 'b', 2) AS t(id, data, p)");
    first.writeTo("floe.db.v2").partitionedBy(col("p")).tableProperty("team", "blue").create();

    Table table = icebergTable("db.v2");
    assertThat(table.spec().fields()).hasSize(1);
    assertThat(table.properties()).containsEntry("team", "blue");
    assertThat(operations("db.v2")).containsExactly("append");

    spark.sql("SELECT 3L AS id, 'c' AS data, 1 AS p").writeTo("floe.db.v2").append();
    assertThat(sql("SELECT * FROM floe.db.v2 ORDER BY id"))
        .containsExactly(row(1L, "a", 1), row(2L, "b", 2), row(3L, "c", 1));

    spark.sql("SELECT 4L AS id, 'd' AS data, 2 AS p")
        .writeTo("floe.db.v2")
        .overwrite(col("id").equalTo(2L));
    assertThat(sql("SELECT * FROM floe.db.v2 ORDER BY id"))
        .containsExactly(row(1L, "a", 1), row(3L, "c", 1), row(4L, "d", 2));

    spark.sql("SELECT 5L AS id, 'e' AS data, 1 AS p").writeTo("floe.db.v2").overwritePartitions();
    assertThat(sql("SELECT * FROM floe.db.v2 ORDER BY id"))
        .containsExactly(row(4L, "d", 2), row(5L, "e", 1));

    assertThat(operations("db.v2")).containsExactly("append", "append", "overwrite", "overwrite");
    assertThatThrownBy(() -> first.writeTo("floe.db.v2").create())
        .hasMessageContaining("TABLE_OR_VIEW_ALREADY_EXISTS");
    assertThat(snapshots("db.v2")).hasSize(4);
  }

  @Test
  void dataFrameWriterV2CreateOrReplaceReplacesSchemaAndRows() throws Exception {
    // Spark writes a replacement as "truncate, then add": an overwrite snapshot, as with the
    // official runtime; the replaced table starts a new lineage and deletes nothing
    spark.sql("SELECT 1L AS id, 'a' AS data").writeTo("floe.db.v2_replace").createOrReplace();
    assertThat(sql("SELECT * FROM floe.db.v2_replace")).containsExactly(row(1L, "a"));
    assertThat(operations("db.v2_replace")).containsExactly("overwrite");

    spark.sql("SELECT 'x' AS name, 2.5D AS score").writeTo("floe.db.v2_replace").createOrReplace();

    assertThat(sql("SELECT * FROM floe.db.v2_replace")).containsExactly(row("x", 2.5d));
    assertThat(columns("floe.db.v2_replace")).containsExactly("name", "score");
    assertThat(operations("db.v2_replace")).containsExactly("overwrite", "overwrite");
    Snapshot current = icebergTable("db.v2_replace").currentSnapshot();
    assertThat(current.parentId()).isNull();
    assertThat(current.summary()).doesNotContainKey("deleted-data-files");
  }

  @Test
  void createTableAsSelectCommitsOneSnapshot() {
    sql("CREATE TABLE floe.db.ctas USING iceberg PARTITIONED BY (p) TBLPROPERTIES ('team' = 'blue')"
        + " AS SELECT id, CAST(id %% 2 AS INT) AS p FROM range(4)");

    assertThat(sql("SELECT * FROM floe.db.ctas ORDER BY id"))
        .containsExactly(row(0L, 0), row(1L, 1), row(2L, 0), row(3L, 1));
    assertThat(operations("db.ctas")).containsExactly("append");
    Table table = icebergTable("db.ctas");
    assertThat(table.spec().fields()).hasSize(1);
    assertThat(table.properties()).containsEntry("team", "blue");
  }

  @Test
  void createTableAsAnEmptySelectMakesAnEmptyTable() {
    sql("CREATE TABLE floe.db.ctas_empty USING iceberg AS SELECT id FROM range(0)");

    assertThat(sql("SELECT * FROM floe.db.ctas_empty")).isEmpty();
    assertThat(snapshots("db.ctas_empty")).isEmpty();
  }

  @Test
  void failedCreateTableAsSelectLeavesNoTableAndNoFiles() {
    // one task that has rolled two complete files and holds a third open when the query fails
    assertThatThrownBy(
            () ->
                sql("CREATE TABLE floe.db.ctas_failed USING iceberg"
                    + " TBLPROPERTIES ('write.target-file-size-bytes' = '1') AS SELECT"
                    + " CAST(IF(id < 2500, id, raise_error('boom in query')) AS BIGINT) AS id"
                    + " FROM range(0, 3000, 1, 1)"))
        .hasMessageContaining("boom in query");

    assertThatThrownBy(() -> sql("SELECT * FROM floe.db.ctas_failed"))
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND");
    assertThat(dataFilesOnDisk(warehouse.resolve("db").resolve("ctas_failed").toUri().toString()))
        .isEmpty();
  }

  @Test
  void replaceTableAsSelectReplacesSchemaRowsAndKeepsHistory() {
    sql("CREATE TABLE floe.db.rtas (id BIGINT, data STRING) USING iceberg");
    sql("INSERT INTO floe.db.rtas VALUES (1, 'a')");

    sql("REPLACE TABLE floe.db.rtas USING iceberg PARTITIONED BY (p) AS SELECT 'z' AS tag, 7 AS p");

    assertThat(sql("SELECT * FROM floe.db.rtas")).containsExactly(row("z", 7));
    assertThat(icebergTable("db.rtas").spec().fields()).hasSize(1);
    assertThat(operations("db.rtas")).containsExactly("append", "overwrite");
    assertThat(icebergTable("db.rtas").currentSnapshot().summary())
        .doesNotContainKey("deleted-data-files");

    sql("CREATE OR REPLACE TABLE floe.db.rtas USING iceberg AS SELECT 8L AS n");
    assertThat(sql("SELECT * FROM floe.db.rtas")).containsExactly(row(8L));
    assertThat(icebergTable("db.rtas").spec().isUnpartitioned()).isTrue();
    assertThat(operations("db.rtas")).containsExactly("append", "overwrite", "overwrite");

    sql("CREATE OR REPLACE TABLE floe.db.rtas_new USING iceberg AS SELECT 9L AS n");
    assertThat(sql("SELECT * FROM floe.db.rtas_new")).containsExactly(row(9L));
    assertThat(operations("db.rtas_new")).containsExactly("overwrite");
  }

  @Test
  void failedReplaceTableAsSelectLeavesTheTableAsItWas() {
    sql("CREATE TABLE floe.db.rtas_failed (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.db.rtas_failed VALUES (1)");

    assertThatThrownBy(
            () ->
                sql("REPLACE TABLE floe.db.rtas_failed USING iceberg AS SELECT"
                    + " CAST(IF(id < 1500, id, raise_error('boom in replace')) AS STRING) AS s"
                    + " FROM range(0, 2000, 1, 1)"))
        .hasMessageContaining("boom in replace");

    assertThat(sql("SELECT * FROM floe.db.rtas_failed")).containsExactly(row(1L));
    assertThat(dataFilesOnDisk(icebergTable("db.rtas_failed").location())).hasSize(1);
    assertThat(columns("floe.db.rtas_failed")).containsExactly("id");
    assertThat(snapshots("db.rtas_failed")).hasSize(1);
  }

  @Test
  void replaceTableThatDoesNotExistFails() {
    assertThatThrownBy(() -> sql("REPLACE TABLE floe.db.never USING iceberg AS SELECT 1 AS id"))
        .hasMessageContaining("never");
  }

  @Test
  void smallTargetFileSizeRollsSeveralFiles() throws Exception {
    sql("CREATE TABLE floe.db.rolled (id BIGINT, data STRING) USING iceberg"
        + " TBLPROPERTIES ('write.target-file-size-bytes' = '1')");

    sql("INSERT INTO floe.db.rolled SELECT id, CAST(id AS STRING) FROM range(0, 3500, 1, 1)");

    Snapshot snapshot = icebergTable("db.rolled").currentSnapshot();
    assertThat(snapshot.summary()).containsEntry("added-data-files", "4");
    assertThat(dataFilesOnDisk(icebergTable("db.rolled").location())).hasSize(4);
    assertThat(sql("SELECT count(*), sum(id) FROM floe.db.rolled")).containsExactly(row(3500L, 6123250L));

    spark.sql("SELECT id, 'x' AS data FROM range(0, 2500, 1, 1)")
        .writeTo("floe.db.rolled")
        .option("target-file-size-bytes", "1")
        .append();
    assertThat(icebergTable("db.rolled").currentSnapshot().summary())
        .containsEntry("added-data-files", "3");
  }

  @Test
  void writesToEveryPartitionTransformReadBack() {
    sql("CREATE TABLE floe.db.transformed (id BIGINT, category STRING, amount DECIMAL(10, 2),"
        + " ts TIMESTAMP, ntz TIMESTAMP_NTZ, day DATE, s STRUCT<inner: STRING>) USING iceberg"
        + " PARTITIONED BY (category, bucket(4, id), truncate(amount, 10), days(ts), hours(ntz),"
        + " months(day), truncate(s.inner, 2))");

    sql("INSERT INTO floe.db.transformed VALUES"
        + " (1, 'a', 12.34, TIMESTAMP '2024-03-05 06:07:08', TIMESTAMP_NTZ '2024-03-05 06:07:08',"
        + "  DATE '2024-03-05', named_struct('inner', 'xyz')),"
        + " (2, 'b', -0.01, TIMESTAMP '1969-12-31 23:59:59', TIMESTAMP_NTZ '1969-12-31 23:00:00',"
        + "  DATE '1969-12-31', named_struct('inner', 'x')),"
        + " (3, NULL, NULL, NULL, NULL, NULL, NULL)");

    assertThat(sql("SELECT id, category, amount, day, s.inner FROM floe.db.transformed ORDER BY id"))
        .containsExactly(
            row(1L, "a", new BigDecimal("12.34"), Date.valueOf("2024-03-05"), "xyz"),
            row(2L, "b", new BigDecimal("-0.01"), Date.valueOf("1969-12-31"), "x"),
            row(3L, null, null, null, null));
    assertThat(icebergTable("db.transformed").currentSnapshot().summary())
        .containsEntry("added-data-files", "3")
        .containsEntry("changed-partition-count", "3");
    assertThat(sql("SELECT id FROM floe.db.transformed WHERE ntz < TIMESTAMP_NTZ '2000-01-01 00:00:00'"))
        .containsExactly(row(2L));
  }

  @Test
  void everyTypeReadsBackExactlyAsWritten() throws Exception {
    sql("CREATE TABLE floe.db.all_types (%s) USING iceberg", AllTypes.DDL);
    Dataset<Row> written = spark.createDataFrame(AllTypes.rows(), AllTypes.SCHEMA);

    written.writeTo("floe.db.all_types").append();

    List<Row> expected = written.orderBy("id").collectAsList();
    assertThat(spark.table("floe.db.all_types").orderBy("id").collectAsList())
        .containsExactlyElementsOf(expected);
    assertThat(sql("SELECT id FROM floe.db.all_types WHERE s = ''")).containsExactly(row(3L));
    assertThat(sql("SELECT id FROM floe.db.all_types WHERE size(arr) = 0")).containsExactly(row(3L));
    assertThat(operations("db.all_types")).containsExactly("append");
  }

  @Test
  void outputSpecIdWritesWithAnOlderPartitionSpec() throws Exception {
    createPartitioned("older_spec");
    Table table = icebergTable("db.older_spec");
    int first = table.spec().specId();
    table.updateSpec().addField(Expressions.bucket("id", 4)).commit();
    assertThat(icebergTable("db.older_spec").spec().specId()).isNotEqualTo(first);

    spark.sql("SELECT CAST(3 AS BIGINT) AS id, 'c' AS data, 3 AS p")
        .writeTo("floe.db.older_spec")
        .option("output-spec-id", String.valueOf(first))
        .append();
    sql("INSERT INTO floe.db.older_spec VALUES (4, 'd', 4)");

    Table reloaded = icebergTable("db.older_spec");
    assertThat(sql("SELECT id, p FROM floe.db.older_spec WHERE p = 3"))
        .containsExactly(row(3L, 3));
    assertThat(filesBySpec(reloaded))
        .containsEntry(first, 3L)
        .containsEntry(reloaded.spec().specId(), 1L);
    assertThatThrownBy(
            () ->
                spark.sql("SELECT CAST(5 AS BIGINT) AS id, 'e' AS data, 5 AS p")
                    .writeTo("floe.db.older_spec")
                    .option("output-spec-id", "99")
                    .append())
        .hasMessageContaining("option 'output-spec-id' names no partition spec of the table: 99");
  }

  /** The number of data files written with each partition spec. */
  private static Map<Integer, Long> filesBySpec(Table table) throws IOException {
    Map<Integer, Long> counts = new TreeMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        counts.merge(task.file().specId(), 1L, Long::sum);
      }
    }
    return counts;
  }

  // helpers

  /** A table partitioned by p holding (1, 'a', 1) and (2, 'b', 2) in one snapshot. */
  private static void createPartitioned(String name) {
    sql("CREATE TABLE floe.db.%s (id BIGINT, data STRING, p INT) USING iceberg PARTITIONED BY (p)", name);
    sql("INSERT INTO floe.db.%s VALUES (1, 'a', 1), (2, 'b', 2)", name);
  }

  private static List<String> columns(String table) {
    return List.of(spark.table(table).schema().names());
  }
}
