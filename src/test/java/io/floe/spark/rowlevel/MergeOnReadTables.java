package io.floe.spark.rowlevel;

import static io.floe.spark.read.ReadTestSupport.canonicalRecords;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A merge-on-read table and the Spark temporary view it starts equal to, with the checks every
 * row-level test makes: the table's rows, read by Floe and by Iceberg's generic reader (which knows
 * nothing of Floe), equal the same change computed over the view; and its deletes, seen through
 * Iceberg's core API, are of the kind the format version asks for, one per data file.
 *
 * @param spark the session
 * @param name the table's name in the {@code floe} catalog, {@code <namespace>.<table>}
 * @param formatVersion 2 or 3
 */
record MergeOnReadTables(SparkSession spark, String name, int formatVersion) {
  /** The view of the rows the table starts with: {@code id INT, dep STRING, val INT}. */
  static final String VIEW = "mor_initial";

  /**
   * Creates the view (40 rows over departments a, b, c and NULL, three of them with a NULL id) and
   * the table with every row-level mode set to merge-on-read, filled from the view in two appends,
   * so that each partition holds two data files.
   *
   * @param partitioned whether the table is partitioned by {@code dep}
   * @param properties more table properties
   */
  static MergeOnReadTables create(
      SparkSession spark, String name, int formatVersion, boolean partitioned,
      Map<String, String> properties) {
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW " + VIEW + " AS"
            + " SELECT CAST(id AS INT) AS id,"
            + " CASE WHEN id % 7 = 0 THEN NULL ELSE element_at(array('a', 'b', 'c'), CAST(id % 3 + 1 AS INT)) END AS dep,"
            + " CAST(id * 10 AS INT) AS val, CAST(id / 20 AS INT) AS batch FROM range(0, 40)"
            + " UNION ALL SELECT NULL, 'a', 999, 0"
            + " UNION ALL SELECT NULL, 'b', 998, 1"
            + " UNION ALL SELECT NULL, NULL, 997, 1");
    Map<String, String> all = new HashMap<>(properties);
    all.put("format-version", String.valueOf(formatVersion));
    all.put("write.delete.mode", "merge-on-read");
    all.put("write.update.mode", "merge-on-read");
    all.put("write.merge.mode", "merge-on-read");
    StringBuilder props = new StringBuilder();
    all.forEach(
        (key, value) ->
            props.append(props.length() == 0 ? "" : ", ").append("'").append(key).append("' = '")
                .append(value).append("'"));
    spark.sql("DROP TABLE IF EXISTS floe." + name);
    spark.sql(
        "CREATE TABLE floe." + name + " (id INT, dep STRING, val INT) USING iceberg"
            + (partitioned ? " PARTITIONED BY (dep)" : "") + " TBLPROPERTIES (" + props + ")");
    for (int batch = 0; batch < 2; batch += 1) {
      spark.sql(
          "INSERT INTO floe." + name + " SELECT id, dep, val FROM " + VIEW + " WHERE batch = " + batch);
    }
    return new MergeOnReadTables(spark, name, formatVersion);
  }

  /** The table's name as SQL uses it. */
  String table() {
    return "floe." + name;
  }

  /** The Iceberg table, loaded fresh. */
  Table iceberg() {
    return icebergTable(spark, name);
  }

  /**
   * Asserts that the table holds exactly the rows of {@code expectedQuery} (a query over the view,
   * columns {@code id, dep, val}), read through Floe and through Iceberg's generic reader.
   */
  void assertRows(String expectedQuery) {
    List<String> expected = canonicalRows(spark.sql(expectedQuery).collectAsList());
    List<Row> floe = spark.sql("SELECT id, dep, val FROM " + table()).collectAsList();
    assertThat(canonicalRows(floe)).as("rows read by Floe").isEqualTo(expected);
    assertThat(genericRows()).as("rows read by Iceberg's generic reader").isEqualTo(expected);
  }

  /** The table's rows as Iceberg's generic reader (with its own delete handling) returns them. */
  List<String> genericRows() {
    try (CloseableIterable<Record> records = IcebergGenerics.read(iceberg()).build()) {
      return canonicalRecords(records, 3);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The live data files, by location, with the delete files that apply to each. */
  Map<String, List<DeleteFile>> deletesByDataFile() {
    Table table = iceberg();
    Map<String, List<DeleteFile>> deletes = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        deletes.put(task.file().location(), new ArrayList<>(task.deletes()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return deletes;
  }

  /** The locations of the live data files. */
  Set<String> dataFiles() {
    return new TreeSet<>(deletesByDataFile().keySet());
  }

  /**
   * Asserts that the deletes are of the format version's kind and at most one applies to each data
   * file: on v3 a deletion vector in a Puffin file naming that data file, on v2 a file-scoped
   * position-delete Parquet file. Returns how many data files have one.
   */
  int assertOneDeleteFilePerDataFile() {
    int withDeletes = 0;
    for (Map.Entry<String, List<DeleteFile>> entry : deletesByDataFile().entrySet()) {
      List<DeleteFile> deletes = entry.getValue();
      assertThat(deletes).as("deletes of %s", entry.getKey()).hasSizeLessThanOrEqualTo(1);
      for (DeleteFile delete : deletes) {
        withDeletes += 1;
        assertThat(delete.content()).isEqualTo(FileContent.POSITION_DELETES);
        assertThat(delete.format())
            .isEqualTo(formatVersion >= 3 ? FileFormat.PUFFIN : FileFormat.PARQUET);
        assertThat(ContentFileUtil.referencedDataFileLocation(delete)).isEqualTo(entry.getKey());
        if (formatVersion >= 3) {
          assertThat(delete.contentOffset()).isNotNull();
          assertThat(delete.contentSizeInBytes()).isNotNull();
        }
      }
    }
    return withDeletes;
  }
}
