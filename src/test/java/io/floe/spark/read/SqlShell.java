package io.floe.spark.read;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A long-lived SQL driver for a test's second JVM ({@link OfficialRuntime.Session}): it reads one
 * Base64-encoded statement per line from stdin, runs it, prints each result row as {@code row>
 * v1|v2|...} and then {@code ok>}, or {@code error> <Base64 stack trace>} if the statement
 * failed, and keeps its one SparkSession until stdin ends. One JVM then serves every check of a
 * test class instead of one JVM start (several seconds) per check.
 *
 * <p>It uses nothing but Spark's API, so it runs with any Iceberg runtime on its classpath.
 */
public final class SqlShell {
  static final String ROW_PREFIX = "row> ";
  static final String OK = "ok>";
  static final String ERROR_PREFIX = "error> ";

  private SqlShell() {}

  public static void main(String[] args) throws Exception {
    // Spark and the runtime may print to stdout: the protocol's lines carry their own prefixes
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    SparkSession spark = SparkSession.builder().appName("floe-sql-shell").getOrCreate();
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        String statement = new String(Base64.getDecoder().decode(line), StandardCharsets.UTF_8);
        try {
          List<Row> rows = spark.sql(statement).collectAsList();
          for (Row row : rows) {
            out.println(ROW_PREFIX + row.mkString("|"));
          }
          out.println(OK);
        } catch (Exception e) {
          StringWriter trace = new StringWriter();
          e.printStackTrace(new java.io.PrintWriter(trace));
          out.println(
              ERROR_PREFIX
                  + Base64.getEncoder()
                      .encodeToString(trace.toString().getBytes(StandardCharsets.UTF_8)));
        }
      }
    } finally {
      spark.stop();
    }
  }
}
