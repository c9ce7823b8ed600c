package io.floe.spark.bench;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Objects;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.SparkSession;

/**
 * Makes the many-file table of the benchmark's {@code planning} scenario (issue 10); not a test.
 *
 * <p>Writing tens of thousands of real files through Spark would take longer than the benchmark, so the
 * official runtime writes one small Parquet file ({@link #ROWS_PER_FILE} rows of the synthetic schema)
 * and this class, through the Iceberg API, hard-links it under {@code files - 1} more names in the
 * table's data folder and appends one data file entry per name (copying the original entry's
 * statistics, which are true for every copy) in fast-append commits of {@link #FILES_PER_COMMIT} files,
 * one manifest per commit. The table is therefore a real, readable Iceberg table of {@code files} data
 * files, each holding the same rows, with full column statistics in every manifest entry. It runs in
 * the generator JVM (Spark plus the official runtime) and carries no state.
 */
final class PlanningTableGenerator {

  /** The many-file table, inside catalog {@code bench}. */
  static final String TABLE = "bench.db.plan_files";

  /** Rows in the one real Parquet file every entry points at (through a hard link). */
  static final int ROWS_PER_FILE = 100;

  /** Data files per fast-append commit; each commit writes one manifest. */
  static final int FILES_PER_COMMIT = 500;

  private PlanningTableGenerator() {}

  /** Creates {@link #TABLE} with {@code files} data files in warehouse {@code warehouse}. */
  static void generate(SparkSession spark, String warehouse, int files) throws Exception {
    Objects.requireNonNull(spark, "spark is null");
    Objects.requireNonNull(warehouse, "warehouse is null");
    if (files < 1) {
      throw new IllegalArgumentException(
          "Cannot generate " + TABLE + ": file count must be positive, got " + files);
    }
    spark.sql("CREATE NAMESPACE IF NOT EXISTS bench.db");
    spark.sql("DROP TABLE IF EXISTS " + TABLE + " PURGE");
    spark.sql(
        "CREATE TABLE " + TABLE + " (id BIGINT, k BIGINT, v1 DOUBLE, v2 DOUBLE, s1 STRING,"
            + " s2 STRING, d DATE, ts TIMESTAMP) USING iceberg");
    spark
        .range(0, ROWS_PER_FILE, 1, 1)
        .selectExpr(
            "id",
            "id % 10 AS k",
            "CAST(id AS DOUBLE) * 1.5 AS v1",
            "CAST(id AS DOUBLE) / 7 AS v2",
            "concat('name-', CAST(id AS STRING)) AS s1",
            "concat('cat-', CAST(id % 17 AS STRING)) AS s2",
            "date_add(DATE'2024-01-01', CAST(id AS INT)) AS d",
            "timestamp_seconds(1704067200 + id * 3600) AS ts")
        .writeTo(TABLE)
        .append();

    HadoopCatalog catalog = new HadoopCatalog(spark.sparkContext().hadoopConfiguration(), warehouse);
    try {
      Table table = catalog.loadTable(TableIdentifier.of("db", "plan_files"));
      DataFile original;
      try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
        original = tasks.iterator().next().file();
      }
      Path source = localPath(original.location());
      Path dataDir = source.getParent();
      int written = 1;
      while (written < files) {
        AppendFiles append = table.newFastAppend();
        int batch = Math.min(FILES_PER_COMMIT, files - written);
        for (int i = 0; i < batch; i++) {
          Path link = dataDir.resolve(String.format(Locale.ROOT, "link-%07d.parquet", written + i));
          Files.createLink(link, source);
          append.appendFile(
              DataFiles.builder(table.spec()).copy(original).withPath(link.toUri().toString()).build());
        }
        append.commit();
        written += batch;
      }
      table.refresh();
      String count = table.currentSnapshot().summary().get("total-data-files");
      System.out.println(
          String.format(
              Locale.ROOT,
              "GENERATED %s with %s data files (%d rows each, %d manifests)",
              TABLE,
              count,
              ROWS_PER_FILE,
              table.currentSnapshot().allManifests(table.io()).size()));
    } finally {
      catalog.close();
    }
  }

  private static Path localPath(String location) {
    URI uri = URI.create(location);
    if (uri.getScheme() == null) {
      return Paths.get(location);
    }
    if (!uri.getScheme().equals("file")) {
      throw new IllegalArgumentException(
          "Cannot hard-link data file " + location + ": the warehouse must be on the local file system");
    }
    return Paths.get(uri);
  }
}
