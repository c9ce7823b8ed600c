package io.floe.spark.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart;

/**
 * What the JVM did during one timed section of the benchmark (issue 31: the first run of a query in
 * a fresh JVM is mostly class loading, JIT compilation and one-time set-up). Turned on by {@code
 * -Dbench.activity=true}; off, the benchmark registers nothing and reads nothing.
 *
 * <p>It carries the differences of HotSpot's own performance counters over the section (classes
 * loaded, class loading, linking, verification and static-initialiser time, JIT compilations and
 * their time, threads started; read from the JVM's {@code hsperfdata} file, so nothing attaches to
 * the JVM); the CPU time of the JVM's threads by kind (JIT compilers, garbage collection, Spark's
 * task threads, the driver's main thread, the rest; from {@code /proc}, in steps of 10 ms); and
 * the times, from the start of the section, at which Spark posted the query's execution start
 * (after parsing and analysis, before optimization: in Spark 4.1 a scan's filters are pushed and
 * its files planned after it), its first job start, the first task start and end, the last task
 * end and the execution's end. The section's JVM uptimes are printed too, so that a {@code
 * -Xlog:class+load} or {@code -Xlog:jit+compilation} log of the same JVM can be cut to the section
 * ({@code benchmarks/first-run.py}).
 */
final class JvmActivity {
  /**
   * HotSpot counters printed, by the name printed; times are in ticks of {@code
   * sun.os.hrt.frequency}, summed over the threads that loaded or compiled (wall time of each, so
   * they grow with the machine's load).
   */
  private static final String[][] COUNTERS = {
    {"classes", "java.cls.loadedClasses", "count"},
    {"sharedClasses", "java.cls.sharedLoadedClasses", "count"},
    {"clsMs", "sun.cls.time", "ticks"},
    {"clinitMs", "sun.cls.classInitTime.self", "ticks"},
    {"linkMs", "sun.cls.classLinkedTime.self", "ticks"},
    {"verifyMs", "sun.cls.classVerifyTime.self", "ticks"},
    {"defineMs", "sun.cls.defineAppClassTime.self", "ticks"},
    {"appLoadMs", "sun.cls.appClassLoadTime", "ticks"},
    {"compiles", "sun.ci.totalCompiles", "count"},
    {"osrCompiles", "sun.ci.osrCompiles", "count"},
    {"jitMs", "sun.ci.standardTime", "ticks"},
    {"osrJitMs", "sun.ci.osrTime", "ticks"},
    {"threads", "java.threads.started", "count"},
    {"cpuJitMs", "cpu.jit", "count"},
    {"cpuGcMs", "cpu.gc", "count"},
    {"cpuTasksMs", "cpu.tasks", "count"},
    {"cpuMainMs", "cpu.main", "count"},
    {"cpuOtherMs", "cpu.other", "count"},
  };

  private static Milestones milestones;

  private final Map<String, Long> before;
  private final long startUptimeMs;
  private final long startMillis;
  private long endUptimeMs;
  private long endMillis;
  private Map<String, Long> after;

  private JvmActivity(Map<String, Long> before, long startUptimeMs, long startMillis) {
    this.before = before;
    this.startUptimeMs = startUptimeMs;
    this.startMillis = startMillis;
  }

  static boolean enabled() {
    return Boolean.getBoolean("bench.activity");
  }

  /** Starts a section, or returns null when {@code bench.activity} is off. */
  static JvmActivity start(SparkSession spark) {
    if (!enabled()) {
      return null;
    }
    synchronized (JvmActivity.class) {
      if (milestones == null) {
        milestones = new Milestones();
        spark.sparkContext().addSparkListener(milestones);
      }
    }
    Map<String, Long> counters = counters();
    milestones.reset();
    return new JvmActivity(
        counters, ManagementFactory.getRuntimeMXBean().getUptime(), System.currentTimeMillis());
  }

  /** Ends the section: call right after the timed action, before anything else runs. */
  void end() {
    endUptimeMs = ManagementFactory.getRuntimeMXBean().getUptime();
    endMillis = System.currentTimeMillis();
    after = counters();
  }

  /** Prints one {@code ACTIVITY} line of the {@link #end ended} section to standard error. */
  void print(String scenario, String engine) {
    milestones.awaitEnd(5_000);
    double ticksPerMs = after.getOrDefault("sun.os.hrt.frequency", 1_000_000_000L) / 1000.0;
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "ACTIVITY %s %s pid=%d startUptimeMs=%d endUptimeMs=%d startMillis=%d endMillis=%d",
                scenario,
                engine,
                ProcessHandle.current().pid(),
                startUptimeMs,
                endUptimeMs,
                startMillis,
                endMillis));
    for (String[] counter : COUNTERS) {
      Long end = after.get(counter[1]);
      Long start = before.get(counter[1]);
      line.append(' ').append(counter[0]).append('=');
      if (end == null || start == null) {
        line.append('-');
      } else if (counter[2].equals("ticks")) {
        line.append(String.format(Locale.ROOT, "%.1f", (end - start) / ticksPerMs));
      } else {
        line.append(end - start);
      }
    }
    line.append(milestones.describe(startMillis));
    System.err.println(line);
  }

  /**
   * The JVM's long performance counters, from its {@code hsperfdata} file (HotSpot's {@code
   * PerfDataPrologue} and {@code PerfDataEntry} layout); empty when the JVM keeps none there.
   */
  private static Map<String, Long> counters() {
    Map<String, Long> values = new HashMap<>();
    threadCpu(values);
    Path file =
        Paths.get(
            System.getProperty("java.io.tmpdir"),
            "hsperfdata_" + System.getProperty("user.name"),
            String.valueOf(ProcessHandle.current().pid()));
    ByteBuffer buffer;
    try {
      buffer = ByteBuffer.wrap(Files.readAllBytes(file));
    } catch (IOException e) {
      return values;
    }
    if (buffer.getInt(0) != 0xcafec0c0) {
      return values;
    }
    buffer.order(buffer.get(4) == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
    int entry = buffer.getInt(24);
    int entries = buffer.getInt(28);
    for (int i = 0; i < entries && entry > 0 && entry < buffer.limit(); i++) {
      int length = buffer.getInt(entry);
      int nameOffset = buffer.getInt(entry + 4);
      int vectorLength = buffer.getInt(entry + 8);
      byte type = buffer.get(entry + 12);
      int dataOffset = buffer.getInt(entry + 16);
      if (type == 'J' && vectorLength == 0) {
        int nameStart = entry + nameOffset;
        int nameEnd = nameStart;
        while (buffer.get(nameEnd) != 0) {
          nameEnd++;
        }
        byte[] name = new byte[nameEnd - nameStart];
        buffer.get(nameStart, name);
        values.put(new String(name, StandardCharsets.US_ASCII), buffer.getLong(entry + dataOffset));
      }
      if (length <= 0) {
        break;
      }
      entry += length;
    }
    return values;
  }

  /**
   * CPU time of the JVM's live threads by kind, in milliseconds, from {@code /proc} (Linux only),
   * as {@code cpu.<kind>}: JIT compiler threads, garbage collection, Spark's task threads, the
   * driver's main thread and the rest; threads that ended during a section are not counted.
   */
  private static void threadCpu(Map<String, Long> values) {
    Path tasks = Paths.get("/proc", String.valueOf(ProcessHandle.current().pid()), "task");
    try (Stream<Path> threads = Files.list(tasks)) {
      for (Path thread : (Iterable<Path>) threads::iterator) {
        String stat;
        try {
          stat = Files.readString(thread.resolve("stat"));
        } catch (IOException e) {
          continue; // the thread ended
        }
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        String name = stat.substring(open + 1, close);
        String[] fields = stat.substring(close + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        values.merge("cpu." + kind(name), ticks * 10, Long::sum);
      }
    } catch (IOException | RuntimeException e) {
      // no /proc: no thread times
    }
  }

  private static String kind(String threadName) {
    if (threadName.startsWith("C1 Compiler") || threadName.startsWith("C2 Compiler")) {
      return "jit";
    }
    if (threadName.startsWith("GC Thread") || threadName.startsWith("G1 ")
        || threadName.startsWith("VM Thread")) {
      return "gc";
    }
    if (threadName.startsWith("Executor task")) {
      return "tasks";
    }
    // the launcher's main thread keeps the process's name
    return threadName.equals("main") || threadName.equals("java") ? "main" : "other";
  }

  /**
   * The first time, after {@link #reset}, the listener bus saw each milestone of a query; times are
   * the events' own (when Spark posted them), not when they were delivered.
   */
  private static final class Milestones extends SparkListener {
    private long sqlStart;
    private long jobStart;
    private long taskStart;
    private long taskEnd;
    private long lastTaskEnd;
    private long sqlEnd;
    private int tasks;

    synchronized void reset() {
      sqlStart = jobStart = taskStart = taskEnd = lastTaskEnd = sqlEnd = -1;
      tasks = 0;
    }

    synchronized void awaitEnd(long timeoutMillis) {
      long deadline = System.currentTimeMillis() + timeoutMillis;
      while (sqlEnd < 0 && System.currentTimeMillis() < deadline) {
        try {
          wait(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    synchronized String describe(long startMillis) {
      return " execStartMs=" + since(sqlStart, startMillis)
          + " jobStartMs=" + since(jobStart, startMillis)
          + " firstTaskStartMs=" + since(taskStart, startMillis)
          + " firstTaskEndMs=" + since(taskEnd, startMillis)
          + " lastTaskEndMs=" + since(lastTaskEnd, startMillis)
          + " endMs=" + since(sqlEnd, startMillis)
          + " tasks=" + tasks;
    }

    private static String since(long time, long startMillis) {
      return time < 0 ? "-" : String.valueOf(time - startMillis);
    }

    @Override
    public synchronized void onOtherEvent(SparkListenerEvent event) {
      if (event instanceof SparkListenerSQLExecutionStart start && sqlStart < 0) {
        sqlStart = start.time();
      } else if (event instanceof SparkListenerSQLExecutionEnd end && sqlStart >= 0) {
        sqlEnd = end.time();
        notifyAll();
      }
    }

    @Override
    public synchronized void onJobStart(SparkListenerJobStart event) {
      if (jobStart < 0) {
        jobStart = event.time();
      }
    }

    @Override
    public synchronized void onTaskStart(SparkListenerTaskStart event) {
      if (taskStart < 0) {
        taskStart = event.taskInfo().launchTime();
      }
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd event) {
      long finish = event.taskInfo().finishTime();
      if (taskEnd < 0) {
        taskEnd = finish;
      }
      lastTaskEnd = Math.max(lastTaskEnd, finish);
      tasks++;
    }
  }
}
