package io.floe.spark.rowlevel;

import io.floe.spark.expressions.SparkPredicates;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.FloeScanBuilder;
import io.floe.spark.read.ReadOptions;
import io.floe.spark.read.ScanPlanShare;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Builds the scan of a copy-on-write operation: Floe's scan of one snapshot, which must return
 * every row of each file it reads, since the rows a DELETE or UPDATE leaves alone are copied.
 *
 * <p>Spark pushes the operation's condition here only to choose which files to read; it filters
 * the rows itself. So the condition prunes whole files (manifests by their partition summaries,
 * files by partition and column metrics, as Iceberg's planning does) but never row groups inside a
 * file: the snapshot is planned once, with the condition, into tasks that carry no residual ({@link
 * FloeScanBuilder#readingWholeFiles}). Every predicate is handed back to Spark.
 */
final class CopyOnWriteScanBuilder
    implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns {
  private final Table table;
  private final FloeScanBuilder delegate;
  private final Consumer<CopyOnWriteScan> onBuild;
  private final ScanPlanShare plans;
  private final Set<Integer> ignoredMetricsFieldIds;
  private final boolean keyedFiles;
  private Expression filter = Expressions.alwaysTrue();
  private Predicate[] pushed = new Predicate[0];

  /**
   * @param table the table as the operation loaded it
   * @param snapshotId the snapshot the operation reads (its branch's head), or null for none
   * @param plans where the built scan's plan is offered to the scan of Spark's group filter, which
   *     reads the same snapshot with the same condition; or null
   * @param keyedFiles whether Spark's group filter names files by {@code _floe_file_key} (see
   *     {@link CopyOnWriteScan})
   * @param onBuild told of the scan built, which the operation's commit removes the files of
   */
  CopyOnWriteScanBuilder(
      Table table,
      Long snapshotId,
      CaseInsensitiveStringMap options,
      ScanPlanShare plans,
      boolean keyedFiles,
      Consumer<CopyOnWriteScan> onBuild) {
    this.plans = plans;
    this.keyedFiles = keyedFiles;
    this.table = Objects.requireNonNull(table, "table is null");
    this.onBuild = Objects.requireNonNull(onBuild, "onBuild is null");
    this.delegate =
        new FloeScanBuilder(table, snapshotId, table.schema(), options).readingWholeFiles();
    this.ignoredMetricsFieldIds =
        ReadOptions.resolve(options.asCaseSensitiveMap(), SQLConf.get(), table.properties())
            .ignoredMetricsFieldIds(table.schema());
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    Expression converted = Expressions.alwaysTrue();
    for (Predicate predicate : predicates) {
      Optional<Expression> expression =
          SparkPredicates.convert(predicate, table.schema(), SQLConf.get().caseSensitiveAnalysis());
      if (expression.isPresent() && !namesIgnoredMetricsColumn(expression.get())) {
        converted = Expressions.and(converted, expression.get());
      }
    }
    this.filter = Expressions.and(filter, converted);
    this.pushed = predicates.clone();
    // the delegate prunes files by the same predicates (and leaves out the same ignored-metrics
    // columns); what it would hand back to Spark does not matter, as every predicate goes back
    delegate.pushPredicates(predicates);
    return predicates;
  }

  /**
   * Whether the expression names a column whose file metrics must not be trusted ({@code
   * read.metrics.ignore-columns}): it would prune files by them, and a file wrongly pruned here
   * keeps rows the operation should change.
   */
  private boolean namesIgnoredMetricsColumn(Expression expression) {
    if (ignoredMetricsFieldIds.isEmpty()) {
      return false;
    }
    try {
      return Binder.boundReferences(table.schema().asStruct(), List.of(expression), true).stream()
          .anyMatch(ignoredMetricsFieldIds::contains);
    } catch (RuntimeException e) {
      return true;
    }
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pushed.clone();
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    delegate.pruneColumns(requiredSchema);
  }

  @Override
  public Scan build() {
    FloeScan planned = (FloeScan) delegate.build();
    CopyOnWriteScan scan = new CopyOnWriteScan(table.name(), planned, filter, plans, keyedFiles);
    if (plans != null) {
      plans.offer(planned);
    }
    onBuild.accept(scan);
    return scan;
  }
}
