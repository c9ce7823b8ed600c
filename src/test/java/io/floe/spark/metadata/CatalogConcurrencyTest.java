package io.floe.spark.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.catalog.FloeTable;
import io.floe.spark.catalog.TestCatalog;
import io.floe.spark.read.FloeBatch;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeScan;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.util.ThreadPools;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Catalog calls (CREATE, ALTER, RENAME, DROP, SHOW TABLES) from many threads at once, from inside
 * Spark tasks, from a single-threaded executor and from Iceberg's own worker pool complete and leave
 * a consistent catalog, and a planned scan executed after its FileIO was closed never quietly returns
 * fewer rows.
 */
class CatalogConcurrencyTest extends SparkTestBase {
  private static final int THREADS = 8;
  private static final int TABLES_PER_THREAD = 4;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void eightThreadsCreatingAndDroppingTablesFinishAndShowTablesIsConsistent() throws Exception {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.par");
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int thread = 0; thread < THREADS; thread += 1) {
        int t = thread;
        futures.add(pool.submit(() -> {
          for (int i = 0; i < TABLES_PER_THREAD; i += 1) {
            sql("CREATE TABLE floe.par.t%d_%d (id BIGINT, data STRING) USING iceberg", t, i);
          }
          // drop every other table; the rest stay
          for (int i = 0; i < TABLES_PER_THREAD; i += 2) {
            sql("DROP TABLE floe.par.t%d_%d", t, i);
          }
          sql("ALTER TABLE floe.par.t%d_1 ADD COLUMN extra STRING", t);
          sql("SHOW TABLES IN floe.par");
          return null;
        }));
      }
      for (Future<?> future : futures) {
        future.get(150, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    Set<String> expected = new TreeSet<>();
    for (int t = 0; t < THREADS; t += 1) {
      for (int i = 1; i < TABLES_PER_THREAD; i += 2) {
        expected.add("t" + t + "_" + i);
      }
    }
    Set<String> shown = new TreeSet<>();
    for (Row row : sql("SHOW TABLES IN floe.par")) {
      shown.add(row.getString(row.fieldIndex("tableName")));
    }
    assertThat(shown).isEqualTo(expected);
    for (int t = 0; t < THREADS; t += 1) {
      assertThat(spark.table("floe.par.t" + t + "_1").columns()).containsExactly("id", "data", "extra");
    }
    for (String table : expected) {
      assertThat(sql("SELECT count(*) FROM floe.par.%s", table)).containsExactly(RowFactory.create(0L));
    }
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void catalogCallsFromInsideSparkTasksComplete() throws Exception {
    Map<String, String> options = jdbcCatalogOptions("tasks");
    List<String> results =
        JavaSparkContext.fromSparkContext(spark.sparkContext())
            .parallelize(List.of(0, 1, 2, 3, 4, 5), 6)
            .map(task -> catalogRoundTrip(options, "in_task_" + task))
            .collect();
    assertThat(results).containsExactlyInAnyOrder(
        "in_task_0_renamed", "in_task_1_renamed", "in_task_2_renamed", "in_task_3_renamed",
        "in_task_4_renamed", "in_task_5_renamed");
    assertThat(catalog(options).listTables(new String[] {"db"})).isEmpty();
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void catalogCallsAndQueriesFromASingleThreadedExecutorComplete() throws Exception {
    Map<String, String> options = jdbcCatalogOptions("single");
    sql("CREATE NAMESPACE IF NOT EXISTS floe.single");
    ExecutorService single = Executors.newSingleThreadExecutor();
    try {
      String renamed =
          single.submit(() -> catalogRoundTrip(options, "one")).get(150, TimeUnit.SECONDS);
      assertThat(renamed).isEqualTo("one_renamed");
      // a query planned and run from the single thread, with a table of several manifests
      List<Row> rows =
          single.submit(() -> {
            sql("CREATE TABLE floe.single.many (id BIGINT) USING iceberg");
            for (int i = 0; i < 4; i += 1) {
              sql("INSERT INTO floe.single.many VALUES (%d)", i);
            }
            return sql("SELECT count(*) FROM floe.single.many WHERE id >= 0");
          }).get(150, TimeUnit.SECONDS);
      assertThat(rows).containsExactly(RowFactory.create(4L));
    } finally {
      single.shutdownNow();
    }
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void queriesRunFromEveryThreadOfIcebergsWorkerPoolComplete() throws Exception {
    // Iceberg plans manifests on its shared worker pool; queries started from inside that pool,
    // more than it has threads, must not wait forever on work queued behind themselves. (Writes
    // cannot promise this: Iceberg's commit always writes its manifests on that same pool.)
    sql("CREATE NAMESPACE IF NOT EXISTS floe.pool");
    sql("CREATE TABLE floe.pool.manifests (id BIGINT, part INT) USING iceberg PARTITIONED BY (part)");
    for (int i = 0; i < 6; i += 1) {
      sql("INSERT INTO floe.pool.manifests VALUES (%d, %d)", i, i % 3);
    }
    ExecutorService workers = ThreadPools.getWorkerPool();
    int threads = ThreadPools.WORKER_THREAD_POOL_SIZE + 2;
    List<Future<List<Row>>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i += 1) {
      int part = i % 3;
      futures.add(workers.submit(
          () -> sql("SELECT count(*) FROM floe.pool.manifests WHERE part = %d", part)));
    }
    for (Future<List<Row>> future : futures) {
      assertThat(future.get(150, TimeUnit.SECONDS)).containsExactly(RowFactory.create(2L));
    }
  }

  /** Options of a JDBC catalog (SQLite) in a folder of its own, with a namespace {@code db}. */
  private static Map<String, String> jdbcCatalogOptions(String name) throws Exception {
    Map<String, String> options =
        new HashMap<>(TestCatalog.JDBC.options(Files.createDirectories(warehouse.resolve(name))));
    catalog(options).createNamespace(new String[] {"db"}, Map.of());
    return options;
  }

  private static FloeCatalog catalog(Map<String, String> options) {
    FloeCatalog catalog = new FloeCatalog();
    catalog.initialize("floe", new CaseInsensitiveStringMap(options));
    return catalog;
  }

  /**
   * Creates, alters, renames, lists and drops a table in namespace {@code db} through a
   * FloeCatalog made on the calling thread; returns the name the table had when it was dropped.
   */
  private static String catalogRoundTrip(Map<String, String> options, String name)
      throws Exception {
    FloeCatalog catalog = catalog(options);
    String[] ns = {"db"};
    Identifier ident = Identifier.of(ns, name);
    catalog.createTable(
        ident,
        new Column[] {Column.create("id", DataTypes.LongType)},
        new Transform[0],
        Map.of());
    catalog.alterTable(ident, TableChange.addColumn(new String[] {"extra"}, DataTypes.StringType));
    Identifier renamed = Identifier.of(ns, name + "_renamed");
    catalog.renameTable(ident, renamed);
    boolean listed =
        Arrays.stream(catalog.listTables(ns)).anyMatch(listedIdent -> listedIdent.equals(renamed));
    if (!listed) {
      throw new AssertionError("renamed table " + renamed + " is not listed");
    }
    if (catalog.loadTable(renamed).columns().length != 2) {
      throw new AssertionError("added column is missing from " + renamed);
    }
    catalog.dropTable(renamed);
    return renamed.name();
  }

  @Test
  void plannedScanExecutedAfterItsFileIoIsClosedStillReturnsEveryRow() throws Exception {
    // Hadoop's FileIO has nothing to release: closing it leaves it usable, so the planned scan
    // must still read every row (and in particular never an empty result).
    sql("CREATE NAMESPACE IF NOT EXISTS floe.io");
    sql("CREATE TABLE floe.io.closing (id BIGINT, data STRING) USING iceberg");
    sql("INSERT INTO floe.io.closing VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    FloeCatalog catalog =
        (FloeCatalog) ((SparkSession) spark).sessionState().catalogManager().catalog("floe");
    FloeTable table = (FloeTable) catalog.loadTable(Identifier.of(new String[] {"io"}, "closing"));
    FloeScan scan = (FloeScan) table.newScanBuilder(CaseInsensitiveStringMap.empty()).build();
    FloeBatch batch = (FloeBatch) scan.toBatch();
    assertThat(batch.partitions()).isNotEmpty();

    scan.io().close();

    List<Long> ids = new ArrayList<>();
    for (FloeInputPartition partition : batch.partitions()) {
      try (PartitionReader<InternalRow> reader = batch.readerFactory().createReader(partition)) {
        while (reader.next()) {
          ids.add(reader.get().getLong(0));
        }
      }
    }
    assertThat(ids).containsExactlyInAnyOrder(1L, 2L, 3L);
  }
}
