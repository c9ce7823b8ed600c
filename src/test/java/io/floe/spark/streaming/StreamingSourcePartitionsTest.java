package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How the stream source spreads a micro-batch over Spark's tasks: as a batch scan of the same files
 * does (Spark's rule for file sources, the bytes over the task slots), not all small files in one
 * task. Each micro-batch's partition count and rows are recorded on the driver (foreachBatch).
 */
class StreamingSourcePartitionsTest extends SourceTestBase<Long> {
  @BeforeAll
  static void namespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.sp");
  }

  @BeforeEach
  void createSource() {
    sql("CREATE TABLE floe.sp.src (id BIGINT, data STRING) USING iceberg");
  }

  @Override
  List<String> tablesToDrop() {
    return List.of("floe.sp.src");
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

    Map<Long, List<Long>> batches = batches();
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

    Map<Long, List<Long>> batches = batches();
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

  /** Starts the stream; each micro-batch is recorded as its partition count, then its ids. */
  private StreamingQuery start(Trigger trigger, String... options) throws TimeoutException {
    return record(
        reader(options).table("floe.sp.src"),
        trigger,
        rows -> {
          List<Long> recorded = new ArrayList<>();
          recorded.add((long) rows.rdd().getNumPartitions());
          recorded.addAll(ids(rows));
          return recorded;
        });
  }

  private static List<Long> tableIds() {
    List<Long> ids = new ArrayList<>();
    for (Row row : spark.sql("SELECT id FROM floe.sp.src").collectAsList()) {
      ids.add(row.getLong(0));
    }
    return ids;
  }
}
