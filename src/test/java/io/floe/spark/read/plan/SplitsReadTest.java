package io.floe.spark.read.plan;

import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.fileRecords;
import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static io.floe.spark.read.ReadTestSupport.positionDeletes;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeScan;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Files with several row groups, read with a small split size, are split across several input
 * partitions, and every row is still read exactly once, with its true position in its file.
 */
class SplitsReadTest extends SparkTestBase {
  private static final String TABLE = "floe.splits.t";
  private static final long ROWS_PER_INSERT = 1500;

  @BeforeAll
  static void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.splits");
    sql(
        "CREATE TABLE %s (id BIGINT, data STRING) USING iceberg TBLPROPERTIES ("
            + " 'write.parquet.row-group-size-bytes' = '8192',"
            + " 'write.parquet.row-group-check-min-record-count' = '10',"
            + " 'write.parquet.row-group-check-max-record-count' = '100',"
            + " 'read.split.target-size' = '16384',"
            + " 'read.split.open-file-cost' = '1024')",
        TABLE);
    for (long start = 0; start < 2 * ROWS_PER_INSERT; start += ROWS_PER_INSERT) {
      sql(
          "INSERT INTO %s SELECT /*+ COALESCE(1) */ id, sha2(CAST(id AS STRING), 256) FROM range(%d, %d)",
          TABLE, start, start + ROWS_PER_INSERT);
    }
  }

  @Test
  void filesHaveSeveralRowGroupsAndAreSplitAcrossInputPartitions() {
    List<DataFile> files = dataFiles(icebergTable(spark, "splits.t"));
    assertThat(files).hasSize(2);
    for (DataFile file : files) {
      assertThat(file.splitOffsets()).as("row groups of %s", file.location()).hasSizeGreaterThan(3);
    }

    Dataset<Row> df = spark.sql("SELECT * FROM " + TABLE);
    FloeScan scan = floeScan(df);
    List<FileScanTask> tasks =
        scan.partitions().stream()
            .flatMap(p -> p.tasks().stream())
            .map(ScanTask::asFileScanTask)
            .toList();
    assertThat(tasks.size()).isGreaterThan(files.size());
    assertThat(tasks).anyMatch(task -> task.start() > 0);
    assertThat(scan.partitions().size()).isGreaterThan(2);
    assertThat(df.rdd().getNumPartitions()).isEqualTo(scan.partitions().size());
  }

  @Test
  void everyRowIsReadExactlyOnce() {
    long total = 2 * ROWS_PER_INSERT;
    assertThat(sql("SELECT count(*), count(DISTINCT id), sum(id), min(id), max(id) FROM %s", TABLE))
        .containsExactly(RowFactory.create(total, total, total * (total - 1) / 2, 0L, total - 1));
    assertThat(sql("SELECT count(*) FROM %s WHERE data <> sha2(CAST(id AS STRING), 256)", TABLE))
        .containsExactly(RowFactory.create(0L));
  }

  @Test
  void rowPositionsAreExactAcrossSplits() {
    Table table = icebergTable(spark, "splits.t");
    Map<String, List<Record>> records = new HashMap<>();
    dataFiles(table).forEach(file -> records.put(file.location(), fileRecords(table, file)));
    Map<String, TreeSet<Long>> positions = new HashMap<>();
    Map<String, Long> rowsSeen = new HashMap<>();
    for (Row row : sql("SELECT _file, _pos, id FROM %s", TABLE)) {
      positions.computeIfAbsent(row.getString(0), f -> new TreeSet<>()).add(row.getLong(1));
      rowsSeen.merge(row.getString(0), 1L, Long::sum);
      assertThat(records.get(row.getString(0)).get((int) row.getLong(1)).getField("id"))
          .isEqualTo(row.getLong(2));
    }
    for (DataFile file : dataFiles(table)) {
      long count = file.recordCount();
      assertThat(rowsSeen.get(file.location())).isEqualTo(count);
      assertThat(positions.get(file.location()))
          .containsExactlyElementsOf(LongStream.range(0, count).boxed().toList());
    }
  }

  @Test
  void filteredReadOverSplitsReturnsExactlyTheMatchingRows() {
    List<Row> rows = sql("SELECT id FROM %s WHERE id BETWEEN 1234 AND 2345 ORDER BY id", TABLE);

    assertThat(rows.stream().map(r -> r.getLong(0)).toList())
        .containsExactlyElementsOf(LongStream.rangeClosed(1234, 2345).boxed().toList());
  }

  @Test
  void splitSizeReadOptionOverridesTheTableProperty() {
    Dataset<Row> whole =
        spark.read().option("split-size", String.valueOf(64L * 1024 * 1024)).table(TABLE);
    Dataset<Row> split = spark.table(TABLE);

    assertThat(floeScan(whole).partitions()).hasSize(1);
    assertThat(floeScan(split).partitions().size()).isGreaterThan(1);
    assertThat(whole.count()).isEqualTo(2 * ROWS_PER_INSERT);
  }

  @Test
  void positionDeletesApplyInEverySplitOfAFile() {
    sql(
        "CREATE TABLE floe.splits.deletes (id BIGINT, data STRING) USING iceberg TBLPROPERTIES ("
            + " 'format-version' = '2',"
            + " 'write.parquet.row-group-size-bytes' = '8192',"
            + " 'write.parquet.row-group-check-min-record-count' = '10',"
            + " 'write.parquet.row-group-check-max-record-count' = '100',"
            + " 'read.split.target-size' = '16384')");
    sql(
        "INSERT INTO floe.splits.deletes SELECT /*+ COALESCE(1) */ id, sha2(CAST(id AS STRING), 256)"
            + " FROM range(1500)");
    Table table = icebergTable(spark, "splits.deletes");
    DataFile file = dataFiles(table).get(0);
    List<Record> records = fileRecords(table, file);
    List<Long> positions = LongStream.range(0, records.size()).filter(pos -> pos % 97 == 0).boxed().toList();
    table.newRowDelta().addDeletes(positionDeletes(table, file, positions)).commit();

    Dataset<Row> df = spark.sql("SELECT _pos, id FROM floe.splits.deletes");
    assertThat(floeScan(df).partitions().size()).isGreaterThan(1);
    List<Row> rows = df.collectAsList();
    assertThat(rows).hasSize(records.size() - positions.size());
    TreeSet<Long> seen = new TreeSet<>();
    for (Row row : rows) {
      assertThat(seen.add(row.getLong(0))).as("position %d read once", row.getLong(0)).isTrue();
      assertThat(row.getLong(0) % 97).isNotZero();
      assertThat(row.getLong(1)).isEqualTo(records.get((int) row.getLong(0)).getField("id"));
    }
  }
}
