package io.floe.spark.read.plan;

import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeInputPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How the driver packs a scan's file tasks into task groups: balanced by bytes, the same every
 * time, split at row-group boundaries, sized from Spark's settings unless a read option, session
 * conf or table property says otherwise, and empty when nothing is left to read.
 */
class ScanGroupingTest extends SparkTestBase {
  private static final String EQUAL = "floe.grouping.equal";
  private static final int EQUAL_FILES = 24;

  @BeforeAll
  static void createTables() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.grouping");
    sql("CREATE TABLE %s (id BIGINT, data STRING) USING iceberg", EQUAL);
    sql(
        "INSERT INTO %s SELECT /*+ REPARTITION(%d) */ id, sha2(CAST(id AS STRING), 256)"
            + " FROM range(0, 24000)",
        EQUAL, EQUAL_FILES);
  }

  @AfterEach
  void resetConf() {
    spark.conf().unset("spark.floe.read.split-size");
    spark.conf().unset("spark.sql.files.maxPartitionBytes");
  }

  @Test
  void manyEqualFilesAreSpreadEvenlyOverTheGroups() {
    List<DataFile> files = dataFiles(icebergTable(spark, "grouping.equal"));
    assertThat(files).hasSize(EQUAL_FILES);
    long total = files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    long largestFile = files.stream().mapToLong(DataFile::fileSizeInBytes).max().orElseThrow();
    long splitSize = total / 5;

    Dataset<Row> df =
        spark.read()
            .option("split-size", String.valueOf(splitSize))
            .option("file-open-cost", "0")
            .table(EQUAL);
    List<FloeInputPartition> groups = floeScan(df).partitions();

    assertThat(groups).hasSize((int) ((total + splitSize - 1) / splitSize));
    double mean = (double) total / groups.size();
    for (FloeInputPartition group : groups) {
      assertThat((double) group.sizeInBytes())
          .as("bytes of group %d", group.index())
          .isLessThanOrEqualTo(mean + largestFile)
          .isLessThanOrEqualTo(mean * 1.2);
      assertThat(group.tasks()).hasSizeBetween(EQUAL_FILES / groups.size(), EQUAL_FILES / groups.size() + 1);
    }
    assertThat(df.count()).isEqualTo(24000);
    assertThat(df.rdd().getNumPartitions()).isEqualTo(groups.size());
  }

  @Test
  void aCopyOnWriteScanKeepsEachPartitionThatFitsAGroupInOneGroup() throws Exception {
    sql("CREATE TABLE floe.grouping.parts (id BIGINT, p INT, data STRING) USING iceberg"
        + " PARTITIONED BY (p)");
    // four inserts, each one file in each of six partitions; partition 5 gets three times the rows
    for (int batch = 0; batch < 4; batch++) {
      sql("INSERT INTO floe.grouping.parts SELECT /*+ COALESCE(1) */ id, CAST(least(id %% 8, 5) AS INT),"
          + " sha2(CAST(id AS STRING), 256) FROM range(%d, %d)", batch * 8000, (batch + 1) * 8000);
    }
    Table table = icebergTable(spark, "grouping.parts");
    List<FileScanTask> tasks = new ArrayList<>();
    try (var planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    }
    assertThat(tasks).hasSize(24);
    long total = TaskGrouping.totalWeight(tasks, 0);
    long heavy = TaskGrouping.totalWeight(
        tasks.stream().filter(task -> task.partition().get(0, Integer.class) == 5).toList(), 0);
    // every partition but the heavy one fits a group; the heavy one needs two
    long splitSize = heavy / 2 + heavy / 8;

    List<List<FileScanTask>> byFile =
        TaskGrouping.balance(tasks, splitSize, 0, TaskGrouping.TASK_ORDER);
    List<List<FileScanTask>> byPartition =
        TaskGrouping.balanceByPartition(tasks, splitSize, 0, TaskGrouping.TASK_ORDER);

    assertThat(byPartition).hasSameSizeAs(byFile).hasSize((int) ((total + splitSize - 1) / splitSize));
    assertThat(byPartition.stream().mapToInt(List::size).sum()).isEqualTo(24);
    assertThat(PartitionGroups.apart(byFile, table.spec().specId()))
        .as("tasks packed one by one spread partitions over groups")
        .isFalse();
    Map<Integer, Set<Integer>> groupsOfPartition = new HashMap<>();
    for (int group = 0; group < byPartition.size(); group++) {
      for (FileScanTask task : byPartition.get(group)) {
        groupsOfPartition
            .computeIfAbsent(task.partition().get(0, Integer.class), p -> new HashSet<>())
            .add(group);
      }
    }
    for (int p = 0; p < 5; p++) {
      assertThat(groupsOfPartition.get(p)).as("groups of partition %d", p).hasSize(1);
    }
    assertThat(groupsOfPartition.get(5)).hasSize(2);
    // a group that holds part of the heavy partition holds nothing else
    for (int group : groupsOfPartition.get(5)) {
      assertThat(byPartition.get(group))
          .allSatisfy(task -> assertThat(task.partition().get(0, Integer.class)).isEqualTo(5));
    }
    sql("DROP TABLE floe.grouping.parts");
  }

  @Test
  void theSamePlanTwiceGivesIdenticalGroupsInTheSameOrder() {
    Dataset<Row> first = spark.read().option("split-size", "30000").table(EQUAL);
    Dataset<Row> second = spark.read().option("split-size", "30000").table(EQUAL);

    List<FloeInputPartition> firstGroups = floeScan(first).partitions();
    List<FloeInputPartition> secondGroups = floeScan(second).partitions();
    assertThat(firstGroups).hasSizeGreaterThan(1).isEqualTo(secondGroups);
    assertThat(locations(firstGroups)).isEqualTo(locations(secondGroups));
    assertThat(floeScan(first)).isEqualTo(floeScan(second));
  }

  @Test
  void filesWithSeveralRowGroupsAreSplitAtRowGroupBoundaries() {
    sql(
        "CREATE TABLE floe.grouping.row_groups (id BIGINT, data STRING) USING iceberg TBLPROPERTIES ("
            + " 'write.parquet.row-group-size-bytes' = '8192',"
            + " 'write.parquet.row-group-check-min-record-count' = '10',"
            + " 'write.parquet.row-group-check-max-record-count' = '100')");
    sql(
        "INSERT INTO floe.grouping.row_groups SELECT /*+ COALESCE(1) */ id,"
            + " sha2(CAST(id AS STRING), 256) FROM range(0, 3000)");
    DataFile file = dataFiles(icebergTable(spark, "grouping.row_groups")).get(0);
    assertThat(file.splitOffsets()).hasSizeGreaterThan(4);
    Set<Long> boundaries = new HashSet<>(file.splitOffsets());
    boundaries.add(file.fileSizeInBytes());

    Dataset<Row> df =
        spark.read().option("split-size", String.valueOf(file.fileSizeInBytes() / 3)).table(
            "floe.grouping.row_groups");
    List<FloeInputPartition> groups = floeScan(df).partitions();
    List<FileScanTask> tasks = groups.stream()
            .flatMap(group -> group.tasks().stream())
            .map(ScanTask::asFileScanTask)
            .toList();

    assertThat(groups.size()).isGreaterThanOrEqualTo(3);
    assertThat(tasks.size()).isGreaterThanOrEqualTo(3).isLessThan(file.splitOffsets().size());
    for (FileScanTask task : tasks) {
      assertThat(task.start()).isIn(file.splitOffsets());
      assertThat(task.start() + task.length()).isIn(boundaries);
      assertThat(task.length()).isLessThanOrEqualTo(file.fileSizeInBytes() / 3);
    }
    assertThat(tasks.stream().mapToLong(FileScanTask::length).sum())
        .isEqualTo(file.fileSizeInBytes() - file.splitOffsets().get(0));
    assertThat(sql("SELECT count(*), count(DISTINCT id) FROM floe.grouping.row_groups"))
        .containsExactly(RowFactory.create(3000L, 3000L));
    assertThat(df.count()).isEqualTo(3000);
  }

  @Test
  void targetPartitionsSetsTheNumberOfGroups() {
    for (int target : new int[] {1, 3, 6}) {
      Dataset<Row> df =
          spark.read()
              .option("target-partitions", String.valueOf(target))
              .option("file-open-cost", "0")
              .table(EQUAL);
      assertThat(floeScan(df).partitions()).as("target-partitions=%d", target).hasSize(target);
      assertThat(df.count()).isEqualTo(spark.table(EQUAL).count());
    }
    assertThatThrownBy(() -> spark.read().option("target-partitions", "0").table(EQUAL).count())
        .hasMessageContaining("option 'target-partitions' must be positive, not 0");
  }

  @Test
  void withoutASplitSizeGroupsFollowSparkParallelismAndMaxPartitionBytes() {
    Dataset<Row> byParallelism = spark.table(EQUAL);
    assertThat(floeScan(byParallelism).partitions())
        .as("groups for spark.default.parallelism=2")
        .hasSize(2);

    spark.conf().set("spark.sql.files.maxPartitionBytes", String.valueOf(8L * 1024 * 1024));
    Dataset<Row> byMaxBytes = spark.table(EQUAL);
    // every small file weighs the 4 MB open cost, so 8 MB groups hold two files each
    assertThat(floeScan(byMaxBytes).partitions()).hasSize(EQUAL_FILES / 2);
    assertThat(byMaxBytes.count()).isEqualTo(24000);
  }

  @Test
  void threeGroupsForTwoSlotsBecomeTwoFullWavesOfFour() {
    // 24 files weigh the 4 MB open cost each: Spark's rule with 32 MB splits makes 3 groups, so
    // the third would run alone after the first two on the session's 2 slots
    spark.conf().set("spark.sql.files.maxPartitionBytes", String.valueOf(32L * 1024 * 1024));
    Dataset<Row> df = spark.table(EQUAL);
    List<FloeInputPartition> groups = floeScan(df).partitions();

    assertThat(groups).hasSize(4);
    for (FloeInputPartition group : groups) {
      assertThat(group.tasks()).as("files of group %d", group.index()).hasSize(EQUAL_FILES / 4);
    }
    assertThat(df.selectExpr("count(*)", "count(DISTINCT id)").collectAsList())
        .containsExactly(RowFactory.create(24000L, 24000L));
  }

  @Test
  void wholeWavesRoundsOnlyADerivedMultiGroupCountUpToTheSlots() {
    long mb = 1024L * 1024;
    assertThat(TaskGrouping.wholeWaves(32 * mb, 96 * mb, 2)).as("3 groups → 4").isEqualTo(24 * mb);
    assertThat(TaskGrouping.wholeWaves(10 * mb, 50 * mb, 4)).as("5 groups → 8").isEqualTo(
        (50 * mb + 7) / 8);
    assertThat(TaskGrouping.wholeWaves(8 * mb, 96 * mb, 2)).as("12 groups stay").isEqualTo(8 * mb);
    assertThat(TaskGrouping.wholeWaves(8 * mb, 5 * mb, 2)).as("one group stays").isEqualTo(8 * mb);
    assertThat(TaskGrouping.wholeWaves(32 * mb, 96 * mb, 1)).as("one slot").isEqualTo(32 * mb);

    // a configured split size is taken as it is
    spark.conf().set("spark.floe.read.split-size", String.valueOf(32L * 1024 * 1024));
    assertThat(floeScan(spark.table(EQUAL)).partitions()).hasSize(3);
  }

  @Test
  void readOptionBeatsSessionConfWhichBeatsTableProperty() {
    sql("CREATE TABLE floe.grouping.precedence (id BIGINT) USING iceberg"
        + " TBLPROPERTIES ('read.split.target-size' = '%d')", 8L * 1024 * 1024);
    sql("INSERT INTO floe.grouping.precedence SELECT /*+ REPARTITION(8) */ id FROM range(0, 800)");
    String table = "floe.grouping.precedence";

    assertThat(floeScan(spark.table(table)).partitions()).as("table property").hasSize(4);
    spark.conf().set("spark.floe.read.split-size", String.valueOf(16L * 1024 * 1024));
    assertThat(floeScan(spark.table(table)).partitions()).as("session conf").hasSize(2);
    Dataset<Row> withOption =
        spark.read().option("split-size", String.valueOf(64L * 1024 * 1024)).table(table);
    assertThat(floeScan(withOption).partitions()).as("read option").hasSize(1);
    assertThat(withOption.count()).isEqualTo(800);
  }

  @Test
  void aTableWithoutSnapshotsIsAnEmptyScanAndInsertingFromItCommitsNothing() {
    sql("CREATE TABLE floe.grouping.empty_source (id BIGINT, data STRING) USING iceberg");
    sql("CREATE TABLE floe.grouping.empty_target (id BIGINT, data STRING) USING iceberg");
    sql("INSERT INTO floe.grouping.empty_target VALUES (1, 'a')");
    Table target = icebergTable(spark, "grouping.empty_target");
    long snapshotBefore = target.currentSnapshot().snapshotId();

    Dataset<Row> df = spark.table("floe.grouping.empty_source");
    assertThat(floeScan(df).partitions()).isEmpty();
    assertThat(df.collectAsList()).isEmpty();
    sql("INSERT INTO floe.grouping.empty_target SELECT * FROM floe.grouping.empty_source");

    target.refresh();
    assertThat(target.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
    assertThat(sql("SELECT id, data FROM floe.grouping.empty_target"))
        .containsExactly(RowFactory.create(1L, "a"));
  }

  @Test
  void aFilterThatPrunesEveryFileIsAnEmptyScanAndInsertingFromItCommitsNothing() {
    sql(
        "CREATE TABLE floe.grouping.pruned (id BIGINT, category STRING) USING iceberg"
            + " PARTITIONED BY (category)");
    sql("INSERT INTO floe.grouping.pruned VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    sql("CREATE TABLE floe.grouping.pruned_target (id BIGINT, category STRING) USING iceberg");
    sql("INSERT INTO floe.grouping.pruned_target VALUES (9, 'z')");
    Table target = icebergTable(spark, "grouping.pruned_target");
    long snapshotBefore = target.currentSnapshot().snapshotId();

    Dataset<Row> df = spark.sql("SELECT * FROM floe.grouping.pruned WHERE category = 'nope'");
    assertThat(floeScan(df).partitions()).isEmpty();
    assertThat(df.collectAsList()).isEmpty();
    sql(
        "INSERT INTO floe.grouping.pruned_target"
            + " SELECT * FROM floe.grouping.pruned WHERE category = 'nope'");

    target.refresh();
    assertThat(target.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
    assertThat(sql("SELECT count(*) FROM floe.grouping.pruned_target"))
        .containsExactly(RowFactory.create(1L));
  }

  private static List<List<String>> locations(List<FloeInputPartition> groups) {
    List<List<String>> locations = new ArrayList<>();
    for (FloeInputPartition group : groups) {
      locations.add(group.tasks().stream()
              .map(ScanTask::asFileScanTask)
              .map(task -> task.file().location() + "@" + task.start())
              .toList());
    }
    return locations;
  }
}
