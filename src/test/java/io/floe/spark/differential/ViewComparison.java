package io.floe.spark.differential;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.read.FloeScan;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.types.StructType;

/**
 * The same rows as a Floe table and as a Spark temporary view, and the check that a filter returns
 * the same rows from both. The view is a DataFrame of the rows; the table is filled from that
 * DataFrame with Floe's writer, in one file per table partition.
 *
 * @param spark the session
 * @param table the Floe table, {@code floe.<namespace>.<name>}
 * @param view the temporary view
 */
record ViewComparison(SparkSession spark, String table, String view) {

  /**
   * Creates the view and the table.
   *
   * @param columns the table's columns as DDL, matching {@code schema}
   * @param partitioning the PARTITIONED BY clause's transforms, or empty for none
   */
  static ViewComparison create(
      SparkSession spark, String table, String view, StructType schema, String columns,
      String partitioning, List<Row> rows) {
    spark.createDataFrame(rows, schema).createOrReplaceTempView(view);
    spark.sql("CREATE TABLE " + table + " (" + columns + ") USING iceberg"
        + (partitioning.isEmpty() ? "" : " PARTITIONED BY (" + partitioning + ")"));
    try {
      spark.table(view).writeTo(table).append();
    } catch (NoSuchTableException e) {
      throw new IllegalStateException("Cannot write to " + table + ": it was not created", e);
    }
    return new ViewComparison(spark, table, view);
  }

  /** The ids of the rows the filter selects from the view, sorted. */
  List<Integer> viewIds(String predicate) {
    return ids(view, predicate);
  }

  /** The ids of the rows the filter selects from the Floe table, sorted. */
  List<Integer> floeIds(String predicate) {
    return ids(table, predicate);
  }

  /**
   * Asserts that the filter returns the same rows from Floe as from the view, and that the view's
   * rows are the expected ones (so that the rows exercise what the case is about).
   */
  void assertSameRows(String predicate, Integer... expectedIds) {
    List<Integer> fromView = viewIds(predicate);
    assertThat(fromView).as("Spark's own rows for %s", predicate).containsExactly(expectedIds);
    assertThat(floeIds(predicate))
        .as("rows from Floe for %s (Floe's scan filter: %s)", predicate, pushedFilter(predicate))
        .isEqualTo(fromView);
  }

  /** Floe's scan filter for the predicate, as text. */
  String pushedFilter(String predicate) {
    return scans(predicate).stream()
        .map(scan -> String.valueOf(scan.filter()))
        .collect(Collectors.joining("; "));
  }

  /** The number of data files Floe's scan plans to read for the predicate. */
  long filesPlanned(String predicate) {
    return scans(predicate).stream()
        .flatMap(scan -> scan.partitions().stream())
        .flatMap(partition -> partition.tasks().stream())
        .map(task -> task.asFileScanTask().file().location())
        .distinct()
        .count();
  }

  private List<FloeScan> scans(String predicate) {
    return IdSets.floeScans(
        spark.sql("SELECT id FROM " + table + " AS t WHERE (" + predicate + ")")
            .queryExecution().sparkPlan());
  }

  private List<Integer> ids(String relation, String predicate) {
    return spark.sql("SELECT id FROM " + relation + " AS r WHERE (" + predicate + ") ORDER BY id")
        .collectAsList().stream().map(row -> row.getInt(0)).toList();
  }
}
