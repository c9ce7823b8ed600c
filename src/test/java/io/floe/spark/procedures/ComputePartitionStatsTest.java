package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionStatistics;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code compute_partition_stats}: the statistics file is registered in the table metadata for the
 * snapshot asked for, and its per-partition record and file counts equal the ones Spark counts
 * over the same rows and Iceberg's files table; bad input writes nothing.
 */
class ComputePartitionStatsTest extends ProcedureTestBase {
  private static final String TABLE = "db.pstats";

  @BeforeEach
  void createPartitionedTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
    sql("CREATE TABLE %s.%s (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)", CATALOG, TABLE);
  }

  private static void insert(int from, int to) {
    sql(
        "INSERT INTO %s.%s SELECT id, CASE WHEN id %% 3 = 0 THEN 'a' WHEN id %% 3 = 1 THEN 'b' "
            + "ELSE NULL END FROM range(%d, %d)",
        CATALOG, TABLE, from, to);
  }

  /** Per partition value: {records (counted by Spark), files (planned by Iceberg)} at a snapshot. */
  private static Map<String, List<Long>> expectedCounts(long snapshotId) {
    Map<String, List<Long>> counts = new HashMap<>();
    List<Row> records =
        sql("SELECT cat, count(*) FROM %s.%s VERSION AS OF %d GROUP BY cat", CATALOG, TABLE, snapshotId);
    Map<String, Long> fileCounts = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        icebergTable(TABLE).newScan().useSnapshot(snapshotId).planFiles()) {
      tasks.forEach(task -> fileCounts.merge(task.file().partition().get(0, String.class), 1L, Long::sum));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (Row row : records) {
      counts.put(row.getString(0), List.of(row.getLong(1), fileCounts.get(row.getString(0))));
    }
    return counts;
  }

  private static Map<String, List<Long>> statsFileCounts(Table table, long snapshotId) throws IOException {
    Map<String, List<Long>> counts = new HashMap<>();
    try (CloseableIterable<PartitionStatistics> stats =
        table.newPartitionStatisticsScan().useSnapshot(snapshotId).scan()) {
      for (PartitionStatistics partition : stats) {
        counts.put(
            partition.partition().get(0, String.class),
            List.of(partition.dataRecordCount(), (long) partition.dataFileCount()));
      }
    }
    return counts;
  }

  @Test
  void writesAndRegistersTheStatsOfTheCurrentSnapshotWithSparksCounts() throws IOException {
    insert(0, 30);
    insert(30, 40);
    long current = icebergTable(TABLE).currentSnapshot().snapshotId();

    Dataset<Row> result = call("compute_partition_stats(table => '%s')", TABLE);

    assertSchema(result.schema(), column("partition_statistics_file", DataTypes.StringType, true));
    List<Row> rows = result.collectAsList();
    assertThat(rows).hasSize(1);
    Table table = icebergTable(TABLE);
    List<PartitionStatisticsFile> registered = table.partitionStatisticsFiles();
    assertThat(registered).hasSize(1);
    assertThat(registered.get(0).snapshotId()).isEqualTo(current);
    assertThat(registered.get(0).path()).isEqualTo(rows.get(0).getString(0));
    assertThat(table.io().newInputFile(registered.get(0).path()).exists()).isTrue();
    assertThat(statsFileCounts(table, current)).isEqualTo(expectedCounts(current)).hasSize(3);
    // registering statistics adds no snapshot
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(current);
  }

  @Test
  void computesTheStatsOfAnEarlierSnapshot() throws IOException {
    insert(0, 12);
    long first = icebergTable(TABLE).currentSnapshot().snapshotId();
    insert(12, 50);

    List<Row> rows = call("compute_partition_stats('%s', %d)", TABLE, first).collectAsList();

    Table table = icebergTable(TABLE);
    assertThat(table.partitionStatisticsFiles())
        .singleElement()
        .satisfies(file -> {
          assertThat(file.snapshotId()).isEqualTo(first);
          assertThat(file.path()).isEqualTo(rows.get(0).getString(0));
        });
    assertThat(statsFileCounts(table, first)).isEqualTo(expectedCounts(first));
  }

  @Test
  void aTableWithoutSnapshotsGivesNoRow() {
    assertThat(call("compute_partition_stats('%s')", TABLE).collectAsList()).isEmpty();
    assertThat(icebergTable(TABLE).partitionStatisticsFiles()).isEmpty();
  }

  @Test
  void anUnknownSnapshotOrAnUnpartitionedTableFailsAndWritesNothing() {
    insert(0, 10);
    String metadata = metadataFile(TABLE);
    assertThatThrownBy(() -> call("compute_partition_stats('%s', 12345)", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.compute_partition_stats: argument 'snapshot_id' names no "
                + "snapshot of table floe.db.pstats: 12345");
    assertThat(metadataFile(TABLE)).isEqualTo(metadata);

    createTable("db.flat");
    append("db.flat", 1);
    String flatMetadata = metadataFile("db.flat");
    assertThatThrownBy(() -> call("compute_partition_stats('db.flat')").collectAsList())
        .hasMessageContaining("table floe.db.flat is not partitioned");
    assertThat(metadataFile("db.flat")).isEqualTo(flatMetadata);
    assertThatThrownBy(() -> call("compute_partition_stats('db.missing')").collectAsList())
        .hasMessageContaining("table `floe`.`db`.`missing` does not exist");
  }

  private static String metadataFile(String name) {
    return ((HasTableOperations) icebergTable(name)).operations().current().metadataFileLocation();
  }
}
