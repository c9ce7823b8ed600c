package io.floe.spark.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The {@code maintenance} scenario of the side-by-side benchmark (issue 28): compaction and snapshot
 * expiry of a table of many small files with a long history, through each engine's {@code CALL}.
 *
 * <p>Untimed preparation, the same in every engine's JVM: a fresh table {@code
 * bench.maint.compact_<engine>} (the synthetic table's eight columns, unpartitioned, format v2) gets
 * {@link #FILES} data files of {@link #ROWS_PER_FILE} rows each from one Spark write through the
 * engine itself (rows generated from {@code range}, so every engine writes the same rows into the
 * same number of files). Then, through Iceberg's own API (the same code and version in both JVMs),
 * one commit removes every file and {@link #APPENDS} fast appends add them back in equal shares, so
 * the table's current snapshot holds the same rows in {@link #APPENDS} manifests and its history
 * has {@code APPENDS + 2} snapshots, like a table fed by many small commits.
 *
 * <p>Timed, one {@code RESULT} line each:
 *
 * <ul>
 *   <li>{@code rewrite-data-files}: {@code CALL bench.system.rewrite_data_files(table => ...)} with
 *       the defaults (bin-pack); the answer is the procedure's file counts and the table's row
 *       fingerprint afterwards, files the table's data files afterwards;
 *   <li>{@code expire-snapshots}: after one more append of a single row (untimed), {@code CALL
 *       bench.system.expire_snapshots(table => ..., older_than => current_timestamp(), retain_last =>
 *       1)}, which expires every snapshot but that last one and deletes the small files, their
 *       manifests and manifest lists; the answer is
 *       the deleted data files and manifest lists, the snapshots left and the fingerprint, files the
 *       deleted manifests.
 * </ul>
 *
 * <p>A fingerprint that changes from before the compaction to after it, or after the expiry, makes
 * the answer say so ({@code CHANGED}), so the report shows it as a disagreement.
 */
final class MaintenanceScenario {
  /** Data files of the table before compaction: 400 at quick scale, 10,000 at full scale. */
  static final int FILES = Integer.getInteger("bench.maint.files", 400);
  /** Rows in each of them. */
  static final int ROWS_PER_FILE = 250;
  /**
   * Fast appends that make the table's history, each of an equal share of the files: 200 at quick
   * scale, 1,000 at full scale.
   */
  static final int APPENDS = Integer.getInteger("bench.maint.appends", FILES / 2);

  private MaintenanceScenario() {}

  /** Prepares the table, then runs and prints the two timed procedure calls. */
  static void run(SparkSession spark, String engine, String warehouse, BenchMain.HeapWatch heap) {
    String name = "compact_" + engine;
    String table = "bench.maint." + name;
    prepare(spark, engine, warehouse, name, table);
    String before = fingerprint(spark, table);

    heap.start();
    long start = System.nanoTime();
    Row rewrite =
        spark.sql("CALL bench.system.rewrite_data_files(table => 'maint." + name + "')").first();
    double seconds = (System.nanoTime() - start) / 1e9;
    String heapUse = heap.stop();
    String afterRewrite = fingerprint(spark, table);
    BenchMain.printResult(
        "rewrite-data-files",
        engine,
        seconds,
        "rewritten=" + rewrite.getInt(0) + ",added=" + rewrite.getInt(1) + ",rows="
            + checked(before, afterRewrite),
        String.valueOf(count(spark, "SELECT count(*) FROM " + table + ".data_files")),
        heapUse);

    // one more small commit, kept so that results stay comparable with earlier runs: both engines
    // free every file no retained snapshot references, so the small files go with or without it
    spark.sql(
        "INSERT INTO " + table + " SELECT " + BenchMain.COLUMNS + " FROM " + table + " WHERE id = 0");
    String beforeExpire = fingerprint(spark, table);
    heap.start();
    start = System.nanoTime();
    Row expire =
        spark
            .sql(
                "CALL bench.system.expire_snapshots(table => 'maint." + name + "',"
                    + " older_than => current_timestamp(), retain_last => 1)")
            .first();
    seconds = (System.nanoTime() - start) / 1e9;
    heapUse = heap.stop();
    BenchMain.printResult(
        "expire-snapshots",
        engine,
        seconds,
        "data=" + expire.getLong(0) + ",lists=" + expire.getLong(4) + ",snapshots="
            + count(spark, "SELECT count(*) FROM " + table + ".snapshots") + ",rows="
            + checked(beforeExpire, fingerprint(spark, table)),
        String.valueOf(expire.getLong(3)),
        heapUse);
    spark.sql("DROP TABLE IF EXISTS " + table + (engine.equals("official") ? " PURGE" : ""));
  }

  private static void prepare(
      SparkSession spark, String engine, String warehouse, String name, String table) {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS bench.maint");
    spark.sql("DROP TABLE IF EXISTS " + table + (engine.equals("official") ? " PURGE" : ""));
    spark.sql(
        "CREATE TABLE " + table + " (id BIGINT, k BIGINT, v1 DOUBLE, v2 DOUBLE, s1 STRING,"
            + " s2 STRING, d DATE, ts TIMESTAMP) USING iceberg TBLPROPERTIES ('format-version'='2')");
    // one range partition per file: an unpartitioned table without sort order is written with no
    // shuffle by both engines, so each task writes one file
    spark.sql(
        "INSERT INTO " + table + " SELECT id, id % 1000 AS k, CAST(id AS DOUBLE) * 1.5 AS v1,"
            + " CAST(id % 997 AS DOUBLE) / 997 AS v2,"
            + " concat('name-', CAST(id * 7919 % 1000003 AS STRING)) AS s1,"
            + " concat('cat-', CAST(id % 17 AS STRING)) AS s2,"
            + " date_add(DATE'2024-01-01', CAST(id % 365 AS INT)) AS d,"
            + " timestamp_seconds(1704067200 + (id * 2654435761 % (30 * 86400))) AS ts"
            + " FROM range(0, " + (long) FILES * ROWS_PER_FILE + ", 1, " + FILES + ")");
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse);
    try {
      Table iceberg = catalog.loadTable(TableIdentifier.of("maint", name));
      List<DataFile> files = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
        tasks.forEach(task -> files.add(task.file()));
      }
      if (files.size() != FILES) {
        throw new IllegalStateException(
            "Cannot prepare scenario maintenance: engine " + engine + " wrote " + files.size()
                + " files into " + table + ", expected " + FILES);
      }
      DeleteFiles delete = iceberg.newDelete();
      files.forEach(delete::deleteFile);
      delete.commit();
      if (APPENDS < 1 || FILES % APPENDS != 0) {
        throw new IllegalStateException(
            "Cannot prepare scenario maintenance: " + APPENDS + " appends cannot share " + FILES
                + " files equally");
      }
      int perAppend = FILES / APPENDS;
      for (int i = 0; i < APPENDS; i++) {
        AppendFiles append = iceberg.newFastAppend();
        files.subList(i * perAppend, (i + 1) * perAppend).forEach(append::appendFile);
        append.commit();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      try {
        catalog.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    // the engines' catalogs may hold the table as it was before the commits above
    spark.sql("REFRESH TABLE " + table);
    long snapshots = count(spark, "SELECT count(*) FROM " + table + ".snapshots");
    if (snapshots != APPENDS + 2) {
      throw new IllegalStateException(
          "Cannot prepare scenario maintenance: " + table + " has " + snapshots
              + " snapshots after the appends, expected " + (APPENDS + 2));
    }
  }

  private static String checked(String before, String after) {
    return Objects.equals(before, after) ? after : "CHANGED:" + before + "->" + after;
  }

  private static String fingerprint(SparkSession spark, String table) {
    Row row =
        spark.sql("SELECT count(*), sum(hash(" + BenchMain.COLUMNS + ")) FROM " + table).first();
    return row.get(0) + ":" + row.get(1);
  }

  private static long count(SparkSession spark, String query) {
    return spark.sql(query).first().getLong(0);
  }
}
