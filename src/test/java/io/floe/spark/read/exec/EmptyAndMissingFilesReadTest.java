package io.floe.spark.read.exec;

import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reads that find nothing are valid and quiet (an empty table, a filter that prunes every file, an
 * INSERT ... SELECT of no rows commits nothing); a read that cannot find a committed data file
 * fails and names the file, and never returns fewer rows.
 */
class EmptyAndMissingFilesReadTest extends SparkTestBase {

  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.edge");
  }

  @Test
  void emptyTableReadsNoRowsWithAnyProjectionOrFilter() {
    sql("CREATE TABLE floe.edge.empty (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)");

    Dataset<Row> all = spark.sql("SELECT * FROM floe.edge.empty");
    assertThat(floeScan(all).partitions()).isEmpty();
    assertThat(floeScan(all).snapshotId()).isNull();
    assertThat(all.collectAsList()).isEmpty();
    assertThat(sql("SELECT id FROM floe.edge.empty WHERE cat = 'a' AND id > 3")).isEmpty();
    assertThat(sql("SELECT _file, _pos, _partition FROM floe.edge.empty")).isEmpty();
    assertThat(sql("SELECT count(*) FROM floe.edge.empty")).containsExactly(RowFactory.create(0L));
  }

  @Test
  void filterThatPrunesEveryFileReadsNoRows() {
    sql("CREATE TABLE floe.edge.pruned (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)");
    sql("INSERT INTO floe.edge.pruned VALUES (1, 'a'), (2, 'b'), (3, 'a')");

    Dataset<Row> byPartition = spark.sql("SELECT * FROM floe.edge.pruned WHERE cat = 'zzz'");
    Dataset<Row> byStats = spark.sql("SELECT * FROM floe.edge.pruned WHERE id > 100");

    assertThat(floeScan(byPartition).partitions()).isEmpty();
    assertThat(byPartition.collectAsList()).isEmpty();
    assertThat(floeScan(byStats).partitions()).isEmpty();
    assertThat(byStats.collectAsList()).isEmpty();
    assertThat(sql("SELECT count(*) FROM floe.edge.pruned WHERE id > 100"))
        .containsExactly(RowFactory.create(0L));
  }

  @Test
  void insertSelectOfNoRowsCommitsNoSnapshot() {
    sql("CREATE TABLE floe.edge.source (id BIGINT, data STRING) USING iceberg");
    sql("CREATE TABLE floe.edge.target (id BIGINT, data STRING) USING iceberg");

    sql("INSERT INTO floe.edge.target SELECT * FROM floe.edge.source");

    assertThat(icebergTable(spark, "edge.target").currentSnapshot()).isNull();
    assertThat(sql("SELECT * FROM floe.edge.target.snapshots")).isEmpty();

    sql("INSERT INTO floe.edge.source VALUES (1, 'a')");
    sql("INSERT INTO floe.edge.target SELECT * FROM floe.edge.source");
    sql("INSERT INTO floe.edge.target SELECT * FROM floe.edge.source WHERE id > 100");
    assertThat(sql("SELECT * FROM floe.edge.target.snapshots")).hasSize(1);
    assertThat(sql("SELECT * FROM floe.edge.target")).containsExactly(RowFactory.create(1L, "a"));
  }

  @Test
  void missingDataFileFailsTheQueryNamingTheFile() throws IOException {
    sql("CREATE TABLE floe.edge.missing (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)");
    sql("INSERT INTO floe.edge.missing VALUES (1, 'a'), (2, 'b'), (3, 'a'), (4, 'c')");
    Table table = icebergTable(spark, "edge.missing");
    DataFile lost =
        dataFiles(table).stream()
            .filter(file -> "a".equals(file.partition().get(0, String.class)))
            .findFirst()
            .orElseThrow();
    Path path = Path.of(URI.create(lost.location()));
    Files.delete(path);
    Files.deleteIfExists(path.resolveSibling("." + path.getFileName() + ".crc"));

    // with aggregate pushdown, COUNT(*) is answered from the table's metadata and opens no file;
    // here every query must read the rows
    spark.conf().set("spark.floe.read.aggregate-pushdown", "false");
    try {
      for (String query :
          List.of(
              "SELECT * FROM floe.edge.missing",
              "SELECT count(*) FROM floe.edge.missing",
              "SELECT cat FROM floe.edge.missing",
              "SELECT id FROM floe.edge.missing WHERE cat = 'a'",
              "SELECT _file FROM floe.edge.missing")) {
        assertThatThrownBy(() -> spark.sql(query).collectAsList())
            .as(query)
            .hasMessageContaining(path.getFileName().toString())
            .hasMessageContaining(lost.location());
      }
    } finally {
      spark.conf().unset("spark.floe.read.aggregate-pushdown");
    }
    // files that are still there read fine
    assertThat(sql("SELECT id FROM floe.edge.missing WHERE cat <> 'a' ORDER BY id"))
        .containsExactly(RowFactory.create(2L), RowFactory.create(4L));
  }
}
