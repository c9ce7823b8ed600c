package io.floe.spark.bench;

import io.floe.spark.commit.CommitOutcome;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.WriteMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * Commit latency of Floe's idempotent commit against a table with a long history, next to a plain
 * Iceberg append of the same data file. Not a test: run it by hand (see benchmarks/commit/README.md).
 *
 * <p>The table gets {@code history} snapshots (default 1,000), each carrying a commit id and each
 * replacing the table's one data file, so the ancestry is long and the manifests stay few. Then, in
 * alternating rounds, each variant commits the same small Parquet file once:
 *
 * <ul>
 *   <li>plain: {@code table.newAppend().appendFile(file).commit()}
 *   <li>floe, per-write id: the id is searched for since the starting snapshot (the head)
 *   <li>floe, caller id: the id is searched for in the whole ancestry, and is not there
 *   <li>floe, skip: a caller id carried by the oldest snapshot; found after walking the whole
 *       ancestry, nothing is committed
 * </ul>
 *
 * <p>Arguments: [rounds (default 40)] [history snapshots (default 1000)]
 */
public final class CommitBenchmark {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "data", Types.StringType.get()));
  private static final int WARMUP_ROUNDS = 5;

  private CommitBenchmark() {}

  public static void main(String[] args) throws Exception {
    // one INFO line per commit would drown the figures
    Configurator.setLevel("io.floe", Level.WARN);
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
    int history = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    Path warehouse = Files.createTempDirectory("floe-commit-bench");
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
    try {
      catalog.createNamespace(Namespace.of("bench"));
      Table table = catalog.createTable(TableIdentifier.of("bench", "commits"), SCHEMA, PartitionSpec.unpartitioned());
      DataFile file = writeFile(table, 100);

      long started = System.nanoTime();
      Transaction transaction = table.newTransaction();
      for (int i = 0; i < history; i += 1) {
        // replacing the table's only file keeps the manifest lists small while the history grows
        transaction.newReplacePartitions().addFile(file).set(Committer.COMMIT_ID_KEY, "history-" + i).commit();
      }
      transaction.commitTransaction();
      System.out.printf(
          Locale.ROOT, "built a table with %d snapshots in %.1f s%n", history, (System.nanoTime() - started) / 1e9);

      Map<String, Supplier<Runnable>> variants = new LinkedHashMap<>();
      variants.put("plain Iceberg newAppend()", () -> () -> table.newAppend().appendFile(file).commit());
      variants.put("floe, per-write id", () -> floeCommit(table, file, UUID.randomUUID().toString(), false, false));
      variants.put("floe, caller id (whole ancestry)", () -> floeCommit(table, file, "caller-" + UUID.randomUUID(), true, false));
      variants.put("floe, skip (id in oldest snapshot)", () -> floeCommit(table, file, "history-0", true, true));

      Map<String, List<Double>> millis = new LinkedHashMap<>();
      variants.keySet().forEach(name -> millis.put(name, new ArrayList<>()));
      for (int round = 0; round < WARMUP_ROUNDS + rounds; round += 1) {
        for (Map.Entry<String, Supplier<Runnable>> variant : variants.entrySet()) {
          table.refresh();
          Runnable commit = variant.getValue().get();
          long start = System.nanoTime();
          commit.run();
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
          Locale.ROOT,
          "%d rounds after %d warm-up rounds; the table ended with %d snapshots%n%n",
          rounds, WARMUP_ROUNDS, snapshots);
      double plain = median(millis.get("plain Iceberg newAppend()"));
      System.out.printf(Locale.ROOT, "| %-36s | %10s | %10s | %14s |%n", "commit", "median ms", "p90 ms", "median / plain");
      System.out.printf(Locale.ROOT, "|%s|%s|%s|%s|%n", "-".repeat(38), "-".repeat(12), "-".repeat(12), "-".repeat(16));
      for (Map.Entry<String, List<Double>> entry : millis.entrySet()) {
        double median = median(entry.getValue());
        System.out.printf(
            Locale.ROOT,
            "| %-36s | %10.2f | %10.2f | %14.3f |%n",
            entry.getKey(), median, percentile(entry.getValue(), 0.9), median / plain);
      }
    } finally {
      catalog.close();
      deleteRecursively(warehouse);
    }
  }

  private static Runnable floeCommit(
      Table table, DataFile file, String commitId, boolean callerChosen, boolean expectSkip) {
    Long start = table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
    CommitRequest request =
        new CommitRequest(WriteMode.APPEND, List.of(file), null, commitId, callerChosen, start, null, null, Map.of(), null, null);
    return () -> {
      CommitOutcome outcome = new Committer(table, table.name()).commit(request);
      if (outcome.skipped() != expectSkip) {
        throw new IllegalStateException("Cannot measure " + commitId + ": unexpected outcome " + outcome);
      }
    };
  }

  private static DataFile writeFile(Table table, int rows) throws IOException {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).dataSchema(SCHEMA).build();
    String location = table.locationProvider().newDataLocation("bench-" + UUID.randomUUID() + ".parquet");
    DataWriter<Record> writer =
        writers.newDataWriter(
            EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(location)), table.spec(), null);
    try (writer) {
      for (long id = 0; id < rows; id += 1) {
        GenericRecord record = GenericRecord.create(SCHEMA);
        record.setField("id", id);
        record.setField("data", "row-" + id);
        writer.write(record);
      }
    }
    return writer.toDataFile();
  }

  private static double median(List<Double> values) {
    return percentile(values, 0.5);
  }

  private static double percentile(List<Double> values, double fraction) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int index = (int) Math.ceil(fraction * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }

  private static void deleteRecursively(Path path) throws IOException {
    try (var files = Files.walk(path)) {
      files.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
