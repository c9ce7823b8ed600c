package io.floe.spark.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The {@code streaming} scenario of the side-by-side benchmark (issue 28): Structured Streaming's
 * sink and micro-batch source, through Spark's public API only, so the same class runs in every
 * engine's JVM.
 *
 * <p>Sink: a {@code MemoryStream} query with {@code Trigger.ProcessingTime(0)} appends {@link
 * #WARMUP} + {@link #EPOCHS} epochs of {@link #ROWS} rows each ({@code id bigint, data string}),
 * one epoch at a time ({@code processAllAvailable} after each), into a fresh unpartitioned table
 * {@code bench.stream.sink_<engine>} (dropped and created untimed; the {@code parquet} engine writes
 * Spark's own Parquet file sink into a folder of the warehouse instead). The first {@link #WARMUP}
 * epochs are not counted (class loading, JIT). Timed, one {@code RESULT} line each:
 *
 * <ul>
 *   <li>{@code stream-sink}: the median wall time of one epoch, from adding its rows to the end of
 *       {@code processAllAvailable}: what a stream's latency sees;
 *   <li>{@code stream-sink-addbatch}: the median of Spark's {@code addBatch} phase of the epochs
 *       (the write tasks and the sink's commit, without the offset and commit logs Spark writes per
 *       epoch whatever the sink);
 * </ul>
 *
 * both with the answer {@code <rows>,<sum of ids>} read back from the table, {@code files} the data
 * files it holds and {@code cpuS} the process CPU of the counted epochs. A table without exactly one
 * snapshot per epoch fails the scenario.
 *
 * <p>The {@code parquet} engine also runs the same epochs into Spark's {@code noop} sink, which
 * writes nothing: {@code stream-sink-noop} and {@code stream-sink-noop-addbatch}, the floor every
 * sink's epoch stands on (Spark's offset and commit logs, planning and running the micro-batch);
 * their answer is the rows fed.
 *
 * <p>Source: {@code stream-source}, a {@code readStream} of the table the sink just wrote (one
 * snapshot of {@link #ROWS} rows per epoch) with {@code Trigger.AvailableNow()} into Spark's memory
 * sink, timed from start to termination; the answer is the rows and the sum of ids the memory sink
 * holds.
 */
final class StreamingScenario {
  /** Counted epochs: 40 at quick scale, 20 at full scale. */
  static final int EPOCHS = Integer.getInteger("bench.stream.epochs", 40);
  /** Epochs run first and not counted. */
  static final int WARMUP = Integer.getInteger("bench.stream.warmup", 10);
  /** Rows of each epoch: 1,000 at quick scale, 50,000 at full scale (1M counted rows). */
  static final int ROWS = Integer.getInteger("bench.stream.rows", 1000);

  private StreamingScenario() {}

  static void run(SparkSession spark, String engine, String warehouse, BenchMain.HeapWatch heap)
      throws IOException {
    try {
      runQueries(spark, engine, warehouse, heap);
    } catch (TimeoutException | StreamingQueryException e) {
      throw new IllegalStateException("Cannot run the streaming scenario for " + engine, e);
    }
  }

  private static void runQueries(
      SparkSession spark, String engine, String warehouse, BenchMain.HeapWatch heap)
      throws IOException, TimeoutException, StreamingQueryException {
    Path work = Files.createTempDirectory("floe-bench-stream-" + engine);
    boolean files = engine.equals("parquet");
    String table = "bench.stream.sink_" + engine;
    String folder = warehouse + "/stream/parquet_sink";
    if (files) {
      deleteFolder(spark, folder);
    } else {
      spark.sql("CREATE NAMESPACE IF NOT EXISTS bench.stream");
      spark.sql("DROP TABLE IF EXISTS " + table);
      spark.sql("CREATE TABLE " + table + " (id bigint, data string) USING iceberg");
    }

    Epochs sink =
        epochs(
            spark, work.resolve("sink-checkpoint"), heap,
            writer -> files ? writer.format("parquet").option("path", folder).start() : writer.toTable(table));
    String heapUse = sink.heapUse();

    Row totals =
        (files ? spark.read().parquet(folder) : spark.table(table))
            .selectExpr("count(*)", "sum(id)")
            .first();
    String answer = totals.getLong(0) + "," + totals.get(1);
    String written;
    if (files) {
      written = Integer.toString(spark.read().parquet(folder).inputFiles().length);
    } else {
      long snapshots = spark.sql("SELECT count(*) FROM " + table + ".snapshots").first().getLong(0);
      if (snapshots != WARMUP + EPOCHS) {
        throw new IllegalStateException(
            "Cannot report the streaming scenario: " + table + " has " + snapshots
                + " snapshots for " + (WARMUP + EPOCHS) + " epochs");
      }
      written = Long.toString(spark.sql("SELECT count(*) FROM " + table + ".files").first().getLong(0));
    }
    BenchMain.printResult("stream-sink", engine, median(sink.wall()), answer, written, heapUse);
    BenchMain.printResult(
        "stream-sink-addbatch", engine, median(sink.addBatch()), answer, written, heapUse);
    if (files) {
      // the floor of any sink: the same epochs into Spark's noop sink, which writes nothing
      Epochs noop =
          epochs(spark, work.resolve("noop-checkpoint"), heap, writer -> writer.format("noop").start());
      String fed = Long.toString((long) ROWS * (WARMUP + EPOCHS));
      BenchMain.printResult("stream-sink-noop", engine, median(noop.wall()), fed, "0", noop.heapUse());
      BenchMain.printResult(
          "stream-sink-noop-addbatch", engine, median(noop.addBatch()), fed, "0", noop.heapUse());
    }

    // the source: every snapshot the sink committed, in one run of AvailableNow
    String memoryTable = "stream_source_" + engine;
    var reader = spark.readStream();
    var rows =
        files
            ? reader.schema(
                    new StructType()
                        .add("id", DataTypes.LongType)
                        .add("data", DataTypes.StringType))
                .parquet(folder)
            : reader.table(table);
    heap.start();
    long start = System.nanoTime();
    StreamingQuery reading =
        rows.writeStream()
            .format("memory")
            .queryName(memoryTable)
            .trigger(Trigger.AvailableNow())
            .option("checkpointLocation", work.resolve("source-checkpoint").toString())
            .start();
    reading.awaitTermination();
    double seconds = (System.nanoTime() - start) / 1e9;
    String readHeap = heap.stop();
    Row read = spark.sql("SELECT count(*), sum(id) FROM " + memoryTable).first();
    BenchMain.printResult(
        "stream-source", engine, seconds, read.getLong(0) + "," + read.get(1), written, readHeap);
  }

  /** What the counted epochs of one sink query took: seconds of wall and of addBatch, and heap use. */
  private record Epochs(List<Double> wall, List<Double> addBatch, String heapUse) {}

  /**
   * Runs {@link #WARMUP} + {@link #EPOCHS} epochs of {@link #ROWS} rows each through the query that
   * {@code start} makes of a MemoryStream's writer, one epoch at a time, and stops it.
   */
  private static Epochs epochs(
      SparkSession spark,
      Path checkpoint,
      BenchMain.HeapWatch heap,
      SinkStart start)
      throws TimeoutException {
    Map<Long, Long> addBatch = new ConcurrentHashMap<>();
    StreamingQueryListener listener = new AddBatchListener(addBatch);
    spark.streams().addListener(listener);
    MemoryStream<Long> input = MemoryStream.apply(Encoders.LONG(), spark.sqlContext());
    DataStreamWriter<Row> writer =
        input.toDF().selectExpr("value AS id", "concat('row-', CAST(value AS string)) AS data")
            .writeStream()
            .outputMode("append")
            .trigger(Trigger.ProcessingTime(0))
            .option("checkpointLocation", checkpoint.toString());
    StreamingQuery query = start.start(writer);

    List<Double> wall = new ArrayList<>();
    long next = 0;
    for (int epoch = 0; epoch < WARMUP + EPOCHS; epoch += 1) {
      if (epoch == WARMUP) {
        heap.start();
      }
      List<Long> batch = new ArrayList<>(ROWS);
      for (int i = 0; i < ROWS; i += 1) {
        batch.add(next++);
      }
      long begin = System.nanoTime();
      input.addData(CollectionConverters.asScala(batch).toSeq());
      query.processAllAvailable();
      if (epoch >= WARMUP) {
        wall.add((System.nanoTime() - begin) / 1e9);
      }
    }
    String heapUse = heap.stop();
    query.stop();
    spark.streams().removeListener(listener);
    List<Double> phases = new ArrayList<>();
    addBatch.forEach(
        (batchId, millis) -> {
          if (batchId >= WARMUP) {
            phases.add(millis / 1e3);
          }
        });
    return new Epochs(wall, phases, heapUse);
  }

  /** Starts a sink query from its writer. */
  private interface SinkStart {
    StreamingQuery start(DataStreamWriter<Row> writer) throws TimeoutException;
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalStateException("Cannot report the streaming scenario: no epoch was measured");
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1
        ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }

  private static void deleteFolder(SparkSession spark, String folder) throws IOException {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(folder);
    path.getFileSystem(spark.sparkContext().hadoopConfiguration()).delete(path, true);
  }

  /** Records the {@code addBatch} time of every epoch that had rows. */
  private static final class AddBatchListener extends StreamingQueryListener {
    private final Map<Long, Long> addBatch;

    AddBatchListener(Map<Long, Long> addBatch) {
      this.addBatch = addBatch;
    }

    @Override
    public void onQueryStarted(QueryStartedEvent event) {}

    @Override
    public void onQueryProgress(QueryProgressEvent event) {
      Long millis = event.progress().durationMs().get("addBatch");
      if (event.progress().numInputRows() > 0 && millis != null) {
        addBatch.put(event.progress().batchId(), millis);
      }
    }

    @Override
    public void onQueryIdle(QueryIdleEvent event) {}

    @Override
    public void onQueryTerminated(QueryTerminatedEvent event) {}
  }
}
