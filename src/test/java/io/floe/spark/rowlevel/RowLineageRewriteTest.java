package io.floe.spark.rowlevel;

import static io.floe.spark.read.ReadPaths.bothPaths;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Format v3 row lineage through rewrites: after a copy-on-write or merge-on-read UPDATE, MERGE and
 * DELETE, and after {@code rewrite_data_files}, every row that survives keeps its {@code _row_id};
 * a row copied unchanged also keeps its {@code _last_updated_sequence_number}, an updated row reads
 * the new snapshot's sequence number, and an inserted row gets a new id above every id the table
 * gave out before. Each step's expected rows are the step computed by Spark over a local copy of
 * the rows (with their lineage) read just before it.
 */
class RowLineageRewriteTest extends SparkTestBase {
  private static final String LINEAGE =
      "SELECT id, v, p, _row_id, _last_updated_sequence_number FROM %s";

  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.lineage_rw");
  }

  @ParameterizedTest(name = "{0}, partitioned {1}, {2}")
  @CsvSource({
    "copy-on-write, false, parquet",
    "copy-on-write, true, parquet",
    "merge-on-read, false, parquet",
    "merge-on-read, true, parquet",
    "copy-on-write, true, orc",
    "merge-on-read, false, avro"
  })
  void rewrittenRowsKeepTheirLineage(String mode, boolean partitioned, String format) {
    String name = "lineage_rw." + mode.replace('-', '_') + (partitioned ? "_part_" : "_flat_") + format;
    String table = "floe." + name;
    sql("CREATE TABLE %s (id INT, v INT, p INT) USING iceberg %s TBLPROPERTIES ("
            + "'format-version'='3', 'write.format.default'='%s', 'write.delete.mode'='%s', "
            + "'write.update.mode'='%s', 'write.merge.mode'='%s')",
        table, partitioned ? "PARTITIONED BY (p)" : "", format, mode, mode, mode);
    sql("INSERT INTO %s SELECT id, id * 10, id %% 3 FROM range(0, 12) t(id)", table);
    sql("INSERT INTO %s SELECT id, id * 10, id %% 3 FROM range(12, 20) t(id)", table);

    // UPDATE: the updated rows read the new sequence number, the others keep theirs
    capture(table);
    sql("UPDATE %s SET v = v + 1000 WHERE id %% 4 = 1", table);
    assertAfter(
        table,
        name,
        "SELECT id, CASE WHEN id %% 4 = 1 THEN v + 1000 ELSE v END, p, _row_id, "
            + "CASE WHEN id %% 4 = 1 THEN %d ELSE _last_updated_sequence_number END FROM before",
        "SELECT id, v, p FROM before WHERE false");

    // MERGE: updates, deletes and inserts in one statement, over rows a rewrite already moved
    capture(table);
    spark.sql("SELECT id, op, id * 7 AS v, id % 3 AS p FROM VALUES "
            + "(1, 'u'), (2, 'u'), (5, 'd'), (6, 'u'), (9, 'd'), (13, 'u'), (30, 'i'), (31, 'i'), "
            + "(32, 'i') AS s(id, op)")
        .createOrReplaceTempView("source");
    sql("MERGE INTO %s t USING source s ON t.id = s.id "
            + "WHEN MATCHED AND s.op = 'd' THEN DELETE "
            + "WHEN MATCHED THEN UPDATE SET v = s.v "
            + "WHEN NOT MATCHED THEN INSERT (id, v, p) VALUES (s.id, s.v, s.p)",
        table);
    assertAfter(
        table,
        name,
        "SELECT b.id, COALESCE(s.v, b.v), b.p, b._row_id, "
            + "CASE WHEN s.id IS NULL THEN b._last_updated_sequence_number ELSE %d END "
            + "FROM before b LEFT JOIN source s ON b.id = s.id WHERE s.op IS NULL OR s.op <> 'd'",
        "SELECT s.id, s.v, s.p FROM source s LEFT ANTI JOIN before b ON s.id = b.id");

    // DELETE: the rows that stay are copied (copy-on-write) or left (merge-on-read) as they were
    capture(table);
    sql("DELETE FROM %s WHERE id %% 5 = 3", table);
    assertAfter(
        table,
        name,
        "SELECT id, v, p, _row_id, _last_updated_sequence_number FROM before WHERE id %% 5 <> 3",
        "SELECT id, v, p FROM before WHERE false");

    // compaction: every row is copied unchanged, lineage and all
    capture(table);
    List<Row> result =
        sql("CALL floe.system.rewrite_data_files(table => '%s', options => map('rewrite-all', 'true'))",
            name);
    assertThat(result.get(0).getInt(0)).as("rewritten data files").isPositive();
    assertAfter(
        table,
        name,
        "SELECT id, v, p, _row_id, _last_updated_sequence_number FROM before",
        "SELECT id, v, p FROM before WHERE false");
  }

  @ParameterizedTest(name = "{0}, sort_order {1}")
  @CsvSource(
      delimiter = ';',
      value = {"copy-on-write; v DESC NULLS LAST", "merge-on-read; v DESC NULLS LAST",
        "merge-on-read; zorder(v, id)"})
  void sortedCompactionAfterDeletesKeepsLineage(String mode, String sortOrder) {
    String name =
        "lineage_rw.sorted_" + mode.replace('-', '_') + (sortOrder.startsWith("zorder") ? "_z" : "");
    String table = "floe." + name;
    sql("CREATE TABLE %s (id INT, v INT, p INT) USING iceberg PARTITIONED BY (bucket(2, id)) "
            + "TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='%s', 'write.update.mode'='%s')",
        table, mode, mode);
    for (int batch = 0; batch < 3; batch++) {
      sql("INSERT INTO %s SELECT id, id * 10, id %% 2 FROM range(%d, %d) t(id)",
          table, batch * 10, batch * 10 + 10);
    }
    sql("UPDATE %s SET v = -v WHERE id %% 3 = 0", table);
    sql("DELETE FROM %s WHERE id %% 7 = 0", table);

    capture(table);
    List<Row> result = sql("CALL floe.system.rewrite_data_files(table => '%s', strategy => 'sort', "
            + "sort_order => '%s', options => map('rewrite-all', 'true'))",
        name, sortOrder);
    assertThat(result.get(0).getInt(0)).as("rewritten data files").isPositive();
    assertAfter(
        table,
        name,
        "SELECT id, v, p, _row_id, _last_updated_sequence_number FROM before",
        "SELECT id, v, p FROM before WHERE false");
  }

  @ParameterizedTest(name = "format v{0}")
  @CsvSource({"2", "3"})
  void onlyFormatV3FilesOfRewritesStoreTheLineageColumns(int version) throws IOException {
    String name = "lineage_rw.stored_v" + version;
    String table = "floe." + name;
    sql("CREATE TABLE %s (id INT, v INT) USING iceberg TBLPROPERTIES ('format-version'='%d', "
            + "'write.update.mode'='copy-on-write', 'write.merge.mode'='merge-on-read')",
        table, version);
    sql("INSERT INTO %s SELECT id, id FROM range(0, 10) t(id)", table);
    Map<String, List<Integer>> appended = fieldIds(name);
    assertThat(appended.values()).as("appended files").allSatisfy(ids -> assertThat(ids).containsExactly(1, 2));

    sql("UPDATE %s SET v = -v WHERE id < 3", table);
    sql("MERGE INTO %s t USING (SELECT 5 AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 0",
        table);
    List<Integer> expected =
        version >= 3
            ? List.of(1, 2, MetadataColumns.ROW_ID.fieldId(),
                MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId())
            : List.of(1, 2);
    Map<String, List<Integer>> rewritten = fieldIds(name);
    rewritten.keySet().removeAll(appended.keySet());
    assertThat(rewritten).as("files of a copy-on-write UPDATE and a merge-on-read MERGE").hasSizeGreaterThan(1)
        .allSatisfy((location, ids) -> assertThat(ids).isEqualTo(expected));
    sql("CALL floe.system.rewrite_data_files(table => '%s', options => map('rewrite-all', 'true'))",
        name);
    assertThat(fieldIds(name)).as("compacted files").hasSize(1)
        .allSatisfy((location, ids) -> assertThat(ids).isEqualTo(expected));
  }

  /** The Parquet field ids of each data file's top-level columns, by the file's location. */
  private static Map<String, List<Integer>> fieldIds(String name) throws IOException {
    Map<String, List<Integer>> ids = new HashMap<>();
    for (DataFile file : dataFiles(icebergTable(spark, name))) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(new Path(file.location()), new Configuration()))) {
        ids.put(file.location(), reader.getFooter().getFileMetaData().getSchema().getFields().stream()
            .map(field -> field.getId().intValue())
            .toList());
      }
    }
    return ids;
  }

  /** The table's rows with their lineage, as a local view {@code before} (not read again). */
  private static void capture(String table) {
    Dataset<Row> rows = spark.sql(String.format(LINEAGE, table));
    spark.createDataFrame(rows.collectAsList(), rows.schema()).createOrReplaceTempView("before");
    nextRowIdBefore = nextRowId(table.substring("floe.".length()));
  }

  private static long nextRowIdBefore;

  /**
   * Checks the table after one step.
   *
   * @param kept the rows that were there before, with the lineage they must have now; a {@code
   *     %d} in it is the new snapshot's sequence number
   * @param inserted the new rows (id, v, p): each must have a row id the table never gave out
   *     before and the new snapshot's sequence number
   */
  private static void assertAfter(String table, String name, String kept, String inserted) {
    Snapshot snapshot = icebergTable(spark, name).currentSnapshot();
    long sequence = snapshot.sequenceNumber();
    List<String> expectedKept = canonicalRows(sql(kept, sequence));
    List<String> expectedInserted = canonicalRows(sql(inserted));

    List<String> after = bothPaths(spark, String.format(LINEAGE, table));
    assertThat(sql("SELECT count(*), count(DISTINCT _row_id), count(_row_id) FROM %s", table).get(0))
        .as("every row has a row id of its own after " + snapshot.operation())
        .satisfies(row -> assertThat(row.getLong(1)).isEqualTo(row.getLong(0)))
        .satisfies(row -> assertThat(row.getLong(2)).isEqualTo(row.getLong(0)));
    assertThat(canonicalRows(
            sql("SELECT a.id, a.v, a.p, a._row_id, a._last_updated_sequence_number FROM %s a "
                + "LEFT SEMI JOIN before b ON a.id = b.id", table)))
        .as("rows that were there before " + snapshot.operation())
        .isEqualTo(expectedKept);
    List<Row> fresh =
        sql("SELECT a.id, a.v, a.p, a._row_id, a._last_updated_sequence_number FROM %s a "
            + "LEFT ANTI JOIN before b ON a.id = b.id", table);
    assertThat(canonicalRows(
            sql("SELECT id, v, p FROM %s a LEFT ANTI JOIN before b ON a.id = b.id", table)))
        .as("inserted rows")
        .isEqualTo(expectedInserted);
    assertThat(fresh)
        .allSatisfy(row -> assertThat(row.getLong(3)).isGreaterThanOrEqualTo(nextRowIdBefore))
        .allSatisfy(row -> assertThat(row.getLong(4)).isEqualTo(sequence));
    assertThat(after).hasSize(expectedKept.size() + expectedInserted.size());
  }

  private static long nextRowId(String name) {
    Table table = icebergTable(spark, name);
    return ((HasTableOperations) table).operations().current().nextRowId();
  }
}
