package io.floe.spark.bench;

import io.floe.spark.commit.CommitOutcome;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.StreamEpoch;
import io.floe.spark.commit.WriteMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * Commit latency of a stream epoch (the sink's commit through the Committer) on a table with a long
 * history, next to a plain Iceberg append. Not a test: run it by hand like {@link CommitBenchmark}.
 *
 * <p>The table gets {@code history} snapshots (default 10,000) of other writers. Then, in
 * alternating rounds, each variant commits one data file:
 *
 * <ul>
 *   <li>plain: {@code table.newAppend().appendFile(file).commit()}, no check;
 *   <li>epoch, steady: the next epoch of a running query, whose previous epoch is a few snapshots
 *       below the head (the other variants commit in between): the search stops there;
 *   <li>epoch, first of a query: a query with no snapshot in the table: the whole ancestry is read,
 *       before the commit and inside the attempt (once per query run in practice);
 *   <li>epoch, replay: the running query's last epoch again: found near the head, nothing committed;
 *   <li>epoch, replay found in the oldest snapshot: the whole ancestry is walked to find it (the cost
 *       of the search itself), nothing committed.
 * </ul>
 *
 * <p>Arguments: [rounds (default 20)] [history snapshots (default 10000)]
 */
public final class StreamCommitBenchmark {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));
  private static final int WARMUP_ROUNDS = 3;
  private static final int HISTORY_CHUNK = 500;

  private StreamCommitBenchmark() {}

  public static void main(String[] args) throws Exception {
    Configurator.setLevel("io.floe", Level.WARN);
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    int history = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    Path warehouse = Files.createTempDirectory("floe-stream-commit-bench");
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
    try {
      catalog.createNamespace(Namespace.of("bench"));
      Table table =
          catalog.createTable(TableIdentifier.of("bench", "epochs"), SCHEMA, PartitionSpec.unpartitioned());
      // a query whose only epoch is the oldest snapshot: replaying it walks the whole ancestry
      String deepQuery = UUID.randomUUID().toString();
      commit(table, deepQuery, 0, false);
      long started = System.nanoTime();
      for (int done = 0; done < history; done += HISTORY_CHUNK) {
        // a transaction per chunk: one holding the whole history runs out of memory
        Transaction transaction = table.newTransaction();
        for (int i = done; i < Math.min(history, done + HISTORY_CHUNK); i += 1) {
          // empty appends keep the manifests few while the history grows
          transaction.newFastAppend().set("writer", "other-" + i).commit();
        }
        transaction.commitTransaction();
      }
      System.out.printf(
          Locale.ROOT, "built a table with %d snapshots in %.1f s%n", history,
          (System.nanoTime() - started) / 1e9);

      String steadyQuery = UUID.randomUUID().toString();
      long[] nextEpoch = {0};
      commit(table, steadyQuery, nextEpoch[0]++, false);

      Map<String, Runnable> variants = new LinkedHashMap<>();
      variants.put("plain Iceberg newAppend()", () -> table.newAppend().appendFile(file(table)).commit());
      variants.put("epoch, steady (previous epoch near head)",
          () -> commit(table, steadyQuery, nextEpoch[0]++, false));
      variants.put("epoch, first of a query (whole ancestry)",
          () -> commit(table, UUID.randomUUID().toString(), 0, false));
      variants.put("epoch, replay (skipped)", () -> commit(table, steadyQuery, nextEpoch[0] - 1, true));
      variants.put("epoch, replay found in the oldest snapshot", () -> commit(table, deepQuery, 0, true));

      Map<String, List<Double>> millis = new LinkedHashMap<>();
      variants.keySet().forEach(name -> millis.put(name, new ArrayList<>()));
      for (int round = 0; round < WARMUP_ROUNDS + rounds; round += 1) {
        for (Map.Entry<String, Runnable> variant : variants.entrySet()) {
          table.refresh();
          long start = System.nanoTime();
          variant.getValue().run();
          double elapsed = (System.nanoTime() - start) / 1e6;
          if (round >= WARMUP_ROUNDS) {
            millis.get(variant.getKey()).add(elapsed);
          }
        }
      }
      table.refresh();
      int snapshots = 0;
      for (var ignored : table.snapshots()) {
        snapshots += 1;
      }
      System.out.printf(
          Locale.ROOT, "%d rounds after %d warm-up rounds; the table ended with %d snapshots%n%n",
          rounds, WARMUP_ROUNDS, snapshots);
      double plain = percentile(millis.get("plain Iceberg newAppend()"), 0.5);
      System.out.printf(
          Locale.ROOT, "| %-42s | %10s | %10s | %14s |%n", "commit", "median ms", "p90 ms", "median / plain");
      System.out.printf(
          Locale.ROOT, "|%s|%s|%s|%s|%n", "-".repeat(44), "-".repeat(12), "-".repeat(12), "-".repeat(16));
      for (Map.Entry<String, List<Double>> entry : millis.entrySet()) {
        double median = percentile(entry.getValue(), 0.5);
        System.out.printf(
            Locale.ROOT, "| %-42s | %10.2f | %10.2f | %14.3f |%n",
            entry.getKey(), median, percentile(entry.getValue(), 0.9), median / plain);
      }
    } finally {
      catalog.close();
      try (var files = Files.walk(warehouse)) {
        files.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void commit(Table table, String queryId, long epochId, boolean expectSkip) {
    StreamEpoch epoch = new StreamEpoch(queryId, epochId);
    CommitRequest request =
        new CommitRequest(
            WriteMode.APPEND, List.of(file(table)), null, epoch.commitId(), true, null, null, null,
            epoch.summaryProperties(), null, null);
    CommitOutcome outcome = new Committer(table, table.name()).commit(request);
    if (outcome.skipped() != expectSkip) {
      throw new IllegalStateException("Cannot measure epoch " + epoch + ": unexpected outcome " + outcome);
    }
  }

  private static DataFile file(Table table) {
    // the commit reads no data file, so a file that is only named measures the same
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(table.location() + "/data/bench-" + UUID.randomUUID() + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .build();
  }

  private static double percentile(List<Double> values, double fraction) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int index = (int) Math.ceil(fraction * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }
}
