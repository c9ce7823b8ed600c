package io.floe.spark.read.plan.manifest;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.file.DataFileStream;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.io.InputFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether any entry of a data manifest may hold rows a filter matches, by the entries'
 * column metrics, reading only the filter's columns' metrics ({@link EntryMetricsReader}). A
 * manifest it rules out needs no full reading: Iceberg's reader would drop every entry of it by
 * the same evaluator. Entries are evaluated with Iceberg's {@link InclusiveMetricsEvaluator} bound
 * to the manifest's spec's schema, as Iceberg's manifest reader binds it, so the two never
 * disagree. Deleted entries are passed over, as Iceberg's scans pass them over; the answer errs
 * only towards "may match" (partition values are not looked at, and a manifest of an unexpected
 * layout may always match).
 */
final class ManifestPruner {
  private static final Logger LOG = LoggerFactory.getLogger(ManifestPruner.class);

  private final Map<Integer, PartitionSpec> specs;
  private final Expression filter;
  private final boolean caseSensitive;
  private final Map<Integer, Evaluation> evaluations = new ConcurrentHashMap<>();

  ManifestPruner(Map<Integer, PartitionSpec> specs, Expression filter, boolean caseSensitive) {
    this.specs = specs;
    this.filter = filter;
    this.caseSensitive = caseSensitive;
  }

  /**
   * Whether some live entry of {@code manifest} may match the filter, reading the manifest from
   * {@code contents}; safe from many threads.
   */
  boolean mayMatch(ManifestFile manifest, InputFile contents) {
    PartitionSpec spec = specs.get(manifest.partitionSpecId());
    if (spec == null) {
      return true;
    }
    Evaluation evaluation =
        evaluations.computeIfAbsent(manifest.partitionSpecId(), id -> evaluation(spec));
    if (evaluation.columnIds.length == 0) {
      return true;
    }
    EntryMetricsReader reader = new EntryMetricsReader(evaluation.columnIds);
    try (InputStream in = contents.newStream();
        DataFileStream<EntryMetrics> entries = new DataFileStream<>(in, reader)) {
      if (!reader.understood()) {
        return true;
      }
      EntryMetrics metrics = new EntryMetrics();
      while (entries.hasNext()) {
        EntryMetrics entry = entries.next(metrics);
        if (entry.live() && evaluation.evaluator.eval(entry)) {
          return true;
        }
      }
      return false;
    } catch (IOException | RuntimeException e) {
      // Avro checks that every block was read to its end; a manifest this reader cannot decode
      // (or cannot open) is read in full by Iceberg's reader, which decides and reports on it
      LOG.warn(
          "Cannot prune manifest {} by metrics, reading it in full: {}",
          manifest.path(),
          e.toString());
      return true;
    }
  }

  private Evaluation evaluation(PartitionSpec spec) {
    Set<Integer> ids =
        Binder.boundReferences(spec.schema().asStruct(), List.of(filter), caseSensitive);
    return new Evaluation(
        new InclusiveMetricsEvaluator(spec.schema(), filter, caseSensitive),
        ids.stream().mapToInt(Integer::intValue).toArray());
  }

  private record Evaluation(InclusiveMetricsEvaluator evaluator, int[] columnIds) {}
}
