package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.catalog.TestCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The official runtime's per-write {@code compression-codec}, {@code compression-level} and {@code
 * compression-strategy}: the written files' Parquet footers carry the codec asked for, only that
 * write is affected, and bad values fail naming the option with nothing committed.
 */
class CompressionOptionTest extends CatalogTestBase {

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  @BeforeEach
  void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.codecs (id BIGINT, data STRING) USING iceberg");
  }

  @AfterEach
  void dropTable() {
    sql("DROP TABLE IF EXISTS floe.db.codecs");
    spark.conf().unset("spark.sql.iceberg.compression-codec");
    spark.conf().unset("spark.floe.write.compression-codec");
  }

  private static void append(String... options) throws Exception {
    var writer = spark.sql("SELECT id, CAST(id AS STRING) AS data FROM range(100)").writeTo("floe.db.codecs");
    for (int i = 0; i < options.length; i += 2) {
      writer = writer.option(options[i], options[i + 1]);
    }
    writer.append();
  }

  @Test
  void theCodecAndLevelApplyToThisWriteOnly() throws Exception {
    append("compression-codec", "gzip", "compression-level", "9", "compression-strategy", "speed");
    assertThat(codecsOfLatestSnapshot()).containsExactly("GZIP");
    append("compression-codec", "gzip", "compression-level", "best_speed");
    assertThat(codecsOfLatestSnapshot()).containsExactly("GZIP");

    append();
    assertThat(codecsOfLatestSnapshot()).containsExactly("ZSTD");
    assertThat(icebergTable("db.codecs").properties())
        .containsEntry(TableProperties.PARQUET_COMPRESSION, "zstd")
        .doesNotContainKey(TableProperties.PARQUET_COMPRESSION_LEVEL);
    assertThat(sql("SELECT count(*) FROM floe.db.codecs")).containsExactly(row(300L));
  }

  @Test
  void sessionConfsOfBothRuntimesSetTheCodecAndTheWriteOptionWins() throws Exception {
    spark.conf().set("spark.sql.iceberg.compression-codec", "snappy");
    append();
    assertThat(codecsOfLatestSnapshot()).containsExactly("SNAPPY");

    spark.conf().set("spark.floe.write.compression-codec", "uncompressed");
    append();
    assertThat(codecsOfLatestSnapshot()).containsExactly("UNCOMPRESSED");

    append("compression-codec", "gzip");
    assertThat(codecsOfLatestSnapshot()).containsExactly("GZIP");
  }

  @Test
  void theOptionReplacesTheTablesCodecProperty() throws Exception {
    sql("ALTER TABLE floe.db.codecs SET TBLPROPERTIES ('write.parquet.compression-codec'='snappy')");
    append("compression-codec", "zstd", "compression-level", "3");
    assertThat(codecsOfLatestSnapshot()).containsExactly("ZSTD");
  }

  @Test
  void badCodecsLevelsAndStrategiesFailNamingTheOptionAndCommitNothing() {
    assertThatThrownBy(() -> append("compression-codec", "lzzz"))
        .hasMessageContaining("Cannot write to floe.db.codecs: option 'compression-codec' names no"
            + " Parquet codec: 'lzzz'");
    assertThatThrownBy(() -> append("compression-level", "high"))
        .hasMessageContaining("option 'compression-level' must be a whole number, not 'high'");
    assertThatThrownBy(() -> append("compression-codec", "zstd", "compression-level", "30"))
        .hasMessageContaining("option 'compression-level' must be between 1 and 22 for codec zstd, not 30");
    assertThatThrownBy(() -> append("compression-codec", "gzip", "compression-level", "10"))
        .hasMessageContaining("option 'compression-level' must be 0 to 9 or one of [")
        .hasMessageContaining("for codec gzip, not '10'");
    assertThatThrownBy(() -> append("compression-strategy", "fastest"))
        .hasMessageContaining("option 'compression-strategy' must be speed or compression, not 'fastest'");

    assertThat(snapshots("db.codecs")).isEmpty();
    assertThat(dataFilesOnDisk(icebergTable("db.codecs").location())).isEmpty();
  }

  /** The codecs of every column chunk of the files the current snapshot added, from their footers. */
  private static Set<String> codecsOfLatestSnapshot() {
    Table table = icebergTable("db.codecs");
    Set<String> codecs = new HashSet<>();
    for (DataFile file : table.currentSnapshot().addedDataFiles(table.io())) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(
                  new org.apache.hadoop.fs.Path(file.location()), new Configuration()))) {
        List<BlockMetaData> blocks = reader.getFooter().getBlocks();
        for (BlockMetaData block : blocks) {
          for (ColumnChunkMetaData column : block.getColumns()) {
            codecs.add(column.getCodec().name());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return codecs;
  }
}
