package io.floe.spark.streaming;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the stream source tests share: a fresh checkpoint folder per test, streams whose every
 * micro-batch is recorded on the driver (foreachBatch) under the test's own run, and, after each
 * test, every query stopped, the tables the subclass names dropped and the checkpoints deleted.
 *
 * @param <T> what a test records of each row of a micro-batch (an id, a row's text, ...)
 */
abstract class SourceTestBase<T> extends SparkTestBase {
  // run -> micro-batch id -> what was recorded of it; static, so that the foreachBatch function
  // holds only the run's key, never a test instance
  private static final Map<String, Map<Long, List<?>>> BATCHES = new ConcurrentHashMap<>();

  protected Path checkpoints;
  private String run;

  /** What a test records of one micro-batch; foreachBatch runs it on the driver. */
  @FunctionalInterface
  interface Recorder<T> extends Serializable {
    List<T> record(Dataset<Row> rows);
  }

  /** The tables a test may leave behind, dropped after it. */
  abstract List<String> tablesToDrop();

  @BeforeEach
  void newRun() throws IOException {
    checkpoints = Files.createTempDirectory("floe-source-checkpoints");
    run = checkpoints.getFileName().toString();
    BATCHES.put(run, new ConcurrentSkipListMap<>());
  }

  @AfterEach
  void endRun() throws IOException, TimeoutException {
    for (StreamingQuery query : spark.streams().active()) {
      query.stop();
    }
    for (String table : tablesToDrop()) {
      sql("DROP TABLE IF EXISTS " + table);
    }
    deleteRecursively(checkpoints);
    BATCHES.remove(run);
  }

  /** A stream reader with the read options given as name, value pairs. */
  protected static DataStreamReader reader(String... options) {
    DataStreamReader reader = spark.readStream();
    for (int i = 0; i < options.length; i += 2) {
      reader = reader.option(options[i], options[i + 1]);
    }
    return reader;
  }

  /**
   * Starts {@code stream} into foreachBatch, with the test's checkpoint {@code q}, recording what
   * {@code recorder} makes of each micro-batch.
   */
  protected StreamingQuery record(Dataset<Row> stream, Trigger trigger, Recorder<T> recorder)
      throws TimeoutException {
    String key = run;
    VoidFunction2<Dataset<Row>, Long> write =
        (rows, batchId) -> BATCHES.get(key).put(batchId, new ArrayList<>(recorder.record(rows)));
    return stream.writeStream()
        .option("checkpointLocation", checkpoints.resolve("q").toString())
        .trigger(trigger)
        .foreachBatch(write)
        .start();
  }

  /** The micro-batches recorded so far, by batch id. */
  @SuppressWarnings("unchecked")
  protected Map<Long, List<T>> batches() {
    Map<Long, List<T>> copy = new TreeMap<>();
    BATCHES.get(run).forEach((id, rows) -> copy.put(id, (List<T>) rows));
    return copy;
  }

  /** Forgets the micro-batches recorded so far. */
  protected void forgetBatches() {
    BATCHES.get(run).clear();
  }

  /** The first column of every row, as ids. */
  static List<Long> ids(Dataset<Row> rows) {
    List<Long> ids = new ArrayList<>();
    for (Row row : rows.collectAsList()) {
      ids.add(row.getLong(0));
    }
    return ids;
  }
}
