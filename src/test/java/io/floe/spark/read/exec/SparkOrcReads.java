package io.floe.spark.read.exec;

import io.floe.spark.procedures.SparkOrcSources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Spark's own ORC reader over given ORC files, in a JVM of its own (Spark's ORC cannot run in the
 * test JVM, see {@link SparkOrcSources}): it reads the files with {@code spark.read().schema(ddl)
 * .orc(files)} and writes the rows it read, in Parquet, for the test to compare with; then it
 * times an aggregate over every column that reads all the files, and writes the times (ms, one a
 * line) beside the rows.
 *
 * <p>Arguments: a file listing the ORC files one a line, the DDL of the columns, the output folder,
 * the number of timed runs.
 */
public final class SparkOrcReads {
  private SparkOrcReads() {}

  /** Runs {@link #main} with Spark's ORC and waits for it. */
  static void run(List<String> files, String ddl, Path output, int timedRuns, String aggregate)
      throws IOException, InterruptedException {
    Path listing = output.resolveSibling(output.getFileName() + ".files");
    Files.write(listing, files);
    SparkOrcSources.runWithSparkOrc(
        SparkOrcReads.class,
        List.of(listing.toString(), ddl, output.toString(), String.valueOf(timedRuns), aggregate),
        output.resolveSibling(output.getFileName() + ".log"));
  }

  public static void main(String[] args) throws IOException {
    List<String> files = Files.readAllLines(Path.of(args[0]));
    String ddl = args[1];
    Path output = Path.of(args[2]);
    int timedRuns = Integer.parseInt(args[3]);
    String aggregate = args[4];
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("floe-spark-orc-reads")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.driver.host", "127.0.0.1")
            .getOrCreate();
    try {
      Dataset<Row> rows = spark.read().schema(ddl).orc(files.toArray(new String[0]));
      rows.write().parquet(output.resolve("rows").toUri().toString());
      List<String> times = new ArrayList<>();
      for (int i = 0; i < timedRuns; i++) {
        long start = System.nanoTime();
        spark.read().schema(ddl).orc(files.toArray(new String[0]))
            .selectExpr(aggregate.split(";")).collectAsList();
        times.add(String.valueOf((System.nanoTime() - start) / 1_000_000));
      }
      Files.write(output.resolve("times.txt"), times);
    } finally {
      spark.stop();
    }
  }
}
