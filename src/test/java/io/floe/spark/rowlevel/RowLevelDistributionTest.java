package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.RebalancePartitions;
import org.apache.spark.sql.catalyst.plans.logical.ReplaceData;
import org.apache.spark.sql.catalyst.plans.logical.RepartitionByExpression;
import org.apache.spark.sql.catalyst.plans.logical.Sort;
import org.apache.spark.sql.catalyst.plans.logical.WriteDelta;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.util.QueryExecutionListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The distribution and ordering a DELETE, UPDATE or MERGE asks Spark for, as the optimized plan of
 * the statement shows them (the repartition and local sort Spark puts under the row-level write),
 * for each command's distribution mode: the official runtime's defaults and its order of option,
 * session confs and command property. After each statement the table holds Spark's answer over a
 * view of the same rows, and each partition got the number of files the distribution implies.
 */
class RowLevelDistributionTest extends RowLevelTestBase {
  private static final String UNSORTED_PARTITIONED = "id INT, p INT, data STRING";
  // every file its own scan task, so that rows left in place are written by one task per file
  private static final String ONE_TASK_PER_FILE =
      "'read.split.target-size'='1', 'read.split.open-file-cost'='1'";
  private final PlanCapture capture = new PlanCapture();

  @BeforeEach
  void capturePlans() {
    spark.listenerManager().register(capture);
  }

  @AfterEach
  void stopCapturing() {
    spark.listenerManager().unregister(capture);
    spark.conf().unset("spark.sql.iceberg.distribution-mode");
    spark.conf().unset("spark.floe.write.distribution-mode");
    spark.conf().unset("spark.floe.write.use-table-distribution-and-ordering");
    spark.conf().unset("spark.sql.iceberg.advisory-partition-size");
  }

  /** Three inserts, each writing one file to partitions 0 and 1: six files of two rows. */
  private static void createPartitioned(String properties) {
    createInOneTaskEach(
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version'='2', " + ONE_TASK_PER_FILE
            + (properties.isEmpty() ? "" : ", " + properties) + ")");
  }

  /** Three inserts into an unpartitioned table: three files of four rows. */
  private static void createUnpartitioned(String properties) {
    createInOneTaskEach(
        "TBLPROPERTIES ('format-version'='2', " + ONE_TASK_PER_FILE
            + (properties.isEmpty() ? "" : ", " + properties) + ")");
  }

  private static void createInOneTaskEach(String clauses) {
    create(UNSORTED_PARTITIONED, clauses);
    for (String batch :
        List.of(
            "(1, 0, 'a'), (2, 1, 'b'), (3, 0, 'c'), (4, 1, 'd')",
            "(5, 0, 'e'), (6, 1, 'f'), (7, 0, 'g'), (8, 1, 'h')",
            "(9, 0, 'i'), (10, 1, 'j'), (11, 0, 'k'), (12, 1, 'l')")) {
      sql("INSERT INTO " + TABLE + " SELECT /*+ COALESCE(1) */ * FROM VALUES " + batch);
    }
    view("v", TABLE);
  }

  @Test
  void aCopyOnWriteDeleteIsClusteredByPartitionByDefaultEvenWhenInsertsAreNot() {
    // the insert's property does not apply to a DELETE, whose default is hash
    createPartitioned("'write.distribution-mode'='none'");

    sql("DELETE FROM " + TABLE + " WHERE id % 3 = 0");

    // no sort order: the fanout writer, and no sort by partition (the official runtime's choice)
    assertThat(capture.requirements()).isEqualTo(new Requirements("hash[p]", List.of()));
    assertTableIs("SELECT * FROM v WHERE NOT (id % 3 = 0)");
    assertThat(addedFilesPerPartition()).isEqualTo(Map.of("p=0", 1, "p=1", 1));
  }

  @Test
  void aCopyOnWriteDeleteWhoseScanReadEachPartitionInOneTaskSkipsTheShuffle() {
    // the default split size: each partition's three small files are read by one task
    createInOneTaskEach("PARTITIONED BY (p) TBLPROPERTIES ('format-version'='2')");

    sql("DELETE FROM " + TABLE + " WHERE id % 3 = 0");

    assertThat(capture.requirements()).isEqualTo(new Requirements("none", List.of()));
    assertTableIs("SELECT * FROM v WHERE NOT (id % 3 = 0)");
    // as the shuffle by partition would have it: one file per partition
    assertThat(addedFilesPerPartition()).isEqualTo(Map.of("p=0", 1, "p=1", 1));
  }

  @Test
  void noneLeavesTheRowsInTheTasksThatReadThem() {
    createPartitioned("'write.delete.distribution-mode'='none'");

    sql("DELETE FROM " + TABLE + " WHERE id % 3 = 0");

    assertThat(capture.requirements()).isEqualTo(new Requirements("none", List.of()));
    assertTableIs("SELECT * FROM v WHERE NOT (id % 3 = 0)");
    // four of the six files hold a deleted row; each is read and rewritten by its own task
    assertThat(addedFilesPerPartition()).isEqualTo(Map.of("p=0", 2, "p=1", 2));
  }

  @Test
  void rangeOrdersTheRowsByPartition() {
    createPartitioned("'write.update.distribution-mode'='range'");

    sql("UPDATE " + TABLE + " SET data = 'z' WHERE id % 3 = 0");

    assertThat(capture.requirements())
        .isEqualTo(new Requirements("range[p ASC NULLS FIRST]", List.of()));
    assertTableIs("SELECT id, p, CASE WHEN id % 3 = 0 THEN 'z' ELSE data END FROM v");
    assertThat(addedFilesPerPartition()).isEqualTo(Map.of("p=0", 1, "p=1", 1));
  }

  @Test
  void anUnpartitionedTableKeepsEachRewrittenFileWhole() {
    createUnpartitioned("");
    Map<Integer, String> fileBefore = fileOfEachId();

    sql("DELETE FROM " + TABLE + " WHERE id % 4 = 1");

    // nothing to cluster by: each task writes the rows of the files it read, with no shuffle
    assertThat(capture.requirements()).isEqualTo(new Requirements("none", List.of()));
    assertTableIs("SELECT * FROM v WHERE NOT (id % 4 = 1)");
    // the rows each old file kept are in one new file
    Map<String, Set<String>> newFilesOfOldFile = new TreeMap<>();
    fileOfEachId()
        .forEach(
            (id, file) ->
                newFilesOfOldFile.computeIfAbsent(fileBefore.get(id), old -> new HashSet<>()).add(file));
    assertThat(newFilesOfOldFile).hasSize(3);
    assertThat(newFilesOfOldFile.values()).allSatisfy(files -> assertThat(files).hasSize(1));

    // an UPDATE, whose rows may change partition, still asks for its clustering by file
    sql("UPDATE " + TABLE + " SET data = 'z' WHERE id = 2");

    assertThat(capture.requirements()).isEqualTo(new Requirements("hash[_file]", List.of()));
    assertTableIs("SELECT id, p, CASE WHEN id = 2 THEN 'z' ELSE data END FROM v WHERE NOT (id % 4 = 1)");
  }

  @Test
  void rangeOnAnUnpartitionedUnsortedTableOrdersByFileAndPosition() {
    createUnpartitioned("'write.delete.distribution-mode'='range'");

    sql("DELETE FROM " + TABLE + " WHERE id % 4 = 1");

    assertThat(capture.requirements())
        .isEqualTo(new Requirements("range[_file ASC NULLS FIRST, _pos ASC NULLS FIRST]", List.of()));
    assertTableIs("SELECT * FROM v WHERE NOT (id % 4 = 1)");
  }

  @Test
  void aSortedTableIsStillHashDistributedForUpdateAndSortedInEachTask() {
    createUnpartitioned("");
    icebergTable("db.t").replaceSortOrder().desc("id").commit();

    sql("UPDATE " + TABLE + " SET data = 'z' WHERE id % 4 = 1");

    assertThat(capture.requirements())
        .isEqualTo(new Requirements("hash[_file]", List.of("id DESC NULLS LAST")));
    assertTableIs("SELECT id, p, CASE WHEN id % 4 = 1 THEN 'z' ELSE data END FROM v");

    // a DELETE skips the shuffle, but each task still sorts its rows
    sql("DELETE FROM " + TABLE + " WHERE id % 4 = 2");

    assertThat(capture.requirements())
        .isEqualTo(new Requirements("none", List.of("id DESC NULLS LAST")));
    assertTableIs(
        "SELECT id, p, CASE WHEN id % 4 = 1 THEN 'z' ELSE data END FROM v WHERE NOT (id % 4 = 2)");
  }

  @Test
  void aCopyOnWriteMergeDefaultsToHashWhenPartitionedAndToTheInsertsModeOtherwise() {
    createPartitioned("");
    spark.sql("SELECT * FROM VALUES (2, 1, 'x'), (13, 0, 'n') AS s(id, p, data)").createOrReplaceTempView("s");
    String merge =
        "MERGE INTO " + TABLE + " t USING s ON t.id = s.id"
            + " WHEN MATCHED THEN UPDATE SET data = s.data WHEN NOT MATCHED THEN INSERT *";
    String expected =
        "SELECT v.id, v.p, coalesce(s.data, v.data) FROM v LEFT JOIN s ON v.id = s.id"
            + " UNION ALL SELECT * FROM s WHERE id NOT IN (SELECT id FROM v)";

    sql(merge);

    assertThat(capture.requirements()).isEqualTo(new Requirements("hash[p]", List.of()));
    assertTableIs(expected);

    sql("DROP TABLE " + TABLE);
    createUnpartitioned("'write.distribution-mode'='range'");
    sql(merge);
    // range without a sort order has nothing to order an unpartitioned table's rows by
    assertThat(capture.requirements()).isEqualTo(new Requirements("none", List.of()));
    assertTableIs(expected);

    sql("DROP TABLE " + TABLE);
    createUnpartitioned("");
    icebergTable("db.t").replaceSortOrder().asc("id").commit();
    sql(merge);
    assertThat(capture.requirements())
        .isEqualTo(new Requirements("range[id ASC NULLS FIRST]", List.of("id ASC NULLS FIRST")));
    assertTableIs(expected);
  }

  @Test
  void sessionConfsComeBeforeTheCommandsPropertyAndFloesBeforeTheOfficialOne() {
    createPartitioned("'write.delete.distribution-mode'='hash'");

    spark.conf().set("spark.sql.iceberg.distribution-mode", "none");
    sql("DELETE FROM " + TABLE + " WHERE id = 1");
    assertThat(capture.requirements().distribution()).isEqualTo("none");

    spark.conf().set("spark.floe.write.distribution-mode", "range");
    sql("DELETE FROM " + TABLE + " WHERE id = 2");
    assertThat(capture.requirements().distribution()).isEqualTo("range[p ASC NULLS FIRST]");

    assertTableIs("SELECT * FROM v WHERE id > 2");
  }

  @Test
  void mergeOnReadDeltasHonourTheSamePropertiesAndConfs() {
    createPartitioned(
        "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read',"
            + " 'write.update.distribution-mode'='range'");

    sql("DELETE FROM " + TABLE + " WHERE id = 1");
    assertThat(capture.requirements().distribution()).isEqualTo("hash[_spec_id, _partition]");

    sql("UPDATE " + TABLE + " SET data = 'z' WHERE id = 2");
    assertThat(capture.requirements().distribution())
        .isEqualTo("range[_spec_id ASC NULLS FIRST, _partition ASC NULLS FIRST, p ASC NULLS FIRST]");

    spark.conf().set("spark.sql.iceberg.distribution-mode", "none");
    sql("DELETE FROM " + TABLE + " WHERE id = 3");
    assertThat(capture.requirements().distribution()).isEqualTo("none");

    assertTableIs("SELECT id, p, CASE WHEN id = 2 THEN 'z' ELSE data END FROM v WHERE id NOT IN (1, 3)");
  }

  @Test
  void anUnknownModeFailsNamingTheCommandsProperty() {
    createPartitioned("'write.delete.distribution-mode'='random'");

    assertThatThrownBy(() -> sql("DELETE FROM " + TABLE + " WHERE id % 3 = 0"))
        .hasMessageContaining(
            "option 'distribution-mode' or table property 'write.delete.distribution-mode' must be"
                + " none, hash or range, not 'random'");
    assertTableIs("SELECT * FROM v");
  }

  @Test
  void aSortedPartitionedTableIsStillSortedByPartitionAndOrderAndItsFilesRecordTheOrder() {
    createPartitioned("");
    Table table = icebergTable("db.t");
    table.replaceSortOrder().asc("id").commit();
    int orderId = icebergTable("db.t").sortOrder().orderId();

    sql("DELETE FROM " + TABLE + " WHERE id % 3 = 0");

    assertThat(capture.requirements())
        .isEqualTo(new Requirements("hash[p]", List.of("p ASC NULLS FIRST", "id ASC NULLS FIRST")));
    assertTableIs("SELECT * FROM v WHERE NOT (id % 3 = 0)");
    assertThat(addedFilesPerPartition()).isEqualTo(Map.of("p=0", 1, "p=1", 1));
    Table after = icebergTable("db.t");
    assertThat(after.currentSnapshot().addedDataFiles(after.io()))
        .allSatisfy(file -> assertThat(file.sortOrderId()).isEqualTo(orderId));
  }

  @Test
  void aDeleteWithoutTheShuffleStillSortsEachTasksRowsAndItsFilesRecordTheOrder() {
    // the default split size: each partition's three files are read by one task
    createInOneTaskEach("PARTITIONED BY (p) TBLPROPERTIES ('format-version'='2')");
    icebergTable("db.t").replaceSortOrder().desc("id").commit();
    int orderId = icebergTable("db.t").sortOrder().orderId();

    sql("DELETE FROM " + TABLE + " WHERE id % 3 = 0");

    assertThat(capture.requirements())
        .isEqualTo(new Requirements("none", List.of("p ASC NULLS FIRST", "id DESC NULLS LAST")));
    assertTableIs("SELECT * FROM v WHERE NOT (id % 3 = 0)");
    assertThat(addedFilesPerPartition()).isEqualTo(Map.of("p=0", 1, "p=1", 1));
    Table after = icebergTable("db.t");
    assertThat(after.currentSnapshot().addedDataFiles(after.io()))
        .allSatisfy(file -> assertThat(file.sortOrderId()).isEqualTo(orderId));
    // each new file holds its rows in the table's order
    Set<String> added = new HashSet<>();
    after.currentSnapshot().addedDataFiles(after.io()).forEach(file -> added.add(file.location()));
    List<Row> files = sql("SELECT _file, collect_list(id) FROM " + TABLE + " GROUP BY _file");
    assertThat(files.stream().filter(row -> added.contains(row.getString(0)))).hasSize(2);
    for (Row row : files) {
      if (!added.contains(row.getString(0))) {
        continue;
      }
      List<Integer> ids = row.getList(1);
      List<Integer> sorted = new ArrayList<>(ids);
      sorted.sort(java.util.Comparator.reverseOrder());
      assertThat(ids).as("ids of %s", row.getString(0)).isEqualTo(sorted);
    }
  }

  @Test
  void withoutTheTablesDistributionAndOrderingSparkIsAskedForNothing() {
    createPartitioned(
        "'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read'");
    icebergTable("db.t").replaceSortOrder().asc("id").commit();
    spark.conf().set("spark.floe.write.use-table-distribution-and-ordering", "false");

    // copy-on-write DELETE: each task rewrites the file it read, in the order it read it
    sql("DELETE FROM " + TABLE + " WHERE id % 3 = 0");
    assertThat(capture.requirements()).isEqualTo(new Requirements("none", List.of()));
    assertThat(addedFilesPerPartition()).isEqualTo(Map.of("p=0", 2, "p=1", 2));
    Table afterDelete = icebergTable("db.t");
    // nothing sorted the rows, so no file claims the table's order
    assertThat(afterDelete.currentSnapshot().addedDataFiles(afterDelete.io()))
        .allSatisfy(file -> assertThat(file.sortOrderId()).isIn(null, 0));

    // merge-on-read UPDATE: deletes and new rows in any order
    sql("UPDATE " + TABLE + " SET data = 'z' WHERE id % 4 = 1");
    assertThat(capture.requirements()).isEqualTo(new Requirements("none", List.of()));

    assertTableIs(
        "SELECT id, p, CASE WHEN id % 4 = 1 THEN 'z' ELSE data END FROM v WHERE NOT (id % 3 = 0)");
  }

  @Test
  void theUseTableDistributionAndOrderingValueMustBeABoolean() {
    createPartitioned("");
    spark.conf().set("spark.floe.write.use-table-distribution-and-ordering", "maybe");

    assertThatThrownBy(() -> sql("DELETE FROM " + TABLE + " WHERE id % 3 = 0"))
        .hasMessageContaining("use-table-distribution-and-ordering");
    assertTableIs("SELECT * FROM v");
  }

  @Test
  void advisoryPartitionSizesAreTheOfficialRuntimesForDataAndForMergeOnReadDeletes() {
    createPartitioned("'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read'");
    // an LZ4 shuffle (Spark's default) holds a third of a zstd Parquet file's rows per byte
    long data = 3 * 128L * 1024 * 1024;
    long deletes = 3 * 32L * 1024 * 1024;

    sql("DELETE FROM " + TABLE + " WHERE id = 1");
    capture.requirements();
    assertThat(capture.advisory()).isEqualTo(deletes);

    sql("UPDATE " + TABLE + " SET data = 'z' WHERE id = 2");
    capture.requirements();
    assertThat(capture.advisory()).isEqualTo(data);

    // each copy-on-write DELETE reads two files of one partition in two tasks, so it shuffles
    sql("ALTER TABLE " + TABLE + " SET TBLPROPERTIES ('write.delete.mode'='copy-on-write')");
    sql("DELETE FROM " + TABLE + " WHERE id IN (3, 7)");
    capture.requirements();
    assertThat(capture.advisory()).isEqualTo(data);

    // the table property, then the session conf over it
    sql("ALTER TABLE " + TABLE + " SET TBLPROPERTIES ('write.spark.advisory-partition-size-bytes'='1000000')");
    sql("DELETE FROM " + TABLE + " WHERE id IN (4, 8)");
    capture.requirements();
    assertThat(capture.advisory()).isEqualTo(1_000_000L);
    spark.conf().set("spark.sql.iceberg.advisory-partition-size", "2000000");
    sql("DELETE FROM " + TABLE + " WHERE id IN (5, 9)");
    capture.requirements();
    assertThat(capture.advisory()).isEqualTo(2_000_000L);

    assertTableIs(
        "SELECT id, p, CASE WHEN id = 2 THEN 'z' ELSE data END FROM v"
            + " WHERE id NOT IN (1, 3, 7, 4, 8, 5, 9)");
  }

  @Test
  void aFormatThreeMergeOnReadDeleteAsksForItsVectorsSizeButNotLessThanSparks() {
    createInOneTaskEach(
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read', "
            + ONE_TASK_PER_FILE + ")");

    // deletion vectors do not compress: 32 MB, unless Spark's own size is larger (64 MB by default)
    sql("DELETE FROM " + TABLE + " WHERE id = 1");
    capture.requirements();
    assertThat(capture.advisory()).isEqualTo(64L << 20);

    spark.conf().set("spark.sql.adaptive.advisoryPartitionSizeInBytes", String.valueOf(16L << 20));
    try {
      sql("DELETE FROM " + TABLE + " WHERE id = 2");
      capture.requirements();
      assertThat(capture.advisory()).isEqualTo(32L << 20);
    } finally {
      spark.conf().unset("spark.sql.adaptive.advisoryPartitionSizeInBytes");
    }
    assertTableIs("SELECT * FROM v WHERE id NOT IN (1, 2)");
  }

  private static Map<Integer, String> fileOfEachId() {
    Map<Integer, String> files = new HashMap<>();
    for (Row row : sql("SELECT id, _file FROM " + TABLE)) {
      files.put(row.getInt(0), row.getString(1));
    }
    return files;
  }

  private static Map<String, Integer> addedFilesPerPartition() {
    Table table = icebergTable("db.t");
    Map<String, Integer> counts = new TreeMap<>();
    for (DataFile file : table.currentSnapshot().addedDataFiles(table.io())) {
      counts.merge(table.specs().get(file.specId()).partitionToPath(file.partition()), 1, Integer::sum);
    }
    return counts;
  }

  /**
   * What Spark put under a row-level write for its requirements: the repartition ({@code none},
   * {@code hash[...]} or {@code range[...]}) and the local sort, without expression ids.
   */
  record Requirements(String distribution, List<String> ordering) {}

  /** Keeps the requirements of the last row-level write that ran. */
  private static final class PlanCapture implements QueryExecutionListener {
    private volatile Requirements last;
    private volatile Long lastAdvisory;
    private Long advisoryOfLast;

    Requirements requirements() {
      try {
        spark.sparkContext().listenerBus().waitUntilEmpty();
      } catch (TimeoutException e) {
        throw new IllegalStateException("Spark's listeners did not catch up", e);
      }
      Requirements captured = last;
      advisoryOfLast = lastAdvisory;
      last = null;
      assertThat(captured).as("the requirements of the last row-level write").isNotNull();
      return captured;
    }

    /** The advisory partition size of the write {@link #requirements()} returned, or null. */
    Long advisory() {
      return advisoryOfLast;
    }

    @Override
    public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
      LogicalPlan write = find(qe.optimizedPlan());
      if (write != null) {
        LogicalPlan query =
            write instanceof ReplaceData replace ? replace.query() : ((WriteDelta) write).query();
        lastAdvisory = advisoryOf(query);
        last = of(query);
      }
    }

    @Override
    public void onFailure(String funcName, QueryExecution qe, Exception exception) {}

    /** The shuffle partition size the write asked Spark for, or null. */
    private static Long advisoryOf(LogicalPlan plan) {
      scala.Option<Object> size = null;
      if (plan instanceof RebalancePartitions rebalance) {
        size = rebalance.optAdvisoryPartitionSize();
      } else if (plan instanceof RepartitionByExpression repartition) {
        size = repartition.optAdvisoryPartitionSize();
      }
      if (size != null) {
        return size.isDefined() ? (Long) size.get() : null;
      }
      for (LogicalPlan child : CollectionConverters.asJava(plan.children())) {
        Long found = advisoryOf(child);
        if (found != null) {
          return found;
        }
      }
      return null;
    }

    private static LogicalPlan find(LogicalPlan plan) {
      if (plan instanceof ReplaceData || plan instanceof WriteDelta) {
        return plan;
      }
      for (LogicalPlan child : CollectionConverters.asJava(plan.children())) {
        LogicalPlan found = find(child);
        if (found != null) {
          return found;
        }
      }
      return null;
    }

    private static Requirements of(LogicalPlan query) {
      LogicalPlan node = query;
      List<String> ordering = List.of();
      if (node instanceof Sort sort && !sort.global()) {
        ordering = text(CollectionConverters.asJava(sort.order()));
        node = sort.child();
      }
      while (node instanceof Project project) {
        node = project.child();
      }
      String distribution = "none";
      List<Expression> keys = null;
      if (node instanceof RebalancePartitions rebalance) {
        keys = CollectionConverters.asJava(rebalance.partitionExpressions());
      } else if (node instanceof RepartitionByExpression repartition) {
        keys = CollectionConverters.asJava(repartition.partitionExpressions());
      }
      if (keys != null) {
        boolean range =
            keys.stream().allMatch(key -> key instanceof org.apache.spark.sql.catalyst.expressions.SortOrder);
        distribution = (range ? "range" : "hash") + text(keys);
      }
      return new Requirements(distribution, ordering);
    }

    private static List<String> text(List<? extends Expression> expressions) {
      List<String> texts = new ArrayList<>();
      for (Expression expression : expressions) {
        texts.add(expression.toString().replaceAll("#\\d+L?", ""));
      }
      return texts;
    }
  }
}
