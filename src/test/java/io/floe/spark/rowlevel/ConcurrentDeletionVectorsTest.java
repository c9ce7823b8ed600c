package io.floe.spark.rowlevel;

import static io.floe.spark.read.ReadTestSupport.canonicalRecords;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.commit.FaultInjectingCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Beyond the official runtime: a merge-on-read DELETE or UPDATE on a format v3 table succeeds when
 * another operation committed a deletion vector for the same data file while it ran, deleting
 * other rows. The other operation is a writer on Iceberg's core API that commits just before this
 * one reaches the catalog ({@link FaultInjectingCatalog}), so this commit's validation sees the
 * concurrently added vector. The vectors are merged: one live vector holds both operations'
 * positions, and both readers see both changes. When both operations changed the same row, an
 * UPDATE still fails and leaves nothing behind. Two threads deleting different rows of one data file
 * at once all succeed.
 */
class ConcurrentDeletionVectorsTest extends SparkTestBase {
  private static final String CATALOG = "faultmor";
  private static final List<String> CONCURRENT_FILES = new ArrayList<>();

  @BeforeAll
  static void configureCatalog() {
    spark.conf().set("spark.sql.catalog." + CATALOG, FloeCatalog.class.getName());
    spark.conf().set("spark.sql.catalog." + CATALOG + ".catalog-impl", FaultInjectingCatalog.class.getName());
    spark.conf().set("spark.sql.catalog." + CATALOG + ".delegate-type", "hadoop");
    spark.conf().set(
        "spark.sql.catalog." + CATALOG + ".warehouse", warehouse.resolve(CATALOG).toUri().toString());
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
  }

  @AfterEach
  void clearFaults() {
    FaultInjectingCatalog.clear();
    CONCURRENT_FILES.clear();
  }

  /** A v3 merge-on-read table of ids 0-19 in one data file, where row {@code id} is at {@code id}. */
  private static String create(String name) {
    String table = CATALOG + ".db." + name;
    sql("DROP TABLE IF EXISTS %s", table);
    sql(
        "CREATE TABLE %s (id INT, data STRING) USING iceberg TBLPROPERTIES ('format-version' = '3',"
            + " 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')",
        table);
    sql("INSERT INTO %s SELECT /*+ COALESCE(1) */ CAST(id AS INT), concat('v', id) FROM range(20)", table);
    return table;
  }

  private static Table iceberg(String name) {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog(CATALOG);
    return catalog.icebergCatalog().loadTable(TableIdentifier.of("db", name));
  }

  /** Makes the next commit to the table find that another writer deleted {@code position} first. */
  private static void concurrentlyDeleteBeforeNextCommit(String name, long position) {
    FaultInjectingCatalog.inject(
        CATALOG,
        "db." + name,
        (real, base, metadata) -> {
          deleteAsAnotherWriter(new BaseTable(real, name), position);
          real.commit(base, metadata);
        });
  }

  /**
   * Deletes a position of the table's one data file as a correct v3 writer does: its new vector
   * merges the file's live one, which it replaces.
   */
  private static void deleteAsAnotherWriter(Table table, long position) {
    table.refresh();
    FileScanTask task;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      List<FileScanTask> all = new ArrayList<>();
      tasks.forEach(all::add);
      task = all.stream().filter(t -> t.file().recordCount() == 20).findFirst().orElseThrow();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<DeleteFile> previous = task.deletes();
    BaseDeleteLoader loader = new BaseDeleteLoader(file -> table.io().newInputFile(file));
    BaseDVFileWriter writer =
        new BaseDVFileWriter(
            OutputFileFactory.builderFor(table, 99, 99).format(FileFormat.PUFFIN).build(),
            path -> previous.isEmpty() ? null : loader.loadPositionDeletes(previous, path));
    try {
      writer.delete(task.file().location(), position, task.spec(), task.file().partition());
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DeleteWriteResult result = writer.result();
    // from the snapshot it read, or Iceberg takes the vector it replaces for a concurrent one
    RowDelta delta = table.newRowDelta().validateFromSnapshot(table.currentSnapshot().snapshotId());
    result.deleteFiles().forEach(delta::addDeletes);
    result.rewrittenDeleteFiles().forEach(delta::removeDeletes);
    delta.commit();
    result.deleteFiles().forEach(file -> CONCURRENT_FILES.add(file.location()));
  }

  @Test
  void deletesOfDifferentRowsOfOneDataFileBothCommit() {
    String table = create("two_deletes");
    int snapshotsBefore = snapshots("two_deletes");
    concurrentlyDeleteBeforeNextCommit("two_deletes", 3);

    sql("DELETE FROM %s WHERE id = 5", table);

    assertRows("two_deletes", "SELECT CAST(id AS INT), concat('v', id) FROM range(20) WHERE id NOT IN (3, 5)");
    assertThat(snapshots("two_deletes")).isEqualTo(snapshotsBefore + 2);
    assertThat(liveVectorCardinalities("two_deletes")).containsExactly(2L);
    // the vector this delete wrote first was merged away and its file removed: on disk are the
    // other writer's Puffin file (in the table's history) and the merged one
    List<Path> puffins =
        filesOnDisk(iceberg("two_deletes")).stream()
            .filter(path -> path.toString().endsWith(".puffin"))
            .toList();
    List<Path> expected = new ArrayList<>();
    CONCURRENT_FILES.forEach(location -> expected.add(Paths.get(URI.create(location))));
    liveVectorLocations("two_deletes").forEach(location -> expected.add(Paths.get(URI.create(location))));
    assertThat(puffins).containsExactlyInAnyOrderElementsOf(expected);
  }

  private static List<String> liveVectorLocations(String name) {
    List<String> locations = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg(name).newScan().planFiles()) {
      tasks.forEach(task -> task.deletes().forEach(delete -> locations.add(delete.location())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return locations;
  }

  @Test
  void deleteFromAnotherDataFileThanAConcurrentDeleteCommits() {
    String table = create("other_file");
    sql("INSERT INTO %s SELECT /*+ COALESCE(1) */ CAST(id AS INT), concat('v', id) FROM range(20, 30)", table);
    concurrentlyDeleteBeforeNextCommit("other_file", 3);

    sql("DELETE FROM %s WHERE id = 25", table);

    assertRows(
        "other_file", "SELECT CAST(id AS INT), concat('v', id) FROM range(30) WHERE id NOT IN (3, 25)");
    assertThat(liveVectorCardinalities("other_file")).containsExactly(1L, 1L);
  }

  @Test
  void deletesMergeWithAVectorBothStartedFrom() {
    String table = create("from_previous");
    sql("DELETE FROM %s WHERE id = 1", table);
    concurrentlyDeleteBeforeNextCommit("from_previous", 3);

    sql("DELETE FROM %s WHERE id IN (5, 7)", table);

    assertRows(
        "from_previous",
        "SELECT CAST(id AS INT), concat('v', id) FROM range(20) WHERE id NOT IN (1, 3, 5, 7)");
    assertThat(liveVectorCardinalities("from_previous")).containsExactly(4L);
  }

  @Test
  void updateOfAnotherRowThanAConcurrentDeleteCommits() {
    String table = create("update_other");
    concurrentlyDeleteBeforeNextCommit("update_other", 3);

    sql("UPDATE %s SET data = 'changed' WHERE id = 5", table);

    assertRows(
        "update_other",
        "SELECT CAST(id AS INT), CASE WHEN id = 5 THEN 'changed' ELSE concat('v', id) END"
            + " FROM range(20) WHERE id != 3");
    assertThat(liveVectorCardinalities("update_other")).containsExactly(2L);
  }

  @Test
  void updateOfTheRowAConcurrentDeleteRemovedFailsAndLeavesNothing() {
    String table = create("update_same");
    List<Path> filesBefore = filesOnDisk(iceberg("update_same"));
    concurrentlyDeleteBeforeNextCommit("update_same", 5);

    assertThatThrownBy(() -> sql("UPDATE %s SET data = 'changed' WHERE id = 5", table))
        .hasStackTraceContaining(table)
        .hasStackTraceContaining("isolation-level serializable found a conflicting commit");

    // only the other writer's delete is in the table, and only its file was added
    assertRows("update_same", "SELECT CAST(id AS INT), concat('v', id) FROM range(20) WHERE id != 5");
    List<Path> expectedFiles = new ArrayList<>(filesBefore);
    CONCURRENT_FILES.forEach(location -> expectedFiles.add(Paths.get(URI.create(location))));
    assertThat(filesOnDisk(iceberg("update_same")))
        .containsExactlyInAnyOrderElementsOf(expectedFiles.stream().distinct().toList());
  }

  @Test
  void deletesFromTwoThreadsOfDifferentRowsOfOneDataFileAllSucceed() throws Exception {
    String table = create("threads");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 3; round += 1) {
        CyclicBarrier start = new CyclicBarrier(2);
        List<Future<?>> deletes = new ArrayList<>();
        for (int thread = 0; thread < 2; thread += 1) {
          int id = round * 2 + thread;
          deletes.add(
              pool.submit(
                  () -> {
                    start.await();
                    sql("DELETE FROM %s WHERE id = %d", table, id);
                    return null;
                  }));
        }
        for (Future<?> delete : deletes) {
          delete.get(120, TimeUnit.SECONDS);
        }
      }
    } finally {
      pool.shutdownNow();
    }

    assertRows("threads", "SELECT CAST(id AS INT), concat('v', id) FROM range(6, 20)");
    assertThat(liveVectorCardinalities("threads")).containsExactly(6L);
  }

  private static void assertRows(String name, String expectedQuery) {
    List<String> expected = canonicalRows(spark.sql(expectedQuery).collectAsList());
    assertThat(canonicalRows(spark.sql("SELECT id, data FROM " + CATALOG + ".db." + name).collectAsList()))
        .as("rows read by Floe")
        .isEqualTo(expected);
    try (CloseableIterable<Record> records = IcebergGenerics.read(iceberg(name)).build()) {
      assertThat(canonicalRecords(records, 2)).as("rows read by Iceberg").isEqualTo(expected);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int snapshots(String name) {
    List<Object> all = new ArrayList<>();
    iceberg(name).snapshots().forEach(all::add);
    return all.size();
  }

  /** The cardinality of each live deletion vector. */
  private static List<Long> liveVectorCardinalities(String name) {
    List<Long> cardinalities = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg(name).newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          assertThat(delete.format()).isEqualTo(FileFormat.PUFFIN);
          cardinalities.add(delete.recordCount());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return cardinalities;
  }

  private static List<Path> filesOnDisk(Table table) {
    String location = table.location();
    Path data =
        Paths.get(URI.create(location.startsWith("file:") ? location : "file:" + location))
            .resolve("data");
    try (Stream<Path> files = Files.walk(data)) {
      return files
          .filter(Files::isRegularFile)
          .filter(path -> !path.getFileName().toString().endsWith(".crc"))
          .sorted()
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
