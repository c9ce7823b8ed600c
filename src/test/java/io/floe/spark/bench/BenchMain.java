package io.floe.spark.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Command-line entry point of the side-by-side benchmark in {@code benchmarks/} (issue 10); not a test.
 *
 * <p>It uses only Spark's public API, so the same class runs on three classpaths: Spark plus the
 * official {@code iceberg-spark-runtime} (engine {@code official}), Spark plus Floe (engine {@code floe}),
 * and plain Spark (engine {@code parquet}, Spark's built-in Parquet reader over the table's data files).
 * Each engine runs in its own JVM started by {@code benchmarks/run.sh}.
 *
 * <p>Usage:
 *
 * <ul>
 *   <li>{@code generate <warehouse> <rows>}: creates {@code bench.db.src} with the official runtime;
 *   <li>{@code run <engine> <warehouse> <scenario>...}: runs each scenario once after one warm-up query and
 *       prints one {@code RESULT <scenario> <engine> <seconds> <answer>} line per scenario.
 * </ul>
 */
public final class BenchMain {

  /** The source table every scenario reads, inside catalog {@code bench}. */
  static final String SOURCE = "bench.db.src";

  /** The eight columns of the synthetic table, in order. */
  static final String COLUMNS = "id, k, v1, v2, s1, s2, d, ts";

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    Objects.requireNonNull(args, "args is null");
    if (args.length < 3) {
      throw new IllegalArgumentException(
          "Cannot run benchmark: expected 'generate <warehouse> <rows>' or"
              + " 'run <engine> <warehouse> <scenario>...'");
    }
    switch (args[0]) {
      case "generate" -> generate(args[1], Long.parseLong(args[2]));
      case "run" -> run(args[1], args[2], List.of(args).subList(3, args.length));
      default -> throw new IllegalArgumentException(
          "Cannot run benchmark: unknown command '" + args[0] + "'");
    }
  }

  private static SparkSession session(String engine, String warehouse) {
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName("floe-bench-" + engine)
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.host", "127.0.0.1");
    switch (engine) {
      case "official" -> builder
          .config("spark.sql.catalog.bench", "org.apache.iceberg.spark.SparkCatalog")
          .config("spark.sql.catalog.bench.type", "hadoop")
          .config("spark.sql.catalog.bench.warehouse", warehouse)
          .config(
              "spark.sql.extensions",
              "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
      case "floe" -> builder
          .config("spark.sql.catalog.bench", "io.floe.spark.FloeCatalog")
          .config("spark.sql.catalog.bench.type", "hadoop")
          .config("spark.sql.catalog.bench.warehouse", warehouse)
          .config("spark.kryo.registrator", "io.floe.spark.FloeKryoRegistrator");
      case "parquet" -> { }
      default -> throw new IllegalArgumentException(
          "Cannot run benchmark: unknown engine '" + engine + "' (floe, official, parquet)");
    }
    return builder.getOrCreate();
  }

  private static void generate(String warehouse, long rows) throws Exception {
    SparkSession spark = session("official", warehouse);
    spark.sql("CREATE NAMESPACE IF NOT EXISTS bench.db");
    spark.sql(
        "CREATE TABLE " + SOURCE + " (id BIGINT, k BIGINT, v1 DOUBLE, v2 DOUBLE, s1 STRING,"
            + " s2 STRING, d DATE, ts TIMESTAMP) USING iceberg PARTITIONED BY (days(ts))");
    // 30 days of timestamps; k has 1000 distinct values; s1 is high-cardinality, s2 low.
    spark.range(0, rows, 1, 8)
        .selectExpr(
            "id",
            "id % 1000 AS k",
            "CAST(id AS DOUBLE) * 1.5 AS v1",
            "rand(7) AS v2",
            "concat('name-', CAST(id * 7919 % 1000003 AS STRING)) AS s1",
            "concat('cat-', CAST(id % 17 AS STRING)) AS s2",
            "date_add(DATE'2024-01-01', CAST(id % 365 AS INT)) AS d",
            "timestamp_seconds(1704067200 + (id * 2654435761 % (30 * 86400))) AS ts")
        .writeTo(SOURCE)
        .append();
    Row count = spark.sql("SELECT count(*) FROM " + SOURCE).first();
    System.out.println("GENERATED " + count.getLong(0) + " rows in " + SOURCE);
    spark.stop();
  }

  private static void run(String engine, String warehouse, List<String> scenarios) {
    SparkSession spark = session(engine, warehouse);
    String dataDir = warehouse + "/db/src/data";
    // warm-up: class loading and JIT on a small query, not timed
    if (engine.equals("parquet")) {
      parquetSource(spark, dataDir).limit(1000).collectAsList();
    } else {
      spark.sql("SELECT * FROM " + SOURCE + " LIMIT 1000").collectAsList();
    }
    List<String> lines = new ArrayList<>();
    for (String scenario : scenarios) {
      if (scenario.equals("insert")) {
        prepareInsert(spark, engine);
      }
      long start = System.nanoTime();
      String answer = runScenario(spark, engine, dataDir, scenario);
      double seconds = (System.nanoTime() - start) / 1e9;
      if (scenario.equals("insert")) {
        answer = answer(spark.sql("SELECT count(*) FROM " + insertTarget(engine)).first());
      }
      String line =
          String.format(Locale.ROOT, "RESULT %s %s %.3f %s", scenario, engine, seconds, answer);
      System.out.println(line);
      lines.add(line);
    }
    spark.stop();
  }

  private static org.apache.spark.sql.Dataset<Row> parquetSource(SparkSession spark, String dir) {
    // recursiveFileLookup turns off partition discovery so only the eight data columns are read
    return spark.read().option("recursiveFileLookup", "true").parquet(dir);
  }

  private static String runScenario(
      SparkSession spark, String engine, String dataDir, String scenario) {
    if (engine.equals("parquet")) {
      if (!scenario.equals("fullscan")) {
        throw new IllegalArgumentException(
            "Cannot run scenario " + scenario + ": engine parquet only runs fullscan");
      }
      parquetSource(spark, dataDir).createOrReplaceTempView("pq_src");
      return answer(spark.sql("SELECT count(*), sum(hash(" + COLUMNS + ")) FROM pq_src").first());
    }
    return switch (scenario) {
      // hash over every column forces every column to be decoded
      case "fullscan" -> answer(
          spark.sql("SELECT count(*), sum(hash(" + COLUMNS + ")) FROM " + SOURCE).first());
      case "selective" -> answer(
          spark.sql(
                  "SELECT count(*), sum(hash(" + COLUMNS + ")) FROM " + SOURCE
                      + " WHERE ts >= TIMESTAMP'2024-01-10 00:00:00'"
                      + " AND ts < TIMESTAMP'2024-01-12 00:00:00' AND k < 50")
              .first());
      case "aggregate" -> answer(
          spark.sql(
                  "SELECT count(*), min(id), max(id), min(ts), max(ts), min(v1), max(v1) FROM "
                      + SOURCE)
              .first());
      case "insert" -> insert(spark, engine);
      default -> throw new IllegalArgumentException(
          "Cannot run scenario '" + scenario + "': unknown (fullscan, selective, aggregate, insert)");
    };
  }

  private static String insertTarget(String engine) {
    return "bench.db.dst_" + engine;
  }

  /** Recreates the empty INSERT target before the timed part (not timed). */
  private static void prepareInsert(SparkSession spark, String engine) {
    String target = insertTarget(engine);
    spark.sql("DROP TABLE IF EXISTS " + target + (engine.equals("official") ? " PURGE" : ""));
    spark.sql(
        "CREATE TABLE " + target + " (id BIGINT, k BIGINT, v1 DOUBLE, v2 DOUBLE, s1 STRING,"
            + " s2 STRING, d DATE, ts TIMESTAMP) USING iceberg PARTITIONED BY (days(ts))");
  }

  /** The timed part of the INSERT scenario: only the INSERT ... SELECT itself. */
  private static String insert(SparkSession spark, String engine) {
    spark.sql("INSERT INTO " + insertTarget(engine) + " SELECT " + COLUMNS + " FROM " + SOURCE);
    return "written";
  }

  private static String answer(Row row) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < row.length(); i++) {
      if (i > 0) {
        out.append(',');
      }
      out.append(row.get(i));
    }
    return out.toString().replace(' ', '_');
  }
}
