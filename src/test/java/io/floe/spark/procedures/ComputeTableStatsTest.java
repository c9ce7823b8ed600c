package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.datasketches.memory.Memory;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinReader;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.util.Pair;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code compute_table_stats}: the Puffin file it sets on the table, one theta-sketch blob per
 * column whose {@code ndv} equals Spark's {@code count(DISTINCT)} over the same rows (exact below
 * the sketch's 4096 entries), and bad input.
 */
class ComputeTableStatsTest extends ProcedureTestBase {
  private static final String TABLE = "db.stats";

  @BeforeEach
  void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
    sql("CREATE TABLE %s.%s (id BIGINT, data STRING, ts TIMESTAMP, amount DECIMAL(10, 2), "
        + "tags ARRAY<STRING>) USING iceberg", CATALOG, TABLE);
    sql("INSERT INTO %s.%s SELECT id, CASE WHEN id %% 11 = 0 THEN NULL ELSE concat('v', "
        + "CAST(id %% 37 AS STRING)) END, timestamp_seconds(1700000000 + (id %% 250) * 60), "
        + "CAST(id %% 90 AS DECIMAL(10, 2)) / 4, array('x') FROM range(0, 1000)", CATALOG, TABLE);
    sql("INSERT INTO %s.%s SELECT id, 'late', NULL, NULL, NULL FROM range(500, 1500)",
        CATALOG, TABLE);
  }

  private static Map<Integer, Pair<Long, CompactSketch>> blobs(Table table, StatisticsFile file)
      throws Exception {
    Map<Integer, Pair<Long, CompactSketch>> byField = new HashMap<>();
    try (PuffinReader reader =
        Puffin.read(table.io().newInputFile(file.path())).withFileSize(file.fileSizeInBytes()).build()) {
      List<BlobMetadata> blobs = reader.fileMetadata().blobs();
      for (Pair<BlobMetadata, java.nio.ByteBuffer> blob : reader.readAll(blobs)) {
        assertThat(blob.first().type()).isEqualTo(StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1);
        java.nio.ByteBuffer bytes = blob.second();
        byte[] copy = new byte[bytes.remaining()];
        bytes.duplicate().get(copy);
        byField.put(
            blob.first().inputFields().get(0),
            Pair.of(Long.parseLong(blob.first().properties().get("ndv")),
                CompactSketch.wrap(Memory.wrap(copy))));
      }
    }
    return byField;
  }

  @Test
  void writesOneThetaSketchPerPrimitiveColumnWithSparksDistinctCounts() throws Exception {
    Dataset<Row> result = call("compute_table_stats('%s')", TABLE);

    assertSchema(result.schema(), column("statistics_file", DataTypes.StringType, true));
    String path = result.collectAsList().get(0).getString(0);
    Table table = icebergTable(TABLE);
    assertThat(table.statisticsFiles()).hasSize(1);
    StatisticsFile file = table.statisticsFiles().get(0);
    assertThat(file.path()).isEqualTo(path);
    assertThat(file.snapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
    Map<Integer, Pair<Long, CompactSketch>> blobs = blobs(table, file);
    assertThat(blobs.keySet()).containsExactlyInAnyOrder(1, 2, 3, 4);
    Row distinct =
        sql("SELECT count(DISTINCT id), count(DISTINCT data), count(DISTINCT ts), "
            + "count(DISTINCT amount) FROM %s.%s", CATALOG, TABLE).get(0);
    for (int field = 1; field <= 4; field++) {
      assertThat(blobs.get(field).first()).as("ndv of field %d", field)
          .isEqualTo(distinct.getLong(field - 1));
      assertThat((long) blobs.get(field).second().getEstimate()).isEqualTo(distinct.getLong(field - 1));
    }
  }

  @Test
  void columnsAndSnapshotIdSelectWhatIsComputed() throws Exception {
    Table before = icebergTable(TABLE);
    long first = before.snapshots().iterator().next().snapshotId();

    call("compute_table_stats(table => '%s', snapshot_id => %d, columns => array('data'))",
            TABLE, first)
        .collectAsList();

    Table table = icebergTable(TABLE);
    StatisticsFile file =
        table.statisticsFiles().stream().filter(f -> f.snapshotId() == first).findFirst().orElseThrow();
    Map<Integer, Pair<Long, CompactSketch>> blobs = blobs(table, file);
    assertThat(blobs.keySet()).containsExactly(2);
    long expected =
        spark.read().option("snapshot-id", String.valueOf(first)).table(CATALOG + "." + TABLE)
            .selectExpr("count(DISTINCT data)").collectAsList().get(0).getLong(0);
    assertThat(blobs.get(2).first()).isEqualTo(expected);
  }

  @Test
  void badInputFailsNamingIt() {
    assertThatThrownBy(
            () -> call("compute_table_stats(table => '%s', columns => array('tags'))", TABLE)
                .collectAsList())
        .hasMessageContaining("argument 'columns' names 'tags' of type list<string>");
    assertThatThrownBy(
            () -> call("compute_table_stats(table => '%s', columns => array('nope'))", TABLE)
                .collectAsList())
        .hasMessage(
            "Cannot call floe.system.compute_table_stats: argument 'columns' names 'nope', not a "
                + "column of floe.db.stats");
    assertThatThrownBy(
            () -> call("compute_table_stats(table => '%s', snapshot_id => 42)", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.compute_table_stats: argument 'snapshot_id' names no snapshot "
                + "of floe.db.stats: 42");
    assertThat(icebergTable(TABLE).statisticsFiles()).isEmpty();
  }
}
