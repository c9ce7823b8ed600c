package io.floe.spark.commit;

import io.floe.spark.FloeCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.spark.sql.SparkSession;

/**
 * A separate driver for {@link CrossProcessCommitTest}: appends rows [from, to) with a commit id to a
 * table of a JDBC catalog, starting the write only when the test creates the "go" file, so that
 * several drivers commit at the same moment.
 *
 * <p>Arguments: jdbc-uri warehouse table commit-id from to ready-file go-file
 */
public final class SameIdWriter {
  private SameIdWriter() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    String warehouse = args[1];
    String table = args[2];
    String commitId = args[3];
    long from = Long.parseLong(args[4]);
    long to = Long.parseLong(args[5]);
    Path ready = Paths.get(args[6]);
    Path go = Paths.get(args[7]);

    SparkSession spark =
        SparkSession.builder()
            .master("local[1]")
            .appName("same-id-writer")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.catalog.floe", FloeCatalog.class.getName())
            .config("spark.sql.catalog.floe.type", "jdbc")
            .config("spark.sql.catalog.floe.uri", uri)
            .config("spark.sql.catalog.floe.jdbc.schema-version", "V1")
            .config("spark.sql.catalog.floe.warehouse", warehouse)
            .getOrCreate();
    try {
      var rows = spark.range(from, to, 1, 1).selectExpr("id", "CAST(id AS STRING) AS data");
      spark.table("floe." + table).schema();
      Files.createFile(ready);
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (!Files.exists(go)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Cannot start the write: the go file never appeared");
        }
        Thread.sleep(10);
      }
      rows.writeTo("floe." + table).option("commit-id", commitId).append();
    } finally {
      spark.stop();
    }
  }
}
