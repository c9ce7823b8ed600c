package io.floe.spark.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.distributed.RecordingCatalog.Call;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileTime;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.spark.SparkContext$;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The maintenance procedures whose work runs as Spark jobs, called on a cluster whose executors are
 * separate JVMs (strict Kryo, see {@link Cluster}): {@code rewrite_data_files} (binpack and sort),
 * {@code rewrite_position_delete_files}, {@code expire_snapshots}, {@code remove_orphan_files} and
 * {@code rewrite_manifests}. Each keeps exactly the rows Spark's own semantics give over the same
 * generated rows, reports the files it touched as the table's metadata tables count them, and only
 * the driver calls the catalog. A compaction that loses an executor JVM mid-job still commits one
 * {@code replace} snapshot of exactly the same rows.
 */
@Tag("distributed")
class ProceduresOnClusterTest {
  private static final long ROWS = 8_000L;
  /** Data files of every table: each of the 4 write tasks writes one file per partition (4). */
  private static final int FILES = 16;
  private static final Duration TASK_AGE_BEFORE_KILL = Duration.ofMillis(400);
  /** What the checks compare: the row count, the distinct ids and checksums over every column. */
  private static final String FINGERPRINT =
      "SELECT count(*), count(DISTINCT id), sum(id), sum(crc32(payload)), sum(part * id) FROM %s";

  private static Path root;
  private static Path calls;
  private static SparkSession spark;

  @BeforeAll
  static void startCluster() throws IOException {
    root = Files.createTempDirectory("floe-procedures-cluster");
    calls = root.resolve("calls.log");
    spark = Cluster.start(Cluster.master(), root, calls);
    // set before the catalog's first use, which reads its options
    spark.conf().set("spark.sql.catalog.floe.io-impl", SlowOpeningFileIO.class.getName());
    spark.sql("CREATE NAMESPACE floe.procs");
    spark.sql(
        String.format(
            "CREATE OR REPLACE TEMPORARY VIEW generated AS SELECT id,"
                + " concat('payload-', CAST(id AS STRING)) AS payload, CAST(id %% 4 AS INT) AS part"
                + " FROM range(0, %d, 1, 4)",
            ROWS));
  }

  @AfterAll
  static void stopCluster() {
    Cluster.stop(spark);
    spark = null;
    Cluster.deleteRecursively(root);
  }

  @BeforeEach
  void twoExecutorsAreUp() {
    // a killed executor is replaced by its worker; each test starts with two
    Cluster.awaitExecutors(spark, 2, Duration.ofMinutes(3));
  }

  @AfterEach
  void onlyTheDriverCalledTheCatalog() {
    long driver = ProcessHandle.current().pid();
    List<Call> recorded = RecordingCatalog.calls(calls);
    assertThat(recorded).isNotEmpty().allSatisfy(call -> assertThat(call.pid()).isEqualTo(driver));
  }

  @Test
  void binpackCompactionWritesOneFilePerPartitionWithTheSameRows() {
    String table = createSmallFiles("binpack", "'format-version' = '2'", 1);
    List<List<Object>> before = Cluster.rows(spark, dataFileStats(table));

    // four files a partition are below the default min-input-files (5)
    Row result =
        call("rewrite_data_files(table => '%s', options => map('min-input-files', '2'))", table);

    long after = dataFileCount(table);
    assertThat(after).isEqualTo(4);
    assertThat(List.<Object>of(
            (long) result.getInt(0), (long) result.getInt(1), result.getLong(2),
            (long) result.getInt(3), (long) result.getInt(4)))
        .containsExactly((long) FILES, after, before.get(0).get(1), 0L, 0L);
    assertThat(fingerprint(table)).isEqualTo(fingerprint("generated"));
    assertThat(lastSnapshot(table)).isEqualTo("replace");
  }

  @Test
  void sortCompactionOrdersEveryFileWithTheSameRows() {
    String table = createSmallFiles("sorted", "'format-version' = '2'", 1);

    Row result =
        call(
            "rewrite_data_files(table => '%s', strategy => 'sort', sort_order => 'id DESC NULLS LAST',"
                + " options => map('rewrite-all', 'true'))",
            table);

    assertThat(result.getInt(0)).isEqualTo(FILES);
    assertThat((long) result.getInt(1)).isEqualTo(dataFileCount(table));
    assertThat(fingerprint(table)).isEqualTo(fingerprint("generated"));
    // within each written file, a row's id is below the id of the row before it
    assertThat(
            Cluster.rows(
                spark,
                "SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY _file ORDER BY _pos)"
                    + " AS previous FROM " + table + ") WHERE previous <= id"))
        .containsExactly(List.of(0L));
    assertThat(lastSnapshot(table)).isEqualTo("replace");
  }

  @Test
  void positionDeleteCompactionMergesTheDeleteFilesOfEachPartition() {
    String table =
        createSmallFiles(
            "pos_deletes", "'format-version' = '2', 'write.delete.mode' = 'merge-on-read'", 1);
    spark.sql("DELETE FROM " + table + " WHERE id % 7 = 0");
    spark.sql("DELETE FROM " + table + " WHERE id % 7 = 1");
    List<List<Object>> before = Cluster.rows(spark, deleteFileStats(table));
    assertThat((Long) before.get(0).get(0)).isGreaterThan(4L);

    Row result =
        call(
            "rewrite_position_delete_files(table => '%s', options => map('rewrite-all', 'true'))",
            table);

    List<List<Object>> after = Cluster.rows(spark, deleteFileStats(table));
    assertThat(List.<Object>of(
            (long) result.getInt(0), (long) result.getInt(1), result.getLong(2), result.getLong(3)))
        .containsExactly(
            before.get(0).get(0), after.get(0).get(0), before.get(0).get(1), after.get(0).get(1));
    assertThat((Long) after.get(0).get(0)).isLessThan((Long) before.get(0).get(0));
    assertThat(fingerprint(table))
        .isEqualTo(fingerprint("(SELECT * FROM generated WHERE id % 7 NOT IN (0, 1))"));
    assertThat(lastSnapshot(table)).isEqualTo("replace");
  }

  @Test
  void expireSnapshotsDeletesTheFilesOnlyExpiredSnapshotsReferenced() {
    String table = createSmallFiles("expiry", "'format-version' = '2'", 1);
    spark.sql("DELETE FROM " + table + " WHERE part = 0");
    // a later commit, so that the snapshot that removed the files expires with the older ones
    spark.sql("INSERT INTO " + table + " SELECT * FROM generated WHERE part = 0 AND id < 100");
    long snapshots = count("SELECT count(*) FROM " + table + ".snapshots");
    Set<String> unreferenced =
        strings(
            "SELECT file_path FROM " + table + ".all_data_files EXCEPT SELECT file_path FROM "
                + table + ".data_files");
    assertThat(unreferenced).hasSize(FILES / 4);

    Row result =
        call(
            "expire_snapshots(table => '%s', older_than => current_timestamp(), retain_last => 1)",
            table);

    assertThat(result.getLong(0)).isEqualTo(unreferenced.size());
    assertThat(result.getLong(1)).isZero();
    assertThat(result.getLong(4)).isEqualTo(snapshots - 1);
    assertThat(unreferenced).noneMatch(location -> Files.exists(localPath(location)));
    assertThat(count("SELECT count(*) FROM " + table + ".snapshots")).isEqualTo(1L);
    assertThat(fingerprint(table))
        .isEqualTo(fingerprint("(SELECT * FROM generated WHERE part <> 0 OR id < 100)"));
  }

  @Test
  void orphanRemovalDeletesOnlyTheOldUnreferencedFiles() throws IOException {
    String table = createSmallFiles("orphans", "'format-version' = '2'", 1);
    Path location = root.resolve("warehouse/procs/orphans");
    Set<Path> referenced = regularFiles(location);
    referenced.forEach(file -> age(file, 10));
    Path oldOrphan = plant(location.resolve("data/part=1/orphan-old.parquet"), 10);
    Path deepOrphan = plant(location.resolve("data/x/y/orphan-deep.parquet"), 10);
    Path youngOrphan = plant(location.resolve("data/part=2/orphan-young.parquet"), 0);
    Timestamp oneDayAgo = Timestamp.from(Instant.now().minus(1, ChronoUnit.DAYS));

    List<Row> removed =
        spark
            .sql(
                String.format(
                    "CALL floe.system.remove_orphan_files(table => '%s', older_than => TIMESTAMP '%s')",
                    table, oneDayAgo))
            .collectAsList();

    assertThat(removed.stream().map(row -> localPath(row.getString(0)).toString()))
        .containsExactlyInAnyOrder(oldOrphan.toString(), deepOrphan.toString());
    assertThat(oldOrphan).doesNotExist();
    assertThat(deepOrphan).doesNotExist();
    assertThat(youngOrphan).exists();
    assertThat(referenced).allMatch(Files::exists);
    assertThat(fingerprint(table)).isEqualTo(fingerprint("generated"));
  }

  @Test
  void manifestRewriteReplacesOneManifestPerAppendWithTheSameRows() {
    String table = createSmallFiles("manifests", "'format-version' = '2'", 4);
    long before = count("SELECT count(*) FROM " + table + ".manifests");
    assertThat(before).isEqualTo(4);

    Row result = call("rewrite_manifests(table => '%s')", table);

    long after = count("SELECT count(*) FROM " + table + ".manifests");
    assertThat(List.of((long) result.getInt(0), (long) result.getInt(1)))
        .containsExactly(before, after);
    assertThat(after).isLessThan(before);
    assertThat(dataFileCount(table)).isEqualTo((long) FILES);
    assertThat(fingerprint(table)).isEqualTo(fingerprint("generated"));
    assertThat(lastSnapshot(table)).isEqualTo("replace");
  }

  @Test
  void compactionThatLosesAnExecutorCommitsOneReplaceOfTheSameRows() throws Exception {
    // the "slow_" prefix makes each data file open take SlowOpeningFileIO.PAUSE on executors, so the
    // rewrite's tasks run long enough to lose an executor while they work
    String table = createSmallFiles("slow_killed", "'format-version' = '2'", 1);
    List<List<Object>> snapshotsBefore = snapshots(table);
    TaskWatcher watcher = new TaskWatcher();
    spark.sparkContext().addSparkListener(watcher);
    List<Row> result;
    try {
      CompletableFuture<List<Row>> job =
          CompletableFuture.supplyAsync(
              () ->
                  spark
                      .sql(
                          "CALL floe.system.rewrite_data_files(table => '" + table
                              + "', options => map('min-input-files', '2'))")
                      .collectAsList());
      Cluster.killOneExecutorWhileTasksRun(spark, watcher, job, TASK_AGE_BEFORE_KILL);
      result = job.get(5, TimeUnit.MINUTES);
    } finally {
      spark.sparkContext().removeSparkListener(watcher);
    }

    assertThat(watcher.lostWithExecutor()).as("tasks lost with the killed executor").isPositive();
    assertThat(result).singleElement().satisfies(row -> {
      assertThat(row.getInt(0)).isEqualTo(FILES);
      assertThat((long) row.getInt(1)).isEqualTo(dataFileCount(table));
      assertThat(row.getInt(3)).isZero();
    });
    assertThat(fingerprint(table)).isEqualTo(fingerprint("generated"));
    List<List<Object>> snapshotsAfter = snapshots(table);
    assertThat(snapshotsAfter.subList(0, snapshotsBefore.size())).isEqualTo(snapshotsBefore);
    assertThat(snapshotsAfter.subList(snapshotsBefore.size(), snapshotsAfter.size()))
        .extracting(row -> row.get(1))
        .containsExactly("replace");
  }

  /**
   * A table partitioned by {@code part} holding the generated rows in {@value #FILES} small files,
   * written in {@code appends} appends of consecutive ids. With no write distribution, each of the
   * generated view's 4 tasks writes one file for each partition its rows fall in.
   */
  private static String createSmallFiles(String name, String properties, int appends) {
    String table = "floe.procs." + name;
    spark.sql(
        "CREATE TABLE " + table + " (id BIGINT, payload STRING, part INT) USING iceberg"
            + " PARTITIONED BY (part) TBLPROPERTIES ('write.distribution-mode' = 'none', "
            + properties + ")");
    for (int i = 0; i < appends; i++) {
      spark.sql(
          "INSERT INTO " + table + " SELECT * FROM generated WHERE id >= " + i * ROWS / appends
              + " AND id < " + (i + 1) * ROWS / appends);
    }
    assertThat(dataFileCount(table)).isEqualTo((long) FILES);
    return table;
  }

  private static Row call(String procedure, String table) {
    List<Row> rows =
        spark.sql("CALL floe.system." + String.format(procedure, table)).collectAsList();
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  private static String dataFileStats(String table) {
    return "SELECT count(*), sum(file_size_in_bytes) FROM " + table + ".data_files";
  }

  private static String deleteFileStats(String table) {
    return "SELECT count(*), coalesce(sum(file_size_in_bytes), 0) FROM " + table + ".delete_files";
  }

  private static long dataFileCount(String table) {
    return count("SELECT count(*) FROM " + table + ".data_files");
  }

  private static long count(String query) {
    return (Long) Cluster.rows(spark, query).get(0).get(0);
  }

  private static Set<String> strings(String query) {
    return Cluster.rows(spark, query).stream()
        .map(row -> (String) row.get(0))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static List<List<Object>> snapshots(String table) {
    return Cluster.rows(
        spark, "SELECT snapshot_id, operation FROM " + table + ".snapshots ORDER BY committed_at");
  }

  private static String lastSnapshot(String table) {
    List<List<Object>> all = snapshots(table);
    return (String) all.get(all.size() - 1).get(1);
  }

  private static List<List<Object>> fingerprint(String relation) {
    return Cluster.rows(spark, String.format(FINGERPRINT, relation));
  }

  private static Path localPath(String location) {
    return Paths.get(URI.create(location.startsWith("file:") ? location : "file:" + location));
  }

  private static Set<Path> regularFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private static Path plant(Path file, int days) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "not referenced");
    age(file, days);
    return file;
  }

  private static void age(Path file, int days) {
    try {
      Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(days, ChronoUnit.DAYS)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The catalog's real Hadoop FileIO, except that on an executor each opening of a data file of a
   * table whose name starts with {@code slow_} first waits {@link #PAUSE}: a compaction has no
   * expression a throttling function could sit in, so this is what keeps its tasks running long
   * enough to kill an executor under them. It travels to executors inside the shipped table, by
   * Java serialization like the FileIO it extends.
   */
  public static final class SlowOpeningFileIO extends HadoopFileIO {
    static final Duration PAUSE = Duration.ofMillis(250);

    @Override
    public InputFile newInputFile(String path) {
      pauseOnExecutor(path);
      return super.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
      pauseOnExecutor(path);
      return super.newInputFile(path, length);
    }

    private static void pauseOnExecutor(String path) {
      SparkEnv env = SparkEnv.get();
      if (env != null && !SparkContext$.MODULE$.DRIVER_IDENTIFIER().equals(env.executorId())
          && path.contains("/slow_") && path.contains("/data/")) {
        Cluster.sleep(PAUSE.toMillis());
      }
    }
  }
}
