package io.floe.spark.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Per-epoch cost of a Structured Streaming sink (issue 28): a MemoryStream query appends {@code
 * epochs} micro-batches of {@code rows} rows each into an unpartitioned Iceberg table of a hadoop
 * catalog, one batch at a time, and prints the median and 90th percentile of each phase Spark's
 * progress reports ({@code addBatch} holds the write tasks and the sink's commit), and of the wall
 * time of a whole epoch. Not a test: run it by hand, one JVM per engine.
 *
 * <p>It uses Spark's API only, so the same class runs on Floe's classpath (engine {@code floe}),
 * on Spark plus the official runtime jar (engine {@code official}), and on plain Spark (engine
 * {@code noop}: Spark's no-op sink, the cost of a micro-batch with no table at all).
 *
 * <p>Arguments: {@code <engine> [epochs (default 60)] [rows per epoch (default 1000)] [warm-up
 * epochs left out of the statistics (default 10)]}. Run it like {@link CommitBenchmark} (test classes,
 * classes and the test classpath, with the Spark JVM flags of the pom's {@code spark.jvm.flags});
 * for {@code official}, put the official runtime jar in place of Floe's classes.
 */
public final class StreamingSinkBenchmark {
  private static final String[] PHASES = {
    "latestOffset", "queryPlanning", "walCommit", "addBatch", "commitOffsets", "triggerExecution"
  };

  private StreamingSinkBenchmark() {}

  public static void main(String[] args) throws Exception {
    String engine = args[0];
    int epochs = args.length > 1 ? Integer.parseInt(args[1]) : 60;
    int rows = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 10;
    Path work = Files.createTempDirectory("floe-stream-sink-bench");
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName("stream-sink-bench-" + engine)
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.driver.host", "127.0.0.1");
    if (!engine.equals("noop")) {
      String catalog =
          engine.equals("floe") ? "io.floe.spark.FloeCatalog" : "org.apache.iceberg.spark.SparkCatalog";
      builder
          .config("spark.sql.catalog.bench", catalog)
          .config("spark.sql.catalog.bench.type", "hadoop")
          .config("spark.sql.catalog.bench.warehouse", work.resolve("warehouse").toUri().toString());
    }
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");

    Map<Long, Map<String, Long>> progress = new ConcurrentHashMap<>();
    spark.streams().addListener(
        new StreamingQueryListener() {
          @Override
          public void onQueryStarted(QueryStartedEvent event) {}

          @Override
          public void onQueryProgress(QueryProgressEvent event) {
            Map<String, Long> phases = new LinkedHashMap<>();
            event.progress().durationMs().forEach((k, v) -> phases.put(k, v));
            if (event.progress().numInputRows() > 0) {
              progress.put(event.progress().batchId(), phases);
            }
          }

          @Override
          public void onQueryTerminated(QueryTerminatedEvent event) {}
        });

    MemoryStream<Long> input = MemoryStream.apply(Encoders.LONG(), spark.sqlContext());
    var stream =
        input.toDF().selectExpr("value AS id", "concat('row-', cast(value AS string)) AS data")
            .writeStream()
            .outputMode("append")
            .trigger(Trigger.ProcessingTime(0))
            .option("checkpointLocation", work.resolve("checkpoint").toString());
    StreamingQuery query;
    if (engine.equals("noop")) {
      query = stream.format("noop").start();
    } else {
      spark.sql("CREATE NAMESPACE IF NOT EXISTS bench.s");
      spark.sql("CREATE TABLE bench.s.t (id bigint, data string) USING iceberg");
      query = stream.toTable("bench.s.t");
    }

    List<Double> wall = new ArrayList<>();
    long next = 0;
    for (int epoch = 0; epoch < epochs; epoch += 1) {
      List<Long> batch = new ArrayList<>(rows);
      for (int i = 0; i < rows; i += 1) {
        batch.add(next++);
      }
      long start = System.nanoTime();
      input.addData(CollectionConverters.asScala(batch).toSeq());
      query.processAllAvailable();
      if (epoch >= warmup) {
        wall.add((System.nanoTime() - start) / 1e6);
      }
    }
    query.stop();
    if (!engine.equals("noop")) {
      long count = spark.sql("SELECT count(*) FROM bench.s.t").first().getLong(0);
      long snapshots = spark.sql("SELECT count(*) FROM bench.s.t.snapshots").first().getLong(0);
      if (count != next) {
        throw new IllegalStateException("Expected " + next + " rows, found " + count);
      }
      System.out.printf(Locale.ROOT, "table: %d rows, %d snapshots%n", count, snapshots);
    }
    System.out.printf(
        Locale.ROOT, "engine=%s epochs=%d (first %d left out) rows/epoch=%d%n",
        engine, epochs, warmup, rows);
    System.out.printf(Locale.ROOT, "%-18s %10s %10s %10s%n", "phase", "median ms", "p90 ms", "mean ms");
    report("epoch wall", wall);
    for (String phase : PHASES) {
      List<Double> values = new ArrayList<>();
      progress.forEach(
          (batchId, phases) -> {
            if (batchId >= warmup && phases.containsKey(phase)) {
              values.add(phases.get(phase).doubleValue());
            }
          });
      report(phase, values);
    }
    spark.stop();
  }

  private static void report(String name, List<Double> values) {
    if (values.isEmpty()) {
      return;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    double mean = sorted.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    System.out.printf(
        Locale.ROOT, "%-18s %10.1f %10.1f %10.1f%n", name, percentile(sorted, 0.5),
        percentile(sorted, 0.9), mean);
  }

  private static double percentile(List<Double> sorted, double fraction) {
    int index = (int) Math.ceil(fraction * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }
}
