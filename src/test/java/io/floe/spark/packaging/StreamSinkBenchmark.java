package io.floe.spark.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Stream sink throughput, Floe next to the official runtime: 1,000,000 rows in 20 micro-batches of
 * 50,000 into an unpartitioned table, each run its own {@code spark-submit} JVM on a plain Spark
 * installation ({@link StreamCheckpointInteropIT}'s setup), the runtimes alternating. Not part of
 * the suite: run it by hand with {@code mvn verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=StreamSinkBenchmark}; it prints a table.
 */
class StreamSinkBenchmark {
  private static final int ROUNDS = 3;
  private static final int BATCHES = 20;
  private static final int ROWS_PER_BATCH = 50_000;

  @Test
  void sinkThroughput() throws Exception {
    Files.createDirectories(Settings.buildDir());
    Path root = Files.createTempDirectory(Settings.buildDir(), "stream-sink-bench-");
    SparkDistribution spark = SparkDistribution.shared();
    Path appJar = StreamCheckpointInteropIT.writeAppJar(root.resolve("stream-app.jar"));
    List<Long> floe = new ArrayList<>();
    List<Long> official = new ArrayList<>();
    try {
      for (int round = 0; round < ROUNDS; round++) {
        for (boolean isOfficial : new boolean[] {round % 2 == 0, round % 2 != 0}) {
          String name = (isOfficial ? "official-" : "floe-") + round;
          String output =
              StreamCheckpointInteropIT.runStream(
                  spark, root, appJar, isOfficial, "s.t_" + name.replace('-', '_'),
                  root.resolve("checkpoint-" + name), 0, BATCHES, ROWS_PER_BATCH, name);
          long millis = output.lines().filter(line -> line.startsWith(StreamApp.TIME_PREFIX))
              .mapToLong(line -> Long.parseLong(line.substring(StreamApp.TIME_PREFIX.length())))
              .findFirst().orElseThrow();
          (isOfficial ? official : floe).add(millis);
        }
      }
    } finally {
      SparkDistribution.deleteRecursively(root);
    }
    floe.sort(null);
    official.sort(null);
    long rows = (long) BATCHES * ROWS_PER_BATCH;
    System.out.printf(Locale.ROOT, "%n| sink | runs (ms) | median ms | rows/s (median) |%n| --- | --- | --- | --- |%n");
    for (var entry : List.of(List.of("floe", floe), List.of("official", official))) {
      @SuppressWarnings("unchecked")
      List<Long> times = (List<Long>) entry.get(1);
      long median = times.get(times.size() / 2);
      System.out.printf(Locale.ROOT, "| %s | %s | %d | %.0f |%n", entry.get(0), times, median, rows * 1000.0 / median);
    }
    System.out.printf(Locale.ROOT, "floe / official (median time): %.3f%n",
        floe.get(floe.size() / 2) / (double) official.get(official.size() / 2));
    assertThat(floe).hasSize(ROUNDS);
  }
}
