package io.floe.spark.packaging;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The application the packaging tests hand to {@code spark-submit}: it runs each argument as one
 * SQL statement and prints every result row as {@code row> v1|v2|...}, then one line saying which
 * master ran it and how many executors (besides the driver) took part.
 *
 * <p>It uses nothing but Spark's API, so it is packaged alone (without Floe) and every Floe class
 * it reaches through SQL must come from {@code --packages} or {@code --jars}. Catalog settings
 * come from {@code --conf}, exactly as a user's job gets them.
 */
public final class SqlApp {
  static final String ROW_PREFIX = "row> ";
  static final String DONE_PREFIX = "done> ";

  private SqlApp() {}

  public static void main(String[] statements) {
    SparkSession spark = SparkSession.builder().appName("floe-packaging").getOrCreate();
    try {
      for (String statement : statements) {
        List<Row> rows = spark.sql(statement).collectAsList();
        for (Row row : rows) {
          System.out.println(ROW_PREFIX + row.mkString("|"));
        }
      }
      // the driver is listed among the executor infos as well
      int executors = spark.sparkContext().statusTracker().getExecutorInfos().length - 1;
      System.out.println(
          DONE_PREFIX + "master=" + spark.sparkContext().master() + " executors=" + executors);
    } finally {
      spark.stop();
    }
  }
}
