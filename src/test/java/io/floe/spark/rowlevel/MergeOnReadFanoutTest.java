package io.floe.spark.rowlevel;

import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.ScanPlans;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Table;
import org.apache.spark.sql.execution.SortExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Merge-on-read writes with the fanout writers, the default (as in the official runtime): Spark
 * does not sort the delta rows by {@code _file} and {@code _pos}, so the delete writers get the
 * positions of many data files interleaved and out of order, and must still write exactly the
 * deleted rows, one delete file (v2, {@code delete-granularity=file}) or deletion vector (v3) per
 * data file, or one delete file per partition ({@code delete-granularity=partition}), as Iceberg's
 * generic reader reads them back. {@code fanout-enabled=false} brings the sort back.
 *
 * <p>The rows arrive out of position order because the data files hold the ids in hash order and
 * the DELETE joins on the id with a sort-merge join (broadcasts are off), which hands the write
 * rows in id order.
 */
class MergeOnReadFanoutTest extends SparkTestBase {
  private static final String VIEW = "fanout_rows";
  private static final String DOOMED = "fanout_doomed";
  private static final int ROWS = 3_000;
  private static final int APPENDS = 4;

  // the table name is not looked at: positionSorts reads the whole plan
  private final DeltaPlanCapture capture = new DeltaPlanCapture("fanout.");

  @BeforeAll
  static void createNamespaceAndViews() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.fanout");
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW " + VIEW + " AS SELECT CAST(id AS INT) AS id,"
            + " element_at(array('a', 'b', 'c'), CAST(id % 3 + 1 AS INT)) AS dep,"
            + " CAST(id * 10 AS INT) AS val, CAST(id % " + APPENDS + " AS INT) AS batch"
            + " FROM range(0, " + ROWS + ")");
    // a few hundred ids spread over every data file, too many to be a literal IN list
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW " + DOOMED + " AS SELECT CAST(id AS INT) AS id"
            + " FROM range(0, " + ROWS + ") WHERE id % 7 = 2 OR id % 11 = 5");
    // a sort-merge join: its output is in id order, not in the order of the rows in their files
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
  }

  @AfterAll
  static void restoreBroadcasts() {
    spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
  }

  @BeforeEach
  void listen() {
    capture.reset();
    spark.listenerManager().register(capture);
  }

  @AfterEach
  void stopListening() {
    spark.listenerManager().unregister(capture);
  }

  /** A merge-on-read table whose data files hold the view's ids in hash order, not id order. */
  private static MergeOnReadTables scrambled(
      String name, int formatVersion, boolean partitioned, String extraProperties) {
    sql("DROP TABLE IF EXISTS floe.fanout.%s", name);
    sql(
        "CREATE TABLE floe.fanout.%s (id INT, dep STRING, val INT) USING iceberg%s TBLPROPERTIES"
            + " ('format-version'='%d', 'write.delete.mode'='merge-on-read',"
            + " 'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read'%s)",
        name, partitioned ? " PARTITIONED BY (dep)" : "", formatVersion, extraProperties);
    for (int batch = 0; batch < APPENDS; batch += 1) {
      sql(
          "INSERT INTO floe.fanout.%s SELECT id, dep, val FROM %s WHERE batch = %d"
              + " ORDER BY hash(id)",
          name, VIEW, batch);
    }
    return new MergeOnReadTables(spark, "fanout." + name, formatVersion);
  }

  private static String remaining() {
    return "SELECT id, dep, val FROM " + VIEW + " WHERE id NOT IN (SELECT id FROM " + DOOMED + ")";
  }

  private static long doomedCount() {
    return sql("SELECT count(*) FROM " + DOOMED).get(0).getLong(0);
  }

  /** The sorts of the last delta write's plan that order rows by {@code _pos}. */
  private List<SortExec> positionSorts() {
    // query listeners hear of a statement on Spark's listener bus, after the statement returns
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listeners did not catch up", e);
    }
    return ScanPlans.nodes(capture.lastPlan(), false).stream()
        .filter(SortExec.class::isInstance)
        .map(SortExec.class::cast)
        .filter(sort -> sort.sortOrder().mkString(",").contains("_pos"))
        .toList();
  }

  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void unsortedDeletesOfManyFilesWriteOneDeleteFilePerDataFile(int formatVersion) {
    MergeOnReadTables t = scrambled("file_v" + formatVersion, formatVersion, false, "");
    Set<String> filesBefore = t.dataFiles();
    assertThat(filesBefore).hasSizeGreaterThanOrEqualTo(APPENDS);

    sql("DELETE FROM %s WHERE id IN (SELECT id FROM %s)", t.table(), DOOMED);

    assertThat(positionSorts()).as("sorts by _pos in the plan").isEmpty();
    t.assertRows(remaining());
    assertThat(t.dataFiles()).isEqualTo(filesBefore);
    // every data file holds doomed ids, and each gets exactly one delete file or vector
    assertThat(t.assertOneDeleteFilePerDataFile()).isEqualTo(filesBefore.size());
    assertThat(t.iceberg().currentSnapshot().summary().get("added-position-deletes"))
        .isEqualTo(String.valueOf(doomedCount()));
  }

  @Test
  void partitionGranularityWritesOneDeleteFilePerPartition() {
    MergeOnReadTables t =
        scrambled("partition_v2", 2, true, ", 'write.delete.granularity'='partition'");
    Set<String> filesBefore = t.dataFiles();

    sql("DELETE FROM %s WHERE id IN (SELECT id FROM %s)", t.table(), DOOMED);

    assertThat(positionSorts()).as("sorts by _pos in the plan").isEmpty();
    t.assertRows(remaining());
    assertThat(t.dataFiles()).isEqualTo(filesBefore);
    Table table = t.iceberg();
    Set<String> deleteFiles = new HashSet<>();
    Map<String, Set<String>> deleteFilesByPartition = new HashMap<>();
    table.newScan().planFiles().forEach(task -> {
      assertThat(task.deletes()).as("deletes of %s", task.file().location()).hasSize(1);
      DeleteFile delete = task.deletes().get(0);
      assertThat(delete.content()).isEqualTo(FileContent.POSITION_DELETES);
      deleteFiles.add(delete.location());
      deleteFilesByPartition
          .computeIfAbsent(task.file().partition().toString(), key -> new HashSet<>())
          .add(delete.location());
    });
    // the three departments, each with one delete file shared by its data files
    assertThat(deleteFilesByPartition).hasSize(3);
    assertThat(deleteFilesByPartition.values()).allSatisfy(files -> assertThat(files).hasSize(1));
    assertThat(deleteFiles).hasSize(3);
    assertThat(table.currentSnapshot().summary().get("added-position-deletes"))
        .isEqualTo(String.valueOf(doomedCount()));
  }

  @Test
  void fanoutDisabledSortsTheDeltaRowsByFileAndPosition() {
    MergeOnReadTables t =
        scrambled("sorted_v2", 2, false, ", 'write.spark.fanout.enabled'='false'");

    sql("DELETE FROM %s WHERE id IN (SELECT id FROM %s)", t.table(), DOOMED);

    assertThat(positionSorts()).as("sorts by _pos in the plan").hasSize(1);
    t.assertRows(remaining());
    t.assertOneDeleteFilePerDataFile();
  }

  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void unsortedUpdateMovingRowsAcrossPartitionsWritesEachRowOnce(int formatVersion) {
    MergeOnReadTables t = scrambled("update_v" + formatVersion, formatVersion, true, "");

    // doomed rows move to another department; their new versions reach the fanout data writer
    // in id order, across every partition
    sql(
        "UPDATE %s SET dep = CASE WHEN dep = 'a' THEN 'b' ELSE 'a' END, val = -val"
            + " WHERE id IN (SELECT id FROM %s)",
        t.table(), DOOMED);

    assertThat(positionSorts()).as("sorts by _pos in the plan").isEmpty();
    List<String> expected =
        canonicalRows(
            sql(
                "SELECT id, CASE WHEN d THEN CASE WHEN dep = 'a' THEN 'b' ELSE 'a' END ELSE dep END,"
                    + " CASE WHEN d THEN -val ELSE val END FROM (SELECT id, dep, val,"
                    + " id IN (SELECT id FROM %s) AS d FROM %s)",
                DOOMED, VIEW));
    assertThat(canonicalRows(sql("SELECT id, dep, val FROM %s", t.table())))
        .as("rows read by Floe")
        .isEqualTo(expected);
    assertThat(t.genericRows()).as("rows read by Iceberg's generic reader").isEqualTo(expected);
    t.assertOneDeleteFilePerDataFile();
  }
}
