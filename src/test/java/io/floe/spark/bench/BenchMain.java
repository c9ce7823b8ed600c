package io.floe.spark.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
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
 *   <li>{@code generate-plan <warehouse> <files>}: creates the many-file table of the {@code planning}
 *       scenario ({@link PlanningTableGenerator}); the TPC-H tables come from {@code TpchGenerator}
 *       (in {@code benchmarks/tpch/src}, as it needs the tpch jar);
 *   <li>{@code generate-types <warehouse> <rows>}: creates the one-column tables of the {@code types}
 *       scenario ({@link TypesBenchmark}) with the official runtime;
 *   <li>{@code run <engine> <warehouse> <scenario>...}: runs each scenario once after one warm-up query and
 *       prints one {@code RESULT <scenario> <engine> <seconds> <answer> files=<n> heapLiveMB=<n>
 *       heapPeakMB=<n>} line per scenario ({@code tpch} prints one line per query and a total). Scenarios:
 *       {@code fullscan}, {@code selective}, {@code aggregate}, {@code insert}, {@code insert-fanout},
 *       {@code planning}, {@code tpch}, and the row-level {@code delete-cow}, {@code delete-mor},
 *       {@code update-cow}, {@code update-mor}, {@code merge-cow}, {@code merge-mor} (each also prints
 *       {@code scan-after-<scenario>}), {@code maintenance} ({@link MaintenanceScenario}: prints
 *       {@code rewrite-data-files} and {@code expire-snapshots}), {@code types} (one line per type
 *       and run, {@link TypesBenchmark}), {@code streaming} ({@link StreamingScenario}: prints
 *       {@code stream-sink}, {@code stream-sink-addbatch} and {@code stream-source}); engine {@code
 *       parquet} runs only {@code fullscan}, {@code types}, {@code streaming} and {@code tpch}.
 * </ul>
 *
 * <p>Only {@code generate-plan} touches Iceberg classes (in the generator JVM, whose classpath has the
 * official runtime); the {@code run} path uses Spark's public API alone.
 */
public final class BenchMain {

  /** The source table every scenario reads, inside catalog {@code bench}. */
  /** The eight TPC-H tables, as named in namespace {@code bench.tpch}. */
  static final List<String> TPCH_TABLES =
      List.of("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region");

  /** Timed runs of a read scenario after its first one, per JVM. */
  static final int DEFAULT_WARM_RUNS = 3;

  /** Passes over the 22 TPC-H queries after the first, in the same JVM ({@code bench.tpch.warm.runs}). */
  static final int DEFAULT_TPCH_WARM_RUNS = 1;

  static final String SOURCE = "bench.db.src";

  /** The eight columns of the synthetic table, in order. */
  static final String COLUMNS = "id, k, v1, v2, s1, s2, d, ts";

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    Objects.requireNonNull(args, "args is null");
    if (args.length < 3) {
      throw new IllegalArgumentException(
          "Cannot run benchmark: expected 'generate <warehouse> <rows>',"
              + " 'generate-plan <warehouse> <files>' or"
              + " 'run <engine> <warehouse> <scenario>...'");
    }
    switch (args[0]) {
      case "generate" -> generate(args[1], Long.parseLong(args[2]));
      case "generate-plan" -> {
        SparkSession spark = session("official", args[1]);
        try {
          PlanningTableGenerator.generate(spark, args[1], Integer.parseInt(args[2]));
        } finally {
          spark.stop();
        }
      }
      case "generate-types" -> {
        SparkSession spark = session("official", args[1]);
        try {
          TypesBenchmark.generate(spark, Long.parseLong(args[2]));
        } finally {
          spark.stop();
        }
      }
      case "run" -> run(args[1], args[2], List.of(args).subList(3, args.length));
      default -> throw new IllegalArgumentException(
          "Cannot run benchmark: unknown command '" + args[0] + "'");
    }
  }

  static SparkSession session(String engine, String warehouse) {
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
          .config("spark.kryo.registrator", "io.floe.spark.FloeKryoRegistrator")
          // each engine with its own session extensions, as users run them
          .config("spark.sql.extensions", "io.floe.spark.FloeSparkSessionExtensions");
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

  private static void run(String engine, String warehouse, List<String> scenarios)
      throws IOException {
    SparkSession spark = session(engine, warehouse);
    String dataDir = warehouse + "/db/src/data";
    // warm-up: class loading and JIT on a small query, not timed
    if (engine.equals("parquet")) {
      parquetSource(spark, dataDir).limit(1000).collectAsList();
    } else {
      spark.sql("SELECT * FROM " + SOURCE + " LIMIT 1000").collectAsList();
    }
    HeapWatch heap = new HeapWatch();
    for (String scenario : scenarios) {
      switch (scenario) {
        case "tpch" -> runTpch(spark, engine, warehouse, heap);
        case "types" -> TypesBenchmark.run(spark, engine, warehouse, heap);
        case "planning" -> {
          // untimed warm-up planning of the same table with another literal (steady state, not JIT)
          spark.sql(planningQuery(-2)).collectAsList();
          heap.start();
          long start = System.nanoTime();
          List<Row> rows = spark.sql(planningQuery(-1)).collectAsList();
          double seconds = (System.nanoTime() - start) / 1e9;
          printResult(scenario, engine, seconds, "rows=" + rows.size(), "-", heap.stop());
        }
        case "delete-cow", "delete-mor", "update-cow", "update-mor", "merge-cow", "merge-mor" ->
            runDml(spark, engine, scenario, heap);
        case "maintenance" -> MaintenanceScenario.run(spark, engine, warehouse, heap);
        case "streaming" -> StreamingScenario.run(spark, engine, warehouse, heap);
        default -> {
          if (isInsert(scenario)) {
            prepareInsert(spark, scenario, engine);
          }
          heap.start();
          JvmActivity activity = isInsert(scenario) ? null : JvmActivity.start(spark);
          long start = System.nanoTime();
          String answer = runScenario(spark, engine, dataDir, scenario);
          double seconds = (System.nanoTime() - start) / 1e9;
          if (activity != null) {
            activity.end();
          }
          String heapUse = heap.stop();
          if (activity != null) {
            activity.print(scenario, engine);
          }
          String files = "-";
          if (isInsert(scenario)) {
            String target = insertTarget(scenario, engine);
            answer = answer(spark.sql("SELECT count(*) FROM " + target).first());
            files = answer(spark.sql("SELECT count(*) FROM " + target + ".files").first());
          }
          printResult(scenario, engine, seconds, answer, files, heapUse);
          if (!isInsert(scenario)) {
            warmRuns(spark, engine, dataDir, scenario, heap);
          }
        }
      }
    }
    spark.stop();
  }

  /**
   * The planning scenario's query: a predicate on a data column that no file's min/max statistics can
   * satisfy, so every manifest of {@link PlanningTableGenerator#TABLE} is read and every entry's
   * statistics are evaluated, and no file is left to read.
   */
  static String planningQuery(long id) {
    return "SELECT id FROM " + PlanningTableGenerator.TABLE + " WHERE id = " + id;
  }

  /**
   * Runs a read scenario {@code -Dbench.warm.runs} more times in the same JVM (default {@value
   * #DEFAULT_WARM_RUNS}), printed as scenario {@code <name>-warm}: the first run of a fresh JVM mostly
   * measures class loading and JIT compilation, these measure the engine as a long-lived session sees it.
   */
  private static void warmRuns(
      SparkSession spark, String engine, String dataDir, String scenario, HeapWatch heap) {
    int runs = Integer.getInteger("bench.warm.runs", DEFAULT_WARM_RUNS);
    for (int i = 0; i < runs; i++) {
      heap.start();
      JvmActivity activity = JvmActivity.start(spark);
      long start = System.nanoTime();
      String answer = runScenario(spark, engine, dataDir, scenario);
      double seconds = (System.nanoTime() - start) / 1e9;
      if (activity != null) {
        activity.end();
      }
      printResult(scenario + "-warm", engine, seconds, answer, "-", heap.stop());
      if (activity != null) {
        activity.print(scenario + "-warm", engine);
      }
    }
  }

  static void printResult(
      String scenario, String engine, double seconds, String answer, String files, String heap) {
    System.out.println(
        String.format(
            Locale.ROOT,
            "RESULT %s %s %.3f %s files=%s %s",
            scenario,
            engine,
            seconds,
            answer,
            files,
            heap));
  }

  /**
   * Runs the 22 TPC-H queries of {@code -Dbench.tpch.queries} (files {@code qNN.sql}) in namespace
   * {@code bench.tpch}, one {@code RESULT tpch-qNN} line each plus a {@code tpch-total} line (sum of
   * the query times; its answer digests all query answers). When {@code -Dbench.answers} names a
   * folder, each query's rendered answer is written there as {@code qNN.txt}, one row a line. Then
   * {@code -Dbench.tpch.warm.runs} more passes (default {@value #DEFAULT_TPCH_WARM_RUNS}) in the same
   * JVM print {@code tpch-qNN-warm} and {@code tpch-total-warm}: a query's first run mostly measures
   * JIT compilation and Spark's code generation, which vary from JVM to JVM.
   */
  private static void runTpch(
      SparkSession spark, String engine, String warehouse, HeapWatch heap)
      throws IOException {
    String queriesDir = System.getProperty("bench.tpch.queries");
    if (queriesDir == null) {
      throw new IllegalArgumentException(
          "Cannot run scenario tpch: system property bench.tpch.queries (the queries folder) is not set");
    }
    String answersDir = System.getProperty("bench.answers");
    if (answersDir != null) {
      Files.createDirectories(Paths.get(answersDir));
    }
    List<Path> queries;
    try (Stream<Path> files = Files.list(Paths.get(queriesDir))) {
      queries =
          files.filter(f -> f.getFileName().toString().matches("q\\d\\d\\.sql")).sorted().toList();
    }
    if (queries.isEmpty()) {
      throw new IllegalArgumentException(
          "Cannot run scenario tpch: no qNN.sql files in " + queriesDir);
    }
    if (engine.equals("parquet")) {
      // the same data files, read by Spark's own Parquet source (Iceberg keeps every column in them)
      for (String table : TPCH_TABLES) {
        parquetSource(spark, warehouse + "/tpch/" + table + "/data").createOrReplaceTempView(table);
      }
    } else {
      spark.sql("USE bench.tpch");
    }
    if (Boolean.getBoolean("bench.tpch.cbo")) {
      costBasedOptimizer(spark, engine);
    }
    // warm-up, not timed
    spark.sql("SELECT * FROM lineitem LIMIT 1000").collectAsList();
    tpchPass(spark, engine, queries, heap, answersDir, "");
    int warmPasses = Integer.getInteger("bench.tpch.warm.runs", DEFAULT_TPCH_WARM_RUNS);
    for (int pass = 0; pass < warmPasses; pass++) {
      tpchPass(spark, engine, queries, heap, null, "-warm");
    }
  }

  /**
   * {@code -Dbench.tpch.cbo=true} ({@code TPCH_CBO=1}): turns on Spark's cost-based optimizer and,
   * for the Iceberg engines, gives every TPC-H table distinct counts first with {@code
   * compute_table_stats} on its current snapshot (untimed; it sets a statistics file on the table's
   * metadata and adds no snapshot, so both engines still read the same data). Spark's Parquet source
   * over temp views has no such statistics: it runs with the optimizer on and file sizes only.
   */
  private static void costBasedOptimizer(SparkSession spark, String engine) {
    if (!engine.equals("parquet")) {
      for (String table : TPCH_TABLES) {
        spark.sql("CALL bench.system.compute_table_stats(table => 'tpch." + table + "')").collectAsList();
      }
    }
    spark.conf().set("spark.sql.cbo.enabled", "true");
  }

  /**
   * Runs every query once, printing {@code tpch-qNN<suffix>} per query and {@code
   * tpch-total<suffix>}; answers are written to {@code answersDir} when it is not null.
   */
  private static void tpchPass(
      SparkSession spark,
      String engine,
      List<Path> queries,
      HeapWatch heap,
      String answersDir,
      String suffix)
      throws IOException {
    double total = 0;
    long maxLive = -1;
    long maxPeak = -1;
    long cpuNanos = 0;
    StringBuilder digests = new StringBuilder();
    for (Path query : queries) {
      String name = query.getFileName().toString().replace(".sql", "");
      String sql = sqlText(query);
      heap.start();
      long start = System.nanoTime();
      org.apache.spark.sql.Dataset<Row> df = spark.sql(sql);
      List<Row> rows = df.collectAsList();
      double seconds = (System.nanoTime() - start) / 1e9;
      String heapUse = heap.stop();
      if (answersDir != null) {
        // the plan that ran (adaptive execution's final plan), to compare the engines' plans
        Files.writeString(
            Paths.get(answersDir, name + ".plan"), df.queryExecution().executedPlan().toString());
      }
      maxLive = Math.max(maxLive, heap.lastLive());
      maxPeak = Math.max(maxPeak, heap.lastPeak());
      cpuNanos += heap.lastCpuNanos();
      total += seconds;
      List<String> lines = new ArrayList<>();
      List<String> rounded = new ArrayList<>();
      for (Row row : rows) {
        lines.add(render(row, 0));
        rounded.add(render(row, DIGEST_SIGNIFICANT_DIGITS));
      }
      if (answersDir != null) {
        Files.write(Paths.get(answersDir, name + ".txt"), lines, StandardCharsets.UTF_8);
      }
      String answer = "rows=" + rows.size() + ":" + digest(String.join("\n", rounded));
      digests.append(answer).append('\n');
      printResult("tpch-" + name + suffix, engine, seconds, answer, "-", heapUse);
    }
    printResult(
        "tpch-total" + suffix,
        engine,
        total,
        "queries=" + queries.size() + ":" + digest(digests.toString()),
        "-",
        HeapWatch.format(maxLive, maxPeak, cpuNanos));
  }

  /** The SQL of a query file without comment lines and without the closing semicolon. */
  private static String sqlText(Path file) throws IOException {
    StringBuilder sql = new StringBuilder();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (!line.strip().startsWith("--")) {
        sql.append(line).append('\n');
      }
    }
    String text = sql.toString().strip();
    return text.endsWith(";") ? text.substring(0, text.length() - 1) : text;
  }

  /**
   * One result row as text, values separated by {@code |}. With {@code significantDigits > 0}, doubles
   * and decimals are rounded to that many significant digits (for the short digest on the {@code
   * RESULT} line); with 0 they are written in full (for the answer files, which {@code
   * benchmarks/report.py} compares row by row with a relative tolerance, since engines may sum in
   * different orders and a rounding boundary can fall between two nearly equal sums).
   */
  static String render(Row row, int significantDigits) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < row.length(); i++) {
      if (i > 0) {
        out.append('|');
      }
      Object value = row.get(i);
      if (significantDigits > 0 && value instanceof Double d && Double.isFinite(d)) {
        out.append(round(new BigDecimal(d), significantDigits));
      } else if (significantDigits > 0 && value instanceof Float f && Float.isFinite(f)) {
        out.append(round(new BigDecimal(f), significantDigits));
      } else if (significantDigits > 0 && value instanceof BigDecimal decimal) {
        out.append(round(decimal, significantDigits));
      } else {
        out.append(value);
      }
    }
    return out.toString();
  }

  /** Significant digits of doubles in the digest printed on {@code RESULT} lines. */
  static final int DIGEST_SIGNIFICANT_DIGITS = 6;

  private static String round(BigDecimal value, int significantDigits) {
    if (value.signum() == 0) {
      return "0";
    }
    return value
        .round(new MathContext(significantDigits, RoundingMode.HALF_EVEN))
        .stripTrailingZeros()
        .toPlainString();
  }

  private static String digest(String text) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder();
      for (int i = 0; i < 6; i++) {
        hex.append(String.format(Locale.ROOT, "%02x", hash[i]));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot digest answer: SHA-256 is not available", e);
    }
  }

  /**
   * Heap use of this JVM during one measured section, for the "driver heap" columns. In {@code
   * local[2]} the driver and the executor threads share this one JVM, so it is the whole engine's heap.
   *
   * <p>{@link #start()} runs a full GC (untimed) so every section starts from the same live set, then
   * resets the heap pools' peak counters. While the section runs, a listener on every {@link
   * GarbageCollectorMXBean}'s notifications records the heap used after each collection that started
   * in the section (the live data at that moment); {@link #stop()} reports the largest of those ({@code
   * heapLiveMB}, "-" when no collection ran) and the sum of the heap pools' peak used sizes ({@code
   * heapPeakMB}: an upper bound of the peak heap, garbage included, whose value depends on when the
   * collector chose to run).
   */
  static final class HeapWatch implements NotificationListener {
    private final List<MemoryPoolMXBean> heapPools = new ArrayList<>();
    private final AtomicLong maxLive = new AtomicLong(-1);
    private volatile long sectionStartMillis = Long.MAX_VALUE;
    private long lastLive = -1;
    private long lastPeak = -1;
    private long cpuStartNanos;
    private long lastCpuNanos;

    HeapWatch() {
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) {
          heapPools.add(pool);
        }
      }
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        if (gc instanceof NotificationEmitter emitter) {
          emitter.addNotificationListener(this, null, null);
        }
      }
    }

    @Override
    public void handleNotification(Notification notification, Object handback) {
      if (!notification
          .getType()
          .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
        return;
      }
      GcInfo info =
          GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData())
              .getGcInfo();
      if (info.getStartTime() < sectionStartMillis) {
        return; // the collection before the section, or one that began before it
      }
      long used = 0;
      for (MemoryPoolMXBean pool : heapPools) {
        MemoryUsage usage = info.getMemoryUsageAfterGc().get(pool.getName());
        if (usage != null) {
          used += usage.getUsed();
        }
      }
      maxLive.accumulateAndGet(used, Math::max);
    }

    void start() {
      System.gc();
      pause();
      maxLive.set(-1);
      sectionStartMillis = ManagementFactory.getRuntimeMXBean().getUptime();
      for (MemoryPoolMXBean pool : heapPools) {
        pool.resetPeakUsage();
      }
      cpuStartNanos = processCpuNanos();
    }

    /** Ends the section and returns {@code heapLiveMB=<n|-> heapPeakMB=<n> cpuS=<s>}. */
    String stop() {
      lastCpuNanos = processCpuNanos() - cpuStartNanos;
      long peak = 0;
      for (MemoryPoolMXBean pool : heapPools) {
        peak += pool.getPeakUsage().getUsed();
      }
      pause(); // notifications are delivered on another thread
      sectionStartMillis = Long.MAX_VALUE;
      lastLive = maxLive.get();
      lastPeak = peak;
      return format(lastLive, lastPeak, lastCpuNanos);
    }

    long lastCpuNanos() {
      return lastCpuNanos;
    }

    /**
     * CPU time of the whole JVM (every thread: tasks, the driver, JIT and GC), which a busy machine
     * disturbs far less than wall time.
     */
    private static long processCpuNanos() {
      return ((com.sun.management.OperatingSystemMXBean)
              ManagementFactory.getOperatingSystemMXBean())
          .getProcessCpuTime();
    }

    long lastLive() {
      return lastLive;
    }

    long lastPeak() {
      return lastPeak;
    }

    static String format(long liveBytes, long peakBytes, long cpuNanos) {
      return "heapLiveMB=" + (liveBytes < 0 ? "-" : String.valueOf(liveBytes >> 20))
          + " heapPeakMB=" + (peakBytes < 0 ? "-" : String.valueOf(peakBytes >> 20))
          + String.format(Locale.ROOT, " cpuS=%.3f", cpuNanos / 1e9);
    }

    private static void pause() {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
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
      case "insert", "insert-fanout" -> insert(spark, scenario, engine);
      default -> throw new IllegalArgumentException(
          "Cannot run scenario '" + scenario + "': unknown (fullscan, selective, aggregate, insert,"
              + " insert-fanout, planning, tpch, delete-cow, delete-mor, update-cow, update-mor,"
              + " merge-cow, merge-mor)");
    };
  }

  /**
   * A row-level scenario ({@code <op>-<mode>}, op delete, update or merge, mode cow or mor): a fresh
   * copy of the source (format v2, {@code write.<op>.mode} set to the mode) is made untimed, then the
   * statement is timed, then a full scan of the changed table is timed as {@code scan-after-<op>-<mode>},
   * which shows what the mode costs readers; its answer (count and hash of every row) must agree
   * between engines. DELETE and UPDATE touch 1% of the rows, spread over every file; MERGE takes a
   * source of a tenth of the table's size, a tenth of whose rows match (updated) and the rest not
   * (inserted).
   */
  private static void runDml(SparkSession spark, String engine, String scenario, HeapWatch heap) {
    String op = scenario.substring(0, scenario.indexOf('-'));
    String mode = scenario.endsWith("-cow") ? "copy-on-write" : "merge-on-read";
    String target = "bench.db.dml_" + scenario.replace('-', '_') + "_" + engine;
    String purge = engine.equals("official") ? " PURGE" : "";
    spark.sql("DROP TABLE IF EXISTS " + target + purge);
    spark.sql(
        "CREATE TABLE " + target + " USING iceberg PARTITIONED BY (days(ts)) TBLPROPERTIES"
            + " ('format-version'='2', 'write.delete.mode'='" + mode + "', 'write.update.mode'='"
            + mode + "', 'write.merge.mode'='" + mode + "') AS SELECT " + COLUMNS + " FROM "
            + SOURCE);
    String source = "bench.db.merge_src_" + engine;
    if (op.equals("merge")) {
      spark.sql("DROP TABLE IF EXISTS " + source + purge);
      spark.sql(
          "CREATE TABLE " + source + " USING iceberg AS SELECT CASE WHEN id % 100 = 0 THEN id"
              + " ELSE id + 1000000000000 END AS id, k, v1 + 1 AS v1, v2, s1, s2, d, ts FROM "
              + SOURCE + " WHERE id % 10 = 0");
    }
    String statement =
        switch (op) {
          case "delete" -> "DELETE FROM " + target + " WHERE id % 100 = 7";
          case "update" -> "UPDATE " + target + " SET v1 = v1 + 1 WHERE id % 100 = 3";
          default -> "MERGE INTO " + target + " t USING " + source + " s ON t.id = s.id"
              + " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *";
        };
    heap.start();
    long startMillis = System.currentTimeMillis();
    long start = System.nanoTime();
    spark.sql(statement);
    double seconds = (System.nanoTime() - start) / 1e9;
    long endMillis = System.currentTimeMillis();
    String heapUse = heap.stop();
    String files = answer(spark.sql("SELECT count(*) FROM " + target + ".data_files").first())
        + "+" + answer(spark.sql("SELECT count(*) FROM " + target + ".delete_files").first());
    printResult(scenario, engine, seconds, "done", files, heapUse);
    // to the log (stderr): what the statement's commit changed, and the timed window for a profile
    System.err.println(
        "DML-SUMMARY " + scenario + " " + engine + " window=" + startMillis + "-" + endMillis + " "
            + spark.sql(
                    "SELECT summary FROM " + target + ".snapshots ORDER BY committed_at DESC LIMIT 1")
                .first()
                .getMap(0));

    heap.start();
    start = System.nanoTime();
    String answer =
        answer(spark.sql("SELECT count(*), sum(hash(" + COLUMNS + ")) FROM " + target).first());
    seconds = (System.nanoTime() - start) / 1e9;
    printResult("scan-after-" + scenario, engine, seconds, answer, "-", heap.stop());
    // -Dbench.dml.keep=true keeps the changed table, so that its files can be inspected afterwards
    if (!Boolean.getBoolean("bench.dml.keep")) {
      spark.sql("DROP TABLE IF EXISTS " + target + purge);
    }
  }

  private static boolean isInsert(String scenario) {
    return scenario.equals("insert") || scenario.equals("insert-fanout");
  }

  private static String insertTarget(String scenario, String engine) {
    return "bench.db." + (scenario.equals("insert") ? "dst_" : "dstf_") + engine;
  }

  /**
   * Recreates the empty INSERT target before the timed part (not timed). {@code insert} writes with
   * each engine's defaults; {@code insert-fanout} sets {@code write.spark.fanout.enabled=true} on the
   * target. With their defaults the official runtime has Spark sort every task's rows by partition
   * and Floe, for this hash-distributed table without sort order, fans out with no sort; so for Floe
   * the two scenarios run the same write, and differ only in their place in the JVM.
   */
  private static void prepareInsert(SparkSession spark, String scenario, String engine) {
    String target = insertTarget(scenario, engine);
    spark.sql("DROP TABLE IF EXISTS " + target + (engine.equals("official") ? " PURGE" : ""));
    spark.sql(
        "CREATE TABLE " + target + " (id BIGINT, k BIGINT, v1 DOUBLE, v2 DOUBLE, s1 STRING,"
            + " s2 STRING, d DATE, ts TIMESTAMP) USING iceberg PARTITIONED BY (days(ts))"
            + (scenario.equals("insert-fanout")
                ? " TBLPROPERTIES ('write.spark.fanout.enabled'='true')"
                : ""));
  }

  /** The timed part of the INSERT scenarios: only the INSERT ... SELECT itself. */
  private static String insert(SparkSession spark, String scenario, String engine) {
    spark.sql(
        "INSERT INTO " + insertTarget(scenario, engine) + " SELECT " + COLUMNS + " FROM " + SOURCE);
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
