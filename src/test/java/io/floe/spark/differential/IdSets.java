package io.floe.spark.differential;

import io.floe.spark.read.FloeScan;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.expressions.Expression;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Evaluates many filter predicates at once, as row ids, through Spark's engine over a temporary
 * view and through a query of a Floe table.
 *
 * <p>Over the view, one query projects every predicate as a column, so Spark evaluates each
 * predicate on every row. Over the Floe table, one query is a UNION ALL with one branch per
 * predicate, {@code SELECT <k>, id FROM t WHERE <predicate k>}: every branch is its own scan, with
 * its own pushed filters, file pruning and row-group skipping, followed by Spark's filter. If a
 * batch fails, each predicate is run on its own so that the failing one is named.
 */
final class IdSets {

  /** What running one predicate gave: sorted row ids, or the error it raised. */
  record Result(List<Integer> ids, Exception error) {
    static Result of(List<Integer> ids) {
      List<Integer> sorted = new ArrayList<>(ids);
      sorted.sort(null);
      return new Result(List.copyOf(sorted), null);
    }

    boolean failed() {
      return error != null;
    }
  }

  /** What the Floe scans of a batch planned: how many scans, with a filter, and files. */
  static final class ScanCounts {
    int scans;
    int filtered;
    long filesPlanned;

    void add(List<FloeScan> planned) {
      for (FloeScan scan : planned) {
        scans += 1;
        if (scan.filter().op() != Expression.Operation.TRUE) {
          filtered += 1;
        }
        Set<String> files = new HashSet<>();
        scan.partitions().forEach(
            partition -> partition.tasks().forEach(task -> files.add(fileOf(task.asFileScanTask()))));
        filesPlanned += files.size();
      }
    }
  }

  private IdSets() {}

  /** The ids of the view's rows on which each predicate is TRUE, by Spark's own evaluation. */
  static List<Result> overView(SparkSession spark, String view, List<String> predicates) {
    List<Integer> all = IntStream.range(0, predicates.size()).boxed().toList();
    Result[] results = new Result[predicates.size()];
    bisect(all, results, batch -> viewBatch(spark, view, predicates, batch));
    return Arrays.asList(results);
  }

  /** Evaluates the predicates as columns of one query over every row of the relation. */
  private static List<Result> viewBatch(
      SparkSession spark, String view, List<String> predicates, List<Integer> batch) {
    String columns =
        batch.stream()
            .map(k -> "(" + predicates.get(k) + ") AS p" + k)
            .collect(Collectors.joining(", "));
    List<Row> rows = spark.sql("SELECT id, " + columns + " FROM " + view).collectAsList();
    List<List<Integer>> ids = new ArrayList<>();
    batch.forEach(k -> ids.add(new ArrayList<>()));
    for (Row row : rows) {
      for (int k = 0; k < batch.size(); k += 1) {
        if (Boolean.TRUE.equals(row.get(k + 1))) {
          ids.get(k).add(row.getInt(0));
        }
      }
    }
    return ids.stream().map(Result::of).toList();
  }

  /**
   * The ids of the rows that {@code SELECT id FROM <table> WHERE <predicate>} returns for each
   * predicate. Predicates marked in {@code skip} are not run and get a null result.
   *
   * <p>Each query is planned on its own, so each gets its own pushed filters and Floe scan. The
   * physical plans of the queries whose scan has a filter then run together as one Spark job, each
   * plan exactly as Spark built it (its Floe scan with pruned files and residuals, and Spark's
   * filter after it). A query whose scan has no filter reads every file and lets Spark filter: all
   * such predicates are evaluated by Spark over one full scan of the table, a projection with one
   * column per predicate, which gives the same rows without reading the table once per predicate.
   */
  static List<Result> overFloe(
      SparkSession spark, String table, List<String> predicates, boolean[] skip, ScanCounts counts) {
    Result[] results = new Result[predicates.size()];
    Map<Integer, SparkPlan> filtered = new LinkedHashMap<>();
    List<Integer> unfiltered = new ArrayList<>();
    for (int k = 0; k < predicates.size(); k += 1) {
      if (skip[k]) {
        continue;
      }
      try {
        SparkPlan plan =
            spark.sql("SELECT id FROM " + table + " AS t WHERE (" + predicates.get(k) + ")")
                .queryExecution().executedPlan();
        List<FloeScan> scans = floeScans(plan);
        counts.add(scans);
        if (!scans.isEmpty()
            && scans.stream().allMatch(scan -> scan.filter().op() == Expression.Operation.TRUE)) {
          unfiltered.add(k);
        } else {
          filtered.put(k, plan);
        }
      } catch (Exception e) {
        results[k] = new Result(null, e);
      }
    }
    bisect(List.copyOf(filtered.keySet()), results, batch -> runPlans(spark, batch, filtered));
    bisect(unfiltered, results, batch -> viewBatch(spark, table, predicates, batch));
    return Arrays.asList(results);
  }

  /** Runs the physical plans, which all return the column {@code id} only, as one Spark job. */
  private static List<Result> runPlans(
      SparkSession spark, List<Integer> batch, Map<Integer, SparkPlan> plans) {
    List<JavaRDD<Long>> rdds = new ArrayList<>();
    for (int k : batch) {
      long tag = (long) k << 32;
      rdds.add(plans.get(k).execute().toJavaRDD().map(row -> tag | (row.getInt(0) & 0xFFFFFFFFL)));
    }
    List<Long> tagged =
        JavaSparkContext.fromSparkContext(spark.sparkContext())
            .union(rdds.toArray(new JavaRDD[0]))
            .collect();
    Map<Integer, List<Integer>> ids = new HashMap<>();
    batch.forEach(k -> ids.put(k, new ArrayList<>()));
    tagged.forEach(value -> ids.get((int) (value >>> 32)).add((int) (long) value));
    return batch.stream().map(k -> Result.of(ids.get(k))).toList();
  }

  /** Runs a batch; if it fails, runs each half, down to single predicates, which keep the error. */
  private static void bisect(
      List<Integer> batch, Result[] results, Function<List<Integer>, List<Result>> run) {
    if (batch.isEmpty()) {
      return;
    }
    try {
      List<Result> batchResults = run.apply(batch);
      for (int k = 0; k < batch.size(); k += 1) {
        results[batch.get(k)] = batchResults.get(k);
      }
    } catch (Exception e) {
      if (batch.size() == 1) {
        results[batch.get(0)] = new Result(null, e);
        return;
      }
      int half = batch.size() / 2;
      bisect(batch.subList(0, half), results, run);
      bisect(batch.subList(half, batch.size()), results, run);
    }
  }

  /** Whether an error means the query was not valid SQL, rather than failing on some row. */
  static boolean isAnalysisError(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof AnalysisException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the error is Spark's own failure to translate a filter into a data source V2
   * predicate: Spark 4.1's V2ExpressionBuilder asserts that both sides of an AND or OR translate to
   * predicates, and a NULL boolean literal (left by the optimizer, e.g. for {@code i <> 7.5} where
   * i is an int) translates to a literal value. The query fails in planning, before any data
   * source sees a filter, for every DataSource V2 table.
   */
  static boolean isSparkPredicateTranslationBug(Throwable error) {
    // Spark moves the original frames of a planning error into a suppressed exception, so the
    // whole printed trace (causes and suppressed exceptions included) is searched
    StringWriter trace = new StringWriter();
    error.printStackTrace(new PrintWriter(trace));
    String text = trace.toString();
    return text.contains("INTERNAL_ERROR")
        && text.contains("java.lang.AssertionError")
        && text.contains("org.apache.spark.sql.catalyst.util.V2ExpressionBuilder.generateExpression");
  }

  /** The Floe scans in a physical plan. */
  static List<FloeScan> floeScans(SparkPlan plan) {
    List<FloeScan> scans = new ArrayList<>();
    for (SparkPlan leaf : CollectionConverters.asJava(plan.collectLeaves())) {
      if (leaf instanceof BatchScanExec batchScan && batchScan.scan() instanceof FloeScan scan) {
        scans.add(scan);
      }
    }
    return scans;
  }

  private static String fileOf(FileScanTask task) {
    return task.file().location();
  }
}
