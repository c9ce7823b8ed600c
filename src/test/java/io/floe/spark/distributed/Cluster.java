package io.floe.spark.distributed;

import io.floe.spark.FloeCatalog;
import io.floe.spark.FloeKryoRegistrator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;

/**
 * Starts the SparkSessions of the distributed suite and finds their executor processes.
 *
 * <p>The cluster is {@code local-cluster[2,1,1024]} unless the system property {@code
 * floe.cluster.master} names another master (for example {@code spark://127.0.0.1:7077} of {@code
 * bin/floe-cluster start}). Executors are separate JVMs launched from {@code SPARK_HOME}, which the
 * build sets for tests; their classpath is this test JVM's classpath, so they load Floe, its
 * dependencies and the test classes (the recording catalog) from the same places.
 */
final class Cluster {
  static final String DEFAULT_MASTER = "local-cluster[2,1,1024]";
  static final String EXECUTOR_MAIN = "org.apache.spark.executor.CoarseGrainedExecutorBackend";

  private Cluster() {}

  static String master() {
    return System.getProperty("floe.cluster.master", DEFAULT_MASTER);
  }

  /**
   * A session with strict Kryo and a Floe catalog {@code floe} over a {@link RecordingCatalog}
   * (hadoop warehouse under {@code root}, calls recorded in {@code calls}).
   */
  static SparkSession start(String master, Path root, Path calls) {
    if (master.startsWith("local-cluster")) {
      requireSparkHome();
    }
    SparkConf conf =
        new SparkConf(false)
            .setMaster(master)
            .setAppName("floe-distributed")
            .set("spark.ui.enabled", "false")
            .set("spark.driver.host", "127.0.0.1")
            .set("spark.sql.shuffle.partitions", "4")
            .set("spark.serializer", KryoSerializer.class.getName())
            .set("spark.kryo.registrationRequired", "true")
            .set("spark.kryo.registrator", FloeKryoRegistrator.class.getName())
            .set("spark.executor.extraClassPath", System.getProperty("java.class.path"))
            .set("spark.executor.memory", "1g")
            .set("spark.sql.catalog.floe", FloeCatalog.class.getName())
            .set("spark.sql.catalog.floe.catalog-impl", RecordingCatalog.class.getName())
            .set("spark.sql.catalog.floe." + RecordingCatalog.DELEGATE_TYPE, "hadoop")
            .set("spark.sql.catalog.floe." + RecordingCatalog.RECORD_TO, calls.toString())
            .set("spark.sql.catalog.floe.warehouse", root.resolve("warehouse").toUri().toString());
    if (!master.startsWith("local[")) {
      conf.set("spark.cores.max", "2");
    }
    SparkSession spark = SparkSession.builder().config(conf).getOrCreate();
    if (!spark.sparkContext().master().equals(master)) {
      String running = spark.sparkContext().master();
      stop(spark);
      throw new IllegalStateException(
          "Cannot start a session on " + master + ": a session on " + running + " was still running");
    }
    spark.sparkContext().setLogLevel("WARN");
    return spark;
  }

  static void stop(SparkSession spark) {
    if (spark != null) {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
  }

  /**
   * Executors launched by local-cluster find Spark's launcher through {@code SPARK_HOME}, which
   * must hold a {@code jars} folder; it may be empty, since the executors' classpath is given by
   * {@code spark.executor.extraClassPath}.
   */
  private static void requireSparkHome() {
    String home = System.getenv("SPARK_HOME");
    if (home == null || System.getenv("SPARK_SCALA_VERSION") == null) {
      throw new IllegalStateException(
          "Cannot start " + DEFAULT_MASTER + ": set SPARK_HOME (a folder with a jars folder) and"
              + " SPARK_SCALA_VERSION=2.13 for the test JVM; the Maven build sets both");
    }
    try {
      Files.createDirectories(Paths.get(home, "jars"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Executor process ids of an application, by executor id. */
  static Map<String, Long> executorPids(String appId) {
    Map<String, Long> pids = new TreeMap<>();
    try (Stream<ProcessHandle> processes = ProcessHandle.allProcesses()) {
      processes.forEach(process -> {
        List<String> args = arguments(process);
        int executorId = args.indexOf("--executor-id");
        if (args.contains(EXECUTOR_MAIN) && args.contains(appId) && executorId >= 0
            && executorId + 1 < args.size() && process.isAlive()) {
          pids.put(args.get(executorId + 1), process.pid());
        }
      });
    }
    return pids;
  }

  private static List<String> arguments(ProcessHandle process) {
    Path cmdline = Paths.get("/proc", String.valueOf(process.pid()), "cmdline");
    try {
      String raw = new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8);
      return Arrays.asList(raw.split("\0"));
    } catch (IOException | SecurityException e) {
      return process.info().arguments().map(Arrays::asList).orElse(List.of());
    }
  }

  /** Waits until the application has the given number of live executors. */
  static void awaitExecutors(SparkSession spark, int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String appId = spark.sparkContext().applicationId();
    while (System.nanoTime() < deadline) {
      // the driver is listed among the executor infos as well
      if (spark.sparkContext().statusTracker().getExecutorInfos().length - 1 >= count
          && executorPids(appId).size() >= count) {
        return;
      }
      sleep(200);
    }
    throw new IllegalStateException(
        "Cannot run the distributed suite: " + count + " executors did not register within " + timeout);
  }

  /**
   * Registers the function {@code throttle(id)}: it returns the id, pausing 1 ms every {@code
   * rowsPerPause} calls in each executor JVM, so that a task calling it for each row runs long
   * enough for an executor to be killed while it works, however fast the machine is. The pause
   * counts calls rather than testing the id, because a statement may call it only for ids of one
   * residue (an UPDATE of {@code id % 5 = 1} never sees an id divisible by 10).
   */
  static void registerThrottle(SparkSession spark, long rowsPerPause) {
    UDF1<Long, Long> throttle =
        id -> {
          if (ThrottleCalls.COUNT.incrementAndGet() % rowsPerPause == 0) {
            Thread.sleep(1);
          }
          return id;
        };
    spark.udf().register("throttle", throttle, DataTypes.LongType);
  }

  /**
   * Waits until some task of {@code job} has run for {@code taskAge} on an executor, then kills that
   * executor's JVM with SIGKILL. Only executors of this session's application are candidates.
   *
   * @throws AssertionError when the job ended before any task ran that long
   */
  static void killOneExecutorWhileTasksRun(
      SparkSession spark, TaskWatcher watcher, CompletableFuture<?> job, Duration taskAge) {
    String appId = spark.sparkContext().applicationId();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline && !job.isDone()) {
      Optional<String> executor = watcher.executorRunningTaskFor(taskAge);
      Long pid = executor.map(id -> executorPids(appId).get(id)).orElse(null);
      if (pid != null) {
        ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
        process.destroyForcibly();
        process.onExit().join();
        return;
      }
      sleep(100);
    }
    throw new AssertionError(
        "No task ran for " + taskAge + " before the job ended: raise floe.cluster.rows");
  }

  /** The calls of {@code throttle} in this JVM; each executor JVM counts its own. */
  private static final class ThrottleCalls {
    static final AtomicLong COUNT = new AtomicLong();
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The rows of a query as lists of plain values, in the query's order. */
  static List<List<Object>> rows(SparkSession spark, String query) {
    List<List<Object>> rows = new ArrayList<>();
    for (Row row : spark.sql(query).collectAsList()) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < row.size(); i += 1) {
        values.add(row.get(i));
      }
      rows.add(values);
    }
    return rows;
  }

  static void deleteRecursively(Path path) {
    if (path == null || !Files.exists(path)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
