package io.floe.spark.rowlevel;

import io.floe.spark.FloeCatalog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.spark.sql.SparkSession;

/**
 * A second driver JVM for {@link TwoDriverDmlTest}: runs one row-level statement against a Floe
 * catalog {@code floe} over a JDBC catalog (SQLite), meeting the test's own statement through
 * {@link RendezvousFiles}, and writes {@code committed} or {@code conflict} to a result file. Any
 * other failure exits non-zero with its stack trace in the log.
 *
 * <p>Arguments: jdbc-uri warehouse rendezvous-folder result-file statement
 */
public final class DmlDriver {
  private DmlDriver() {}

  public static void main(String[] args) throws Exception {
    SparkSession spark =
        SparkSession.builder()
            .master("local[1]")
            .appName("dml-driver")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.sql.catalog.floe", FloeCatalog.class.getName())
            .config("spark.sql.catalog.floe.type", "jdbc")
            .config("spark.sql.catalog.floe.uri", args[0])
            .config("spark.sql.catalog.floe.jdbc.schema-version", "V1")
            .config("spark.sql.catalog.floe.warehouse", args[1])
            .getOrCreate();
    try {
      RendezvousFiles.register(spark, args[2]);
      String outcome;
      try {
        spark.sql(args[4]).collectAsList();
        outcome = "committed";
      } catch (RuntimeException e) {
        if (!TwoDriverDmlTest.isConflict(e)) {
          throw e;
        }
        outcome = "conflict";
      }
      Files.writeString(Paths.get(args[3]), outcome, StandardCharsets.UTF_8);
    } finally {
      spark.stop();
    }
  }
}
