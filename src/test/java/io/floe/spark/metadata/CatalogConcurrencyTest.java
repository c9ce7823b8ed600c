package io.floe.spark.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.catalog.FloeTable;
import io.floe.spark.read.FloeBatch;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeScan;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Catalog calls (CREATE, ALTER, DROP, SHOW TABLES) from many threads at once complete and leave a
 * consistent catalog, and a planned scan executed after its FileIO was closed never quietly returns
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
