package io.floe.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Runs a query through both of Floe's read paths, the columnar one and the row one, checks that
 * each query took the path asked for, and hands back the rows of each as canonical strings.
 */
public final class ReadPaths {
  private ReadPaths() {}

  /**
   * The query's rows, read columnar and read as rows; the two must be equal.
   *
   * @return the rows, as {@link ReadTestSupport#canonicalRows} sorts them
   */
  public static List<String> bothPaths(SparkSession spark, String query) {
    try {
      spark.conf().set(FloeBatch.VECTORIZATION_CONF, "true");
      List<String> columnar = run(spark, query, true);
      spark.conf().set(FloeBatch.VECTORIZATION_CONF, "false");
      List<String> rows = run(spark, query, false);
      assertThat(columnar).as("columnar against rows for " + query).isEqualTo(rows);
      return columnar;
    } finally {
      spark.conf().unset(FloeBatch.VECTORIZATION_CONF);
    }
  }

  /**
   * The query's rows with vectorization on and off, for scans the columnar path does not serve:
   * both settings must read rows (the scan is never columnar) and give the same rows.
   */
  public static List<String> rowPathEitherWay(SparkSession spark, String query) {
    try {
      spark.conf().set(FloeBatch.VECTORIZATION_CONF, "true");
      List<String> vectorized = run(spark, query, false);
      spark.conf().set(FloeBatch.VECTORIZATION_CONF, "false");
      List<String> rows = run(spark, query, false);
      assertThat(vectorized).as("vectorization on against off for " + query).isEqualTo(rows);
      return rows;
    } finally {
      spark.conf().unset(FloeBatch.VECTORIZATION_CONF);
    }
  }

  private static List<String> run(SparkSession spark, String query, boolean columnar) {
    Dataset<Row> df = spark.sql(query);
    List<Row> rows = df.collectAsList();
    SparkPlan plan = df.queryExecution().sparkPlan();
    boolean sawScan = false;
    for (SparkPlan leaf : CollectionConverters.asJava(plan.collectLeaves())) {
      if (leaf instanceof BatchScanExec) {
        sawScan = true;
        assertThat(leaf.supportsColumnar()).as("columnar scan in " + query).isEqualTo(columnar);
      }
    }
    assertThat(sawScan).as("a Floe scan in " + query).isTrue();
    return ReadTestSupport.canonicalRows(rows);
  }
}
