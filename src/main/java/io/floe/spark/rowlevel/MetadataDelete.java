package io.floe.spark.rowlevel;

import io.floe.spark.commit.CommitOutcome;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.FileChanges;
import io.floe.spark.commit.TableLoader;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.expressions.SparkPredicates;
import io.floe.spark.read.ReadOptions;
import io.floe.spark.write.WriteOptions;
import java.util.Arrays;
import java.util.UUID;
import org.apache.iceberg.SnapshotRef;
import org.apache.spark.sql.internal.SQLConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.expressions.StrictMetricsEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.spark.sql.connector.expressions.filter.Predicate;

/**
 * A DELETE that removes whole data files and writes none: the data files of one snapshot that hold
 * a row the condition may select, each proven to hold only rows the condition selects.
 *
 * <p>"Selects" is Spark's: a row is deleted only where the condition is TRUE, never where it is
 * NULL. The condition is converted with {@link SparkPredicates#convertExact}, which selects exactly
 * those rows, and a file counts as whole when the strict projection of that expression onto its
 * partition spec accepts the file's partition, or when Iceberg's strict metrics evaluator proves
 * every row matches from the file's column bounds and null/NaN counts. Bounds of timestamp and time
 * columns are not trusted for this (Iceberg reads {@code TIMESTAMP(MILLIS)} statistics of imported
 * files as microseconds), nor those of the table's {@code read.metrics.ignore-columns}: a condition
 * on such a column removes a file only through its partition.
 * When any file is not provably whole, or the condition does not convert exactly, there is no plan
 * and Spark rewrites the rows instead.
 *
 * @param filter the converted condition
 * @param snapshotId the snapshot planned, or null for a table (branch) without snapshots
 * @param files the data files to remove, each of whose rows the condition selects
 */
public record MetadataDelete(Expression filter, Long snapshotId, List<DataFile> files) {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataDelete.class);

  public MetadataDelete {
    Objects.requireNonNull(filter, "filter is null");
    files = List.copyOf(Objects.requireNonNull(files, "files is null"));
  }

  /**
   * Plans the delete against a snapshot, or returns empty when it cannot be done on metadata alone.
   *
   * @param table the table the predicates' columns name
   * @param snapshot the head of the branch deleted from, or null when it has no snapshot
   * @param predicates Spark's conjuncts of the DELETE's condition
   * @param caseSensitive whether column names are matched case-sensitively
   */
  public static Optional<MetadataDelete> plan(
      Table table, Snapshot snapshot, Predicate[] predicates, boolean caseSensitive) {
    Objects.requireNonNull(table, "table is null");
    Schema schema = table.schema();
    Optional<Expression> converted = convert(schema, predicates, caseSensitive);
    if (converted.isEmpty()) {
      return Optional.empty();
    }
    Expression filter = converted.get();
    if (snapshot == null) {
      return Optional.of(new MetadataDelete(filter, null, List.of()));
    }
    Set<Integer> ignored =
        ReadOptions.resolve(Map.of(), SQLConf.get(), table.properties())
            .ignoredMetricsFieldIds(schema);
    boolean metricsTrusted = metricsTrusted(schema, filter, ignored);
    Map<Integer, Evaluator> partitionChecks = new HashMap<>();
    StrictMetricsEvaluator metricsCheck = new StrictMetricsEvaluator(schema, filter, true);
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks =
        table
            .newScan()
            .useSnapshot(snapshot.snapshotId())
            .filter(filter)
            .caseSensitive(true)
            .includeColumnStats()
            .planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        Evaluator partitionCheck =
            partitionChecks.computeIfAbsent(
                file.specId(), id -> strictPartitionCheck(table.specs().get(id), filter));
        boolean whole =
            (partitionCheck != null && partitionCheck.eval(file.partition()))
                || (metricsTrusted && metricsCheck.eval(file));
        if (!whole) {
          return Optional.empty();
        }
        files.add(file.copyWithoutStats());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot plan a delete from " + table.name() + ": the scan could not be closed", e);
    } catch (RuntimeException e) {
      // a condition Iceberg cannot evaluate on metadata is left to the row-level rewrite
      return Optional.empty();
    }
    return Optional.of(new MetadataDelete(filter, snapshot.snapshotId(), files));
  }

  /**
   * Whether a DELETE with these conjuncts can remove whole files of the table (or of the branch it
   * writes, as the session's write-audit-publish settings pick it) without a job.
   */
  public static boolean canDelete(Table table, String branch, Predicate[] predicates) {
    WriteOptions options = options(table, branch);
    return plan(table, head(table, options.branch()), predicates, caseSensitive()).isPresent();
  }

  /**
   * Plans the delete again against the live table and commits it as one DeleteFiles carrying
   * {@code floe.commit-id} (the session's {@code commit-id} when set, which makes a rerun a no-op);
   * commits nothing when no file matches.
   *
   * @throws IllegalStateException when a commit since {@link #canDelete} left a file that the
   *     condition only partly selects; nothing is committed
   */
  public static void run(TableLoader loader, String branch, Predicate[] predicates) {
    Table live = loader.load();
    WriteOptions options = options(live, branch);
    Snapshot head = head(live, options.branch());
    MetadataDelete delete =
        plan(live, head, predicates, caseSensitive())
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "Cannot delete from " + live.name() + " where " + Arrays.toString(predicates)
                            + ": a commit since the DELETE was planned left data files the"
                            + " condition selects only in part; run the DELETE again"));
    if (delete.files().isEmpty()) {
      LOG.info("Nothing to delete from {}: no data file holds a row where {}", live.name(),
          delete.filter());
      return;
    }
    String commitId =
        options.commitId() != null ? options.commitId() : UUID.randomUUID().toString();
    CommitRequest request =
        new CommitRequest(
            WriteMode.DELETE_FILES,
            List.of(),
            null,
            commitId,
            options.commitId() != null,
            delete.snapshotId(),
            options.branch(),
            options.wapId(),
            options.snapshotProperties(),
            null,
            null,
            new FileChanges(delete.files(), List.of(), List.of(), List.of(), delete.filter(), null));
    CommitOutcome outcome = new Committer(live, live.name()).commit(request);
    LOG.info(
        "Metadata-only delete from {} where {}: {} data files removed, snapshot {}{}",
        live.name(), delete.filter(), delete.files().size(), outcome.snapshotId(),
        outcome.skipped() ? " (already committed by an earlier run)" : "");
  }

  private static WriteOptions options(Table table, String branch) {
    WriteOptions options =
        WriteOptions.resolve(table.name(), Map.of(), SQLConf.get(), table.properties());
    return branch == null ? options : options.onBranch(table.name(), branch);
  }

  /** The snapshot a commit to the branch builds on: a branch not created yet starts at main's. */
  private static Snapshot head(Table table, String branch) {
    SnapshotRef ref = branch == null ? null : table.refs().get(branch);
    return ref == null ? table.currentSnapshot() : table.snapshot(ref.snapshotId());
  }

  private static boolean caseSensitive() {
    return SQLConf.get().caseSensitiveAnalysis();
  }

  private static Optional<Expression> convert(
      Schema schema, Predicate[] predicates, boolean caseSensitive) {
    Expression filter = Expressions.alwaysTrue();
    for (Predicate predicate : predicates) {
      Optional<Expression> exact = SparkPredicates.convertExact(predicate, schema, caseSensitive);
      if (exact.isEmpty()) {
        return Optional.empty();
      }
      filter = Expressions.and(filter, exact.get());
    }
    return Optional.of(filter);
  }

  /** Accepts a partition tuple only when every row of that partition satisfies the filter. */
  private static Evaluator strictPartitionCheck(PartitionSpec spec, Expression filter) {
    try {
      Expression projected = Projections.strict(spec, true).project(filter);
      return new Evaluator(spec.partitionType(), projected, true);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * Whether the file bounds of every column the filter names may decide a file: not for timestamp
   * and time columns, nor for the table's {@code read.metrics.ignore-columns}.
   */
  private static boolean metricsTrusted(Schema schema, Expression filter, Set<Integer> ignored) {
    Set<Integer> ids = Binder.boundReferences(schema.asStruct(), List.of(filter), true);
    for (int id : ids) {
      if (ignored.contains(id)) {
        return false;
      }
      Type type = schema.findType(id);
      if (type == null
          || type.typeId() == Type.TypeID.TIMESTAMP
          || type.typeId() == Type.TypeID.TIMESTAMP_NANO
          || type.typeId() == Type.TypeID.TIME) {
        return false;
      }
    }
    return true;
  }
}
