package io.floe.spark.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.distributed.RecordingCatalog.Call;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The {@code position_deletes} metadata table read by executors in their own JVMs (the cluster of
 * {@link Cluster}, strict Kryo): the delete-file tasks planned on the driver travel in the input
 * partitions, every deleted position of Parquet delete files and deletion vectors comes back once,
 * and only the driver calls the catalog.
 */
@Tag("distributed")
class PositionDeletesOnClusterTest {
  private static Path root;
  private static Path calls;
  private static SparkSession spark;

  @BeforeAll
  static void startCluster() {
    try {
      root = Files.createTempDirectory("floe-position-deletes");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    calls = root.resolve("calls.log");
    spark = Cluster.start(Cluster.master(), root, calls);
    Cluster.awaitExecutors(spark, 2, Duration.ofMinutes(3));
    spark.sql("CREATE NAMESPACE floe.db");
  }

  @AfterAll
  static void stopCluster() {
    Cluster.stop(spark);
    spark = null;
    Cluster.deleteRecursively(root);
  }

  @Test
  void executorsReadEveryDeletedPositionOfDeleteFilesAndVectorsWithoutCatalogCalls() {
    List<List<Object>> expected = new ArrayList<>();
    for (String version : List.of("2", "3")) {
      String name = "v" + version;
      spark.sql("CREATE TABLE floe.db." + name + " (id BIGINT, category STRING) USING iceberg"
          + " PARTITIONED BY (category) TBLPROPERTIES ('format-version'='" + version + "')");
      spark.sql("INSERT INTO floe.db." + name + " SELECT id, IF(id % 2 = 0, 'even', 'odd')"
          + " FROM range(0, 400, 1, 4)").collectAsList();
      expected.addAll(deletePositions(icebergTable("db." + name), version.equals("3")));
    }
    long driver = ProcessHandle.current().pid();

    List<List<Object>> rows = new ArrayList<>();
    for (String name : List.of("v2", "v3")) {
      spark.conf().set("spark.floe.read.split-size", "1");
      try {
        rows.addAll(
            Cluster.rows(
                spark,
                "SELECT file_path, pos, partition.category, delete_file_path FROM floe.db." + name
                    + ".position_deletes"));
      } finally {
        spark.conf().unset("spark.floe.read.split-size");
      }
    }
    rows.sort(Comparator.comparing(Object::toString));
    expected.sort(Comparator.comparing(Object::toString));
    assertThat(rows).isNotEmpty().isEqualTo(expected);
    assertThat(Cluster.rows(spark, "SELECT count(*) FROM floe.db.v3.position_deletes"
            + " WHERE partition.category = 'odd'"))
        .containsExactly(List.of(expected.stream()
            .filter(row -> row.get(3).toString().endsWith(".puffin") && row.get(2).equals("odd"))
            .count()));

    List<Call> recorded = RecordingCatalog.calls(calls);
    assertThat(recorded).extracting(Call::call).contains("loadTable db.v2.position_deletes");
    assertThat(recorded).allSatisfy(call -> assertThat(call.pid()).isEqualTo(driver));
  }

  /**
   * Deletes positions 0 and 2 of every data file (a Parquet delete file each, or deletion vectors
   * on format version 3) and returns the rows the position_deletes table shows for them.
   */
  private static List<List<Object>> deletePositions(Table table, boolean vectors) {
    List<List<Object>> rows = new ArrayList<>();
    List<Long> positions = List.of(0L, 2L);
    RowDelta delta = table.newRowDelta();
    try {
      if (vectors) {
        OutputFileFactory puffins =
            OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PUFFIN).build();
        BaseDVFileWriter writer = new BaseDVFileWriter(puffins, path -> null);
        try (BaseDVFileWriter closing = writer) {
          for (DataFile file : dataFiles(table)) {
            for (long pos : positions) {
              closing.delete(file.location(), pos, table.specs().get(file.specId()), file.partition());
            }
          }
        }
        for (DeleteFile dv : writer.result().deleteFiles()) {
          delta.addDeletes(dv);
          for (long pos : positions) {
            rows.add(List.of(dv.referencedDataFile(), pos, dv.partition().get(0, String.class), dv.location()));
          }
        }
      } else {
        GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).build();
        OutputFileFactory files =
            OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
        for (DataFile file : dataFiles(table)) {
          PartitionSpec spec = table.specs().get(file.specId());
          PositionDeleteWriter<Record> writer =
              writers.newPositionDeleteWriter(
                  files.newOutputFile(spec, file.partition()), spec, file.partition());
          try (PositionDeleteWriter<Record> closing = writer) {
            PositionDelete<Record> delete = PositionDelete.create();
            for (long pos : positions) {
              closing.write(delete.set(file.location(), pos));
            }
          }
          DeleteFile deletes = writer.toDeleteFile();
          delta.addDeletes(deletes);
          for (long pos : positions) {
            rows.add(List.of(file.location(), pos, file.partition().get(0, String.class), deletes.location()));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    delta.commit();
    return rows;
  }

  private static Table icebergTable(String name) {
    FloeCatalog catalog =
        (FloeCatalog)
            ((org.apache.spark.sql.classic.SparkSession) spark)
                .sessionState()
                .catalogManager()
                .catalog("floe");
    return catalog.icebergCatalog().loadTable(TableIdentifier.parse(name));
  }

  private static List<DataFile> dataFiles(Table table) {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
