package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How the stream source spreads a micro-batch over Spark's tasks: as a batch scan of the same files
 * does (Spark's rule for file sources, the bytes over the task slots), not all small files in one
 * task. Each micro-batch's partition count and rows are recorded on the driver (foreachBatch).
 */
class StreamingSourcePartitionsTest extends SparkTestBase {
  // run -> micro-batch id -> [partition count, ids...]
  private static final Map<String, Map<Long, List<Long>>> BATCHES = new ConcurrentHashMap<>();

  private Path checkpoints;
  private String run;

  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.sp");
  }

  @BeforeEach
  void setUp() throws IOException {
    checkpoints = Files.createTempDirectory("floe-source-partitions");
    run = checkpoints.getFileName().toString();
    BATCHES.put(run, new TreeMap<>());
    sql("CREATE TABLE floe.sp.src (id BIGINT, data STRING) USING iceberg");
  }

  @AfterEach
  void tearDown() throws IOException, TimeoutException {
    for (StreamingQuery query : spark.streams().active()) {
      query.stop();
    }
    sql("DROP TABLE IF EXISTS floe.sp.src");
    deleteRecursively(checkpoints);
    BATCHES.remove(run);
  }

  @Test
  void microBatchOfSmallFilesIsSpreadOverTheTaskSlotsAsABatchScanIs()
      throws TimeoutException, StreamingQueryException {
    // six snapshots of one small file each: Iceberg's 128 MB split size alone packs them into one task
    for (int snapshot = 0; snapshot < 6; snapshot++) {
      append(snapshot * 1000L, (snapshot + 1) * 1000L);
    }
    int batchPartitions = spark.table("floe.sp.src").rdd().getNumPartitions();

    StreamingQuery query = start(Trigger.AvailableNow());
    query.awaitTermination();

    Map<Long, List<Long>> batches = new TreeMap<>(BATCHES.get(run));
    assertThat(batches).hasSize(1);
    List<Long> recorded = batches.values().iterator().next();
    long streamPartitions = recorded.get(0);
    assertThat(streamPartitions)
        .isEqualTo(batchPartitions)
        .isEqualTo(spark.sparkContext().defaultParallelism());
    assertThat(recorded.subList(1, recorded.size()))
        .containsExactlyInAnyOrderElementsOf(tableIds());
  }

  @Test
  void filesPerMicroBatchLimitStillEndsEachBatchWhateverTheGrouping()
      throws TimeoutException, StreamingQueryException {
    for (int snapshot = 0; snapshot < 4; snapshot++) {
      append(snapshot * 100L, (snapshot + 1) * 100L);
    }

    StreamingQuery query = start(Trigger.AvailableNow(), "streaming-max-files-per-micro-batch", "2");
    query.awaitTermination();

    Map<Long, List<Long>> batches = new TreeMap<>(BATCHES.get(run));
    assertThat(batches).hasSize(2);
    List<Long> all = new ArrayList<>();
    for (List<Long> recorded : batches.values()) {
      assertThat(recorded.get(0)).isBetween(1L, 2L);
      assertThat(recorded.size() - 1).isEqualTo(200);
      all.addAll(recorded.subList(1, recorded.size()));
    }
    assertThat(all).containsExactlyInAnyOrderElementsOf(tableIds());
  }

  /** Appends ids [from, to) as one snapshot of one data file. */
  private static void append(long from, long to) {
    Dataset<Row> rows =
        spark.range(from, to).selectExpr("id", "CAST(id AS STRING) AS data").coalesce(1);
    try {
      rows.writeTo("floe.sp.src").append();
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IllegalStateException(e);
    }
  }

  private StreamingQuery start(Trigger trigger, String... options) throws TimeoutException {
    var reader = spark.readStream();
    for (int i = 0; i < options.length; i += 2) {
      reader = reader.option(options[i], options[i + 1]);
    }
    String key = run;
    VoidFunction2<Dataset<Row>, Long> record =
        (rows, batchId) -> {
          List<Long> recorded = new ArrayList<>();
          recorded.add((long) rows.rdd().getNumPartitions());
          for (Row row : rows.collectAsList()) {
            recorded.add(row.getLong(0));
          }
          BATCHES.get(key).put(batchId, recorded);
        };
    return reader.table("floe.sp.src").writeStream()
        .option("checkpointLocation", checkpoints.resolve("q").toString())
        .trigger(trigger)
        .foreachBatch(record)
        .start();
  }

  private static List<Long> tableIds() {
    List<Long> ids = new ArrayList<>();
    for (Row row : spark.sql("SELECT id FROM floe.sp.src").collectAsList()) {
      ids.add(row.getLong(0));
    }
    return ids;
  }
}
