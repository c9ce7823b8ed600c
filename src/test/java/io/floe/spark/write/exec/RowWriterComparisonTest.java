package io.floe.spark.write.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The measurement harness of issue 31 ({@link RowWriterComparison}) compares like with like: the
 * same rows written through Floe's row writer and through Spark's own Parquet write support give
 * files with the same Parquet schema (Iceberg's field ids on every column), the same values read
 * back by Iceberg's generic Parquet reader, and the same Iceberg metrics when Spark's file's metrics
 * come from the writer's footer in memory; read back from the file, a double column's lower bound
 * 0.0 comes back as -0.0.
 */
class RowWriterComparisonTest {
  @TempDir File dir;

  @ParameterizedTest(name = "{0}% NULLs")
  @ValueSource(ints = {0, 10, 100})
  void floeAndSparkWriteSupportWriteTheSameFile(int nullPercent) throws IOException {
    InternalRow[] rows = RowWriterComparison.rows(30_000, nullPercent);
    File floeFile = new File(dir, "floe.parquet");
    File sparkFile = new File(dir, "spark.parquet");

    RowWriterComparison.Result floe = RowWriterComparison.writeFloe(rows, floeFile);
    RowWriterComparison.Result spark = RowWriterComparison.writeSpark(rows, sparkFile);

    // the same columns; only the message's name differs (Spark names it spark_schema)
    assertThat(schema(sparkFile).getFields()).isEqualTo(schema(floeFile).getFields());
    assertThat(schema(sparkFile).getFields().get(0).getId()).isNotNull();
    assertThat(schema(floeFile).getColumns())
        .allSatisfy(column -> assertThat(column.getPrimitiveType().getId()).isNotNull());
    List<Record> floeRecords = read(floeFile);
    assertThat(floeRecords).hasSize(rows.length);
    assertThat(read(sparkFile)).containsExactlyElementsOf(floeRecords);

    assertSameMetrics(spark.metrics(), floe.metrics());
    // Parquet stores a double column's minimum +0.0 as -0.0 (its format's rule), so metrics read
    // back from the file's footer carry the looser -0.0 where Floe's writer, like Iceberg's, says 0.0
    Metrics fromFile =
        ParquetUtil.fileMetrics(Files.localInput(sparkFile), MetricsConfig.getDefault());
    assertThat(fromFile.lowerBounds()).isEqualTo(zeroAsMinusZero(floe.metrics().lowerBounds()));
    assertThat(fromFile.upperBounds()).isEqualTo(floe.metrics().upperBounds());
    assertThat(fromFile.nullValueCounts()).isEqualTo(floe.metrics().nullValueCounts());
    assertThat(fromFile.valueCounts()).isEqualTo(floe.metrics().valueCounts());
    assertThat(floe.metrics().recordCount()).isEqualTo(rows.length);
    if (nullPercent == 100) {
      assertThat(floe.metrics().lowerBounds()).isEmpty();
    } else {
      assertThat(floe.metrics().lowerBounds()).hasSize(8);
    }
  }

  private static void assertSameMetrics(Metrics actual, Metrics expected) {
    assertThat(actual.recordCount()).isEqualTo(expected.recordCount());
    assertThat(actual.valueCounts()).isEqualTo(expected.valueCounts());
    assertThat(actual.nullValueCounts()).isEqualTo(expected.nullValueCounts());
    assertThat(actual.lowerBounds()).isEqualTo(expected.lowerBounds());
    assertThat(actual.upperBounds()).isEqualTo(expected.upperBounds());
  }

  /** The bounds with every double bound of +0.0 as -0.0. */
  private static Map<Integer, ByteBuffer> zeroAsMinusZero(Map<Integer, ByteBuffer> bounds) {
    Map<Integer, ByteBuffer> result = new HashMap<>(bounds);
    for (Types.NestedField field : RowWriterComparison.SCHEMA.columns()) {
      ByteBuffer bound = bounds.get(field.fieldId());
      if (field.type().typeId() == Type.TypeID.DOUBLE
          && bound != null
          && Double.doubleToRawLongBits(Conversions.fromByteBuffer(field.type(), bound)) == 0L) {
        result.put(field.fieldId(), Conversions.toByteBuffer(field.type(), -0.0));
      }
    }
    return result;
  }

  private static MessageType schema(File file) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file.toPath()))) {
      return reader.getFooter().getFileMetaData().getSchema();
    }
  }

  private static List<Record> read(File file) throws IOException {
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> rows =
        Parquet.read(Files.localInput(file))
            .project(RowWriterComparison.SCHEMA)
            .createReaderFunc(type -> GenericParquetReaders.buildReader(RowWriterComparison.SCHEMA, type))
            .build()) {
      rows.forEach(records::add);
    }
    return records;
  }
}
