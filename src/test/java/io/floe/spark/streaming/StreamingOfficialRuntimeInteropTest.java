package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.read.OfficialRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The official runtime ({@code iceberg-spark-runtime-4.1_2.13}, in a JVM of its own over the same
 * warehouse) reads a table whose epochs Floe's sink committed through the manifest it writes on
 * the driver ({@link EpochManifest}): a batch read sees the rows the stream sent, and the runtime's
 * own stream source reads every epoch's rows exactly once, one micro-batch per epoch, in order.
 */
class StreamingOfficialRuntimeInteropTest extends SinkTestBase {
  private static final int EPOCHS = 3;

  @Override
  List<String> tablesToDrop() {
    return List.of("floe.oi.t");
  }

  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.oi");
  }

  @Test
  void officialRuntimeReadsEachEpochOfFloesSinkOnce() throws Exception {
    assertThat(OfficialRuntime.RUNTIME_JAR).as("the official runtime jar the build copies").exists();
    sql("CREATE TABLE floe.oi.t (id BIGINT, data STRING) USING iceberg"
        + " TBLPROPERTIES ('format-version' = '2')");
    StreamingQuery query =
        input.toDF().toDF("id", "data").writeStream().outputMode("append")
            .option("checkpointLocation", checkpoints.resolve("sink").toString())
            .toTable("floe.oi.t");
    List<List<String>> epochs = new ArrayList<>();
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
      int before = sent.size();
      send(5 + epoch, 2);
      query.processAllAvailable();
      List<String> rows = new ArrayList<>();
      sent.subList(before, sent.size()).forEach(row -> rows.add(row._1() + "|" + row._2()));
      rows.sort(null);
      epochs.add(rows);
    }
    query.stop();

    // the precondition: one snapshot per epoch, each of one data file in the sink's own manifest
    Table table = StreamTables.load(warehouse, "oi", "t");
    List<Snapshot> snapshots = StreamTables.ancestry(table, null);
    assertThat(snapshots).hasSize(EPOCHS);
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
      Snapshot snapshot = snapshots.get(epoch);
      assertThat(snapshot.summary())
          .containsEntry("spark.sql.streaming.epochId", String.valueOf(epoch))
          .containsEntry(SnapshotSummary.ADDED_FILES_PROP, "1");
      List<ManifestFile> own = new ArrayList<>();
      for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
        if (manifest.snapshotId() == snapshot.snapshotId()) {
          own.add(manifest);
        }
      }
      assertThat(own).hasSize(1);
    }

    Path readCheckpoint = checkpoints.resolve("official-read");
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.sql.catalog.off", "org.apache.iceberg.spark.SparkCatalog");
    conf.put("spark.sql.catalog.off.type", "hadoop");
    conf.put("spark.sql.catalog.off.warehouse", warehouse.toUri().toString());
    List<String> printed =
        OfficialRuntime.printedRows(
            OfficialStreamReadApp.class, conf, "off.oi.t", readCheckpoint.toString());

    List<String> tableRows = new ArrayList<>();
    Map<Long, List<String>> batches = new TreeMap<>();
    for (String line : printed) {
      String[] fields = line.split("\\|", 2);
      if (fields[0].equals("table")) {
        tableRows.add(fields[1]);
      } else {
        String[] batch = fields[1].split("\\|", 2);
        batches.computeIfAbsent(Long.parseLong(batch[0]), id -> new ArrayList<>()).add(batch[1]);
      }
    }
    tableRows.sort(null);
    List<String> expected = new ArrayList<>();
    for (Row row : sentRows().collectAsList()) {
      expected.add(row.getLong(0) + "|" + row.getString(1));
    }
    expected.sort(null);
    assertThat(tableRows).as("the official runtime's batch read").isEqualTo(expected);

    assertThat(batches).as("one micro-batch of the official stream source per epoch").hasSize(EPOCHS);
    List<List<String>> read = new ArrayList<>();
    for (List<String> rows : batches.values()) {
      List<String> sorted = new ArrayList<>(rows);
      sorted.sort(null);
      read.add(sorted);
    }
    assertThat(read).as("each epoch's rows, once, in commit order").isEqualTo(epochs);
  }
}
