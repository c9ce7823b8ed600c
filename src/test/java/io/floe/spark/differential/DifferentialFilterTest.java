package io.floe.spark.differential;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeScan;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The differential test of filter pushdown: thousands of seeded random predicates (see {@link
 * PredicateGenerator}) must return exactly the same rows from a Floe table, where they are pushed
 * into scan planning and the Parquet reader, as from a Spark temporary view of the same rows (see
 * {@link EdgeTable}), where Spark's own engine evaluates them.
 *
 * <p>Predicates run in batches (see {@link IdSets}); each batch picks a session time zone and
 * whether ANSI mode is on. With ANSI on, a predicate that fails on some row of the view (an
 * overflowing cast, say) is not compared. A predicate that Spark itself cannot plan for any
 * DataSource V2 table (see {@link IdSets#isSparkPredicateTranslationBug}) is counted and reported,
 * not compared. Any other failure, of the view or of Floe, fails the test.
 *
 * <p>System properties: {@code floe.differential.seed} (a number, or {@code random}; default a
 * fixed seed) chooses the rows and predicates, {@code floe.differential.count} (default 800) how
 * many predicates run, {@code floe.differential.rows} (default 200) how many rows the table holds,
 * {@code floe.differential.reported} (default 5) how many differing predicates are described in
 * full, and {@code floe.differential.codegen=true} makes Spark generate code for the filters, as it
 * does by default (the test turns code generation off because compiling thousands of one-off
 * expressions costs more than evaluating them on a few hundred rows). A failure reports the seed
 * and, for each differing predicate, its SQL, the session settings, the rows that differ and the
 * filter Floe pushed.
 */
class DifferentialFilterTest extends SparkTestBase {
  private static final long DEFAULT_SEED = 20_260_611L;
  private static final int DEFAULT_COUNT = 800;
  private static final int DEFAULT_ROWS = 200;
  private static final int BATCH = 50;
  private static final String TABLE = "floe.diff.edges";
  private static final String VIEW = "diff_edges_view";
  /**
   * Loggers quietened during the test: the planner logs every scan, and Spark logs every task
   * that fails under ANSI mode; the test reports what it needs itself.
   */
  private static final List<String> QUIET_LOGGERS =
      List.of("io.floe.spark.read.plan.ScanPlanner", "org.apache.spark.executor.Executor",
          "org.apache.spark.scheduler.TaskSetManager");
  private static final List<String> ZONES =
      List.of("UTC", "America/Los_Angeles", "Asia/Kolkata", "Pacific/Kiritimati",
          "Pacific/Pago_Pago", "Australia/Lord_Howe", "Europe/Berlin");

  private static long seed;
  private static List<Row> rows;
  private static int fileCount;
  private static final Map<String, Level> loggerLevels = new HashMap<>();

  @BeforeAll
  static void createTableAndView() {
    seed = seedProperty();
    System.out.println("Differential filter test: seed " + seed);
    rows = EdgeRows.generate(seed, Integer.getInteger("floe.differential.rows", DEFAULT_ROWS));
    for (String logger : QUIET_LOGGERS) {
      loggerLevels.put(logger, LogManager.getLogger(logger).getLevel());
      Configurator.setLevel(logger, Level.OFF);
    }
    spark.conf().set("spark.sql.datetime.java8API.enabled", "true");
    // the view's filters run as they do over a Floe scan, in a Spark job, rather than being
    // folded into a new local relation by the optimizer
    spark.conf().set("spark.sql.optimizer.excludedRules",
        "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation");
    if (!Boolean.getBoolean("floe.differential.codegen")) {
      spark.conf().set("spark.sql.codegen.wholeStage", "false");
      spark.conf().set("spark.sql.codegen.factoryMode", "NO_CODEGEN");
    }
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.diff");
    fileCount = EdgeTable.createFloeTable(spark, "diff.edges", rows);
    EdgeTable.createView(spark, VIEW, rows);
  }

  @AfterAll
  static void restoreLogging() {
    loggerLevels.forEach(Configurator::setLevel);
  }

  @Test
  void tableHoldsTheViewsRowsInManySmallFiles() {
    spark.conf().set("spark.sql.session.timeZone", "UTC");
    assertThat(fileCount).isGreaterThanOrEqualTo(50);
    List<Row> floe = spark.sql("SELECT * FROM " + TABLE + " ORDER BY id").collectAsList();
    List<Row> view = spark.sql("SELECT * FROM " + VIEW + " ORDER BY id").collectAsList();
    assertThat(floe.stream().map(RowText::of).toList())
        .containsExactlyElementsOf(view.stream().map(RowText::of).toList());
  }

  @Test
  void randomPredicatesReturnTheSameRowsFromFloeAsFromSparksOwnEngine() {
    int count = Integer.getInteger("floe.differential.count", DEFAULT_COUNT);
    int reported = Integer.getInteger("floe.differential.reported", 5);
    long cpuStart = processCpuNanos();
    PredicateGenerator generator = new PredicateGenerator(seed, rows);
    Random settings = new Random(seed ^ 0x5DEECE66DL);
    IdSets.ScanCounts counts = new IdSets.ScanCounts();
    List<String> mismatches = new ArrayList<>();
    int compared = 0;
    int failingUnderAnsi = 0;
    int sparkBugs = 0;
    for (int start = 0; start < count; start += BATCH) {
      List<String> predicates = new ArrayList<>();
      for (int k = start; k < Math.min(count, start + BATCH); k += 1) {
        predicates.add(generator.next());
      }
      String zone = ZONES.get(settings.nextInt(ZONES.size()));
      boolean ansi = settings.nextInt(3) == 0;
      spark.conf().set("spark.sql.session.timeZone", zone);
      spark.conf().set("spark.sql.ansi.enabled", Boolean.toString(ansi));

      List<IdSets.Result> expected = IdSets.overView(spark, VIEW, predicates);
      boolean[] skip = new boolean[predicates.size()];
      for (int k = 0; k < predicates.size(); k += 1) {
        IdSets.Result result = expected.get(k);
        if (result.failed()) {
          if (!ansi || IdSets.isAnalysisError(result.error())) {
            throw new AssertionError("The generator made a predicate Spark cannot run (seed " + seed
                + ", predicate " + (start + k) + ", time zone " + zone + ", ANSI " + ansi + "): "
                + predicates.get(k), result.error());
          }
          skip[k] = true;
          failingUnderAnsi += 1;
        }
      }
      List<IdSets.Result> actual = IdSets.overFloe(spark, TABLE, predicates, skip, counts);
      for (int k = 0; k < predicates.size(); k += 1) {
        if (skip[k]) {
          continue;
        }
        if (actual.get(k).failed()
            && IdSets.isSparkPredicateTranslationBug(actual.get(k).error())) {
          sparkBugs += 1;
          continue;
        }
        compared += 1;
        if (!expected.get(k).equals(actual.get(k))) {
          mismatches.add(mismatches.size() < reported
              ? describe(start + k, predicates.get(k), zone, ansi, expected.get(k), actual.get(k))
              : "predicate " + (start + k) + " (time zone " + zone + ", ANSI " + ansi + "): "
                  + predicates.get(k));
        }
      }
    }
    System.out.printf(
        "Differential filter test: seed %d, %d predicates: %d compared, %d failing on the view"
            + " under ANSI, %d failing in Spark's own V2 predicate translation; %d rows in %d"
            + " data files; %d Floe scans, %d with a pushed filter, %.1f files planned per scan;"
            + " %.1f s CPU%n",
        seed, count, compared, failingUnderAnsi, sparkBugs, rows.size(), fileCount, counts.scans,
        counts.filtered, counts.scans == 0 ? 0.0 : (double) counts.filesPlanned / counts.scans,
        (processCpuNanos() - cpuStart) / 1e9);
    assertThat(mismatches)
        .as("predicates returning other rows from Floe than from Spark's own engine (seed %d;"
            + " rerun with -Dfloe.differential.seed=%d -Dfloe.differential.count=%d)",
            seed, seed, count)
        .isEmpty();
    // the comparison is only worth its time if most predicates are pushed and prune files
    assertThat(counts.filtered).isGreaterThan(counts.scans / 2);
    assertThat(counts.filesPlanned).isLessThan((long) counts.scans * fileCount * 3 / 4);
  }

  private static String describe(
      int index, String predicate, String zone, boolean ansi, IdSets.Result expected,
      IdSets.Result actual) {
    StringBuilder text = new StringBuilder();
    text.append("predicate ").append(index).append(" (seed ").append(seed).append(", time zone ")
        .append(zone).append(", ANSI ").append(ansi).append("):\n  ").append(predicate).append('\n');
    if (actual.failed()) {
      text.append("  Floe query failed: ").append(stackOf(actual.error()));
      return text.toString();
    }
    Set<Integer> missing = new HashSet<>(expected.ids());
    missing.removeAll(actual.ids());
    Set<Integer> extra = new HashSet<>(actual.ids());
    extra.removeAll(expected.ids());
    text.append("  Spark's engine: ").append(expected.ids().size()).append(" rows; Floe: ")
        .append(actual.ids().size()).append(" rows\n");
    if (new HashSet<>(actual.ids()).size() != actual.ids().size()) {
      text.append("  Floe returned some rows more than once\n");
    }
    appendRows(text, "  missing from Floe:", missing);
    appendRows(text, "  only from Floe:", extra);
    List<Integer> viewWhere =
        spark.sql("SELECT id FROM " + VIEW + " AS v WHERE (" + predicate + ") ORDER BY id")
            .collectAsList().stream().map(row -> row.getInt(0)).toList();
    text.append("  the view filtered with WHERE gives ")
        .append(viewWhere.equals(expected.ids()) ? "the same rows as its projection" : viewWhere)
        .append('\n');
    for (FloeScan scan : IdSets.floeScans(
        spark.sql("SELECT id FROM " + TABLE + " AS t WHERE (" + predicate + ")")
            .queryExecution().sparkPlan())) {
      text.append("  Floe's scan filter: ").append(scan.filter()).append('\n');
    }
    return text.toString();
  }

  /** The error and its root cause with the first frames, where a product bug shows itself. */
  private static String stackOf(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    StringBuilder text = new StringBuilder(String.valueOf(error)).append('\n');
    if (root != error) {
      text.append("  caused by ").append(root).append('\n');
    }
    StackTraceElement[] frames = root.getStackTrace();
    for (int k = 0; k < Math.min(12, frames.length); k += 1) {
      text.append("      at ").append(frames[k]).append('\n');
    }
    return text.toString();
  }

  private static void appendRows(StringBuilder text, String title, Set<Integer> ids) {
    if (ids.isEmpty()) {
      return;
    }
    text.append(title).append('\n');
    ids.stream().sorted().limit(10).forEach(
        id -> text.append("    ").append(RowText.of(rows.get(id))).append('\n'));
  }

  private static long seedProperty() {
    String value = System.getProperty("floe.differential.seed");
    if (value == null || value.isBlank()) {
      return DEFAULT_SEED;
    }
    return value.equalsIgnoreCase("random") ? new Random().nextLong() : Long.parseLong(value);
  }

  private static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : 0L;
  }
}
