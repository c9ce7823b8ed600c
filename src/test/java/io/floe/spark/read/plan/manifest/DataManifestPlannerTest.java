package io.floe.spark.read.plan.manifest;

import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.ReadTestSupport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Floe's own planning of snapshots without delete files plans exactly the file tasks Iceberg's
 * table scan plans (files, residuals, statistics, sequence numbers, schema), for every snapshot of
 * a table with many manifests, two partition specs, a schema change, deleted and existing manifest
 * entries, NULL, NaN and truncated string bounds; the manifest pruner leaves out exactly manifests
 * with no live entry that may match; and every scan reaches the table's metrics reporter.
 */
class DataManifestPlannerTest extends SparkTestBase {
  private static final String TABLE = "floe.plans.t";
  private static final String LONG = "a-name-much-longer-than-sixteen-characters-";

  @BeforeAll
  static void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.plans");
    sql(
        "CREATE TABLE %s (id BIGINT, score DOUBLE, name STRING, category STRING) USING iceberg"
            + " PARTITIONED BY (category)"
            + " TBLPROPERTIES ('commit.manifest-merge.enabled'='false')",
        TABLE);
    for (int batch = 0; batch < 6; batch++) {
      sql(
          "INSERT INTO %s SELECT IF(id %% 50 = 7 AND %d = 2, NULL, id),"
              + " IF(%d = 3 AND id %% 10 = 0, double('NaN'), id / 10.0),"
              + " concat('%s', CAST(id AS STRING)),"
              + " element_at(array('a', 'b', 'c'), CAST(id %% 3 + 1 AS INT))"
              + " FROM range(%d, %d)",
          TABLE, batch, batch, LONG, batch * 100, batch * 100 + 100);
    }
    Table table = icebergTable(spark, "plans.t");
    table.updateSpec().addField(Expressions.bucket("id", 4)).commit();
    for (int batch = 6; batch < 8; batch++) {
      sql(
          "INSERT INTO %s SELECT id, id / 10.0, concat('%s', CAST(id AS STRING)), 'd'"
              + " FROM range(%d, %d)",
          TABLE, LONG, batch * 100, batch * 100 + 100);
    }
    table.refresh();
    // a deleted entry (and existing entries beside it in the rewritten manifest)
    DataFile deleted = ReadTestSupport.dataFiles(table).get(0);
    table.newDelete().deleteFile(deleted).commit();
    // a manifest whose only entry is deleted, the only file that held ids from 5000
    sql("INSERT INTO %s SELECT id, 0.0, 'e', 'e' FROM range(5000, 5010)", TABLE);
    table.refresh();
    table.newDelete().deleteFromRowFilter(Expressions.equal("category", "e")).commit();
    // existing entries of files first added by other snapshots
    table.refresh();
    List<ManifestFile> manifests = table.currentSnapshot().dataManifests(table.io());
    table.rewriteManifests().rewriteIf(manifest -> manifest.equals(manifests.get(0))).commit();
    // older snapshots are planned with their own, older schema
    table.updateSchema().addColumn("extra", Types.IntegerType.get()).commit();
    sql("INSERT INTO %s SELECT id, 1.0, 'x', 'f', 1 FROM range(900, 910)", TABLE);
  }

  @Test
  void plansTheFileTasksIcebergPlans() {
    Table table = icebergTable(spark, "plans.t");
    assertThat(table.currentSnapshot().dataManifests(table.io()).size()).isGreaterThan(5);
    assertThat(DataManifestPlanner.plans(table, table.currentSnapshot().snapshotId())).isTrue();
    List<Expression> filters =
        List.of(
            Expressions.alwaysTrue(),
            Expressions.equal("id", 150L),
            Expressions.equal("id", -1L),
            Expressions.lessThan("id", 50L),
            Expressions.greaterThan("id", 4000L),
            Expressions.greaterThan("id", 650L),
            Expressions.in("id", 5L, 305L, 705L),
            Expressions.isNull("id"),
            Expressions.notNull("id"),
            Expressions.isNaN("score"),
            Expressions.notNaN("score"),
            Expressions.greaterThanOrEqual("score", 55.0),
            Expressions.equal("name", LONG + "123"),
            Expressions.startsWith("name", LONG + "4"),
            Expressions.lessThan("name", "a"),
            Expressions.equal("category", "a"),
            Expressions.and(Expressions.equal("category", "b"), Expressions.equal("id", 301L)),
            Expressions.or(Expressions.equal("id", 5L), Expressions.equal("category", "d")),
            Expressions.not(Expressions.lessThan("id", 300L)),
            Expressions.notEqual("id", 3L),
            Expressions.equal(Expressions.bucket("id", 4), 1));
    List<Long> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshot -> snapshots.add(snapshot.snapshotId()));
    assertThat(snapshots).hasSizeGreaterThan(10);
    for (long snapshot : snapshots) {
      for (Expression filter : filters) {
        for (List<String> stats : List.of(List.<String>of(), List.of("id", "name"))) {
          Map<String, String> expected = icebergPlan(table, snapshot, filter, true, stats);
          Map<String, String> actual =
              describe(
                  DataManifestPlanner.plan(
                      table, snapshot, filter, true, stats, ForkJoinPool::commonPool));
          assertThat(actual)
              .as("plan of %s in snapshot %s, stats of %s", filter, snapshot, stats)
              .isEqualTo(expected);
        }
      }
    }
    long current = table.currentSnapshot().snapshotId();
    Expression upperCase = Expressions.lessThan("ID", 120L);
    assertThat(
            describe(
                DataManifestPlanner.plan(
                    table, current, upperCase, false, List.of(), ForkJoinPool::commonPool)))
        .isEqualTo(icebergPlan(table, current, upperCase, false, List.of()))
        .isNotEmpty();
  }

  @Test
  void oneKeptManifestIsReadWithoutStartingThePoolAndMoreAreReadOnIt() {
    sql(
        "CREATE TABLE floe.plans.single (id BIGINT, part STRING) USING iceberg"
            + " PARTITIONED BY (part)");
    sql("INSERT INTO floe.plans.single SELECT id, IF(id < 50, 'a', 'b') FROM range(0, 100)");
    Table single = icebergTable(spark, "plans.single");
    long snapshot = single.currentSnapshot().snapshotId();
    AtomicInteger asked = new AtomicInteger();
    Supplier<ExecutorService> counted =
        () -> {
          asked.incrementAndGet();
          return ForkJoinPool.commonPool();
        };
    Expression filter = Expressions.lessThan("id", 10L);
    assertThat(
            describe(DataManifestPlanner.plan(single, snapshot, filter, true, List.of(), counted)))
        .isEqualTo(icebergPlan(single, snapshot, filter, true, List.of()))
        .hasSize(1);
    assertThat(asked).as("pool asked for by a plan of one manifest").hasValue(0);

    Table many = icebergTable(spark, "plans.t");
    long current = many.currentSnapshot().snapshotId();
    Expression all = Expressions.alwaysTrue();
    assertThat(describe(DataManifestPlanner.plan(many, current, all, true, List.of(), counted)))
        .isEqualTo(icebergPlan(many, current, all, true, List.of()));
    assertThat(asked).as("pool asked for by a plan of many manifests").hasValue(1);
  }

  @Test
  void thePrunerLeavesOutOnlyManifestsWithoutAnEntryThatMayMatch() {
    Table table = icebergTable(spark, "plans.t");
    for (Expression filter :
        List.of(
            Expressions.equal("id", 150L),
            Expressions.equal("id", -1L),
            Expressions.equal("id", 5005L),
            Expressions.greaterThan("id", 650L),
            Expressions.isNull("id"),
            Expressions.isNaN("score"),
            Expressions.startsWith("name", "b"),
            Expressions.equal("name", "zzz"))) {
      ManifestPruner pruner = new ManifestPruner(table.specs(), filter, true);
      int pruned = 0;
      for (ManifestFile manifest : table.currentSnapshot().dataManifests(table.io())) {
        boolean expected = anyEntryMayMatch(table, manifest, filter);
        assertThat(pruner.mayMatch(manifest, table.io().newInputFile(manifest)))
            .as("%s of %s", filter, manifest.path())
            .isEqualTo(expected);
        pruned += expected ? 0 : 1;
      }
      assertThat(pruned).as("manifests pruned by %s", filter).isPositive();
    }
  }

  @Test
  void snapshotsWithDeleteFilesArePlannedByIceberg() {
    sql(
        "CREATE TABLE floe.plans.deletes (id BIGINT) USING iceberg"
            + " TBLPROPERTIES ('format-version'='2')");
    sql("INSERT INTO floe.plans.deletes SELECT id FROM range(0, 10)");
    Table table = icebergTable(spark, "plans.deletes");
    DataFile file = ReadTestSupport.dataFiles(table).get(0);
    assertThat(DataManifestPlanner.plans(table, table.currentSnapshot().snapshotId())).isTrue();
    table
        .newRowDelta()
        .addDeletes(ReadTestSupport.positionDeletes(table, file, List.of(1L)))
        .commit();
    table.refresh();
    assertThat(DataManifestPlanner.plans(table, table.currentSnapshot().snapshotId())).isFalse();
    assertThat(sql("SELECT count(*) FROM floe.plans.deletes").get(0).getLong(0)).isEqualTo(9);
  }

  @Test
  void eachScanIsReportedToTheTablesMetricsReporter() {
    ScanReport scan =
        reportOf("reporting", Map.of(), "SELECT id FROM %s.plans.t WHERE id >= 600 AND id < 602");

    Table table = icebergTable(spark, "plans.t");
    assertThat(scan.tableName()).endsWith("plans.t");
    assertThat(scan.snapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
    int manifests = table.currentSnapshot().dataManifests(table.io()).size();
    assertThat(scan.scanMetrics().totalDataManifests().value()).isEqualTo(manifests);
    assertThat(scan.scanMetrics().skippedDataManifests().value()).isPositive();
    assertThat(
            scan.scanMetrics().scannedDataManifests().value()
                + scan.scanMetrics().skippedDataManifests().value())
        .isEqualTo(manifests);
    assertThat(scan.scanMetrics().resultDataFiles().value()).isBetween(1L, 2L);
    assertThat(scan.scanMetrics().skippedDataFiles().value())
        .isEqualTo(
            ReadTestSupport.dataFiles(table).size() - scan.scanMetrics().resultDataFiles().value());
  }

  @Test
  void withIcebergsManifestCacheManifestsAreReadByIcebergOnly() {
    String query = "SELECT id FROM %s.plans.t WHERE id >= 600 AND id < 602";
    ScanReport pruned = reportOf("uncached", Map.of(), query);
    ScanReport cached = reportOf("cached", Map.of("io.manifest.cache-enabled", "true"), query);
    // the pruner would read manifests from storage that Iceberg's reader decodes from memory
    assertThat(cached.scanMetrics().scannedDataManifests().value())
        .isGreaterThan(pruned.scanMetrics().scannedDataManifests().value());
    assertThat(cached.scanMetrics().resultDataFiles().value())
        .isEqualTo(pruned.scanMetrics().resultDataFiles().value());
  }

  /** The last scan report of {@code query} run through a new catalog with these properties. */
  private static ScanReport reportOf(String catalog, Map<String, String> properties, String query) {
    String prefix = "spark.sql.catalog." + catalog;
    spark.conf().set(prefix, "io.floe.spark.FloeCatalog");
    spark.conf().set(prefix + ".type", "hadoop");
    spark.conf().set(prefix + ".warehouse", warehouse.toString());
    spark.conf().set(prefix + ".metrics-reporter-impl", Reports.class.getName());
    properties.forEach((key, value) -> spark.conf().set(prefix + "." + key, value));
    Reports.RECEIVED.clear();
    assertThat(spark.sql(String.format(query, catalog)).collectAsList()).hasSize(2);
    List<ScanReport> scans =
        Reports.RECEIVED.stream()
            .filter(ScanReport.class::isInstance)
            .map(ScanReport.class::cast)
            .toList();
    assertThat(scans).isNotEmpty();
    return scans.get(scans.size() - 1);
  }

  /** Collects the reports of a catalog's tables (Iceberg creates it by name, once per catalog). */
  public static class Reports implements MetricsReporter {
    static final List<MetricsReport> RECEIVED = new CopyOnWriteArrayList<>();

    @Override
    public void report(MetricsReport report) {
      RECEIVED.add(report);
    }
  }

  /** Whether Iceberg's own manifest reading keeps any live entry by this filter. */
  private static boolean anyEntryMayMatch(Table table, ManifestFile manifest, Expression filter) {
    try (CloseableIterable<DataFile> files =
        ManifestFiles.read(manifest, table.io(), table.specs()).filterRows(filter)) {
      return files.iterator().hasNext();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, String> icebergPlan(
      Table table, long snapshot, Expression filter, boolean caseSensitive, List<String> stats) {
    TableScan scan =
        table.newScan().useSnapshot(snapshot).caseSensitive(caseSensitive).filter(filter);
    if (!stats.isEmpty()) {
      scan = scan.includeColumnStats(stats);
    }
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return describe(tasks);
  }

  /** Each task's file and everything a reader or the optimizer takes from the task. */
  private static Map<String, String> describe(List<FileScanTask> tasks) {
    Map<String, String> described = new TreeMap<>();
    for (FileScanTask task : tasks) {
      DataFile file = task.file();
      String previous =
          described.put(
              file.location(),
              String.join(
                  " | ",
                  "spec=" + file.specId(),
                  "partition=" + file.partition(),
                  "records=" + file.recordCount(),
                  "size=" + file.fileSizeInBytes(),
                  "seq=" + file.dataSequenceNumber() + "/" + file.fileSequenceNumber(),
                  "lower=" + file.lowerBounds(),
                  "upper=" + file.upperBounds(),
                  "values=" + file.valueCounts(),
                  "nulls=" + file.nullValueCounts(),
                  "sizes=" + file.columnSizes(),
                  "splits=" + file.splitOffsets(),
                  "residual=" + task.residual(),
                  "deletes=" + task.deletes().size(),
                  "task-spec=" + task.spec().specId(),
                  "task-schema=" + task.schema().asStruct()));
      assertThat(previous).as("tasks of %s", file.location()).isNull();
    }
    return described;
  }
}
