package io.floe.spark.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks that the records {@link SparkToIceberg} makes are what Iceberg's generic Parquet writer
 * expects, and that {@link IcebergToSpark} reads what Iceberg's generic Parquet reader returns.
 */
class ParquetRoundTripTest {
  @TempDir Path dir;

  @Test
  void randomRowsOfEveryTypeSurviveAParquetFile() throws IOException {
    Schema schema = TestData.allTypes();
    List<InternalRow> rows = TestData.randomRows(schema.asStruct(), 1234L, 300);

    List<InternalRow> readBack = writeAndRead(schema, rows, dir.resolve("all.parquet").toFile());

    StructType spark = SparkSchemas.toSpark(schema);
    assertThat(TestData.toJava(readBack, spark)).isEqualTo(TestData.toJava(rows, spark));
  }

  @Test
  void edgeValuesSurviveAParquetFile() throws IOException {
    Schema schema = RowConversionTest.FLAT;
    List<InternalRow> rows = RowConversionTest.edgeRows();

    List<InternalRow> readBack = writeAndRead(schema, rows, dir.resolve("edge.parquet").toFile());

    StructType spark = SparkSchemas.toSpark(schema);
    assertThat(TestData.toJava(readBack, spark)).isEqualTo(TestData.toJava(rows, spark));
  }

  private static List<InternalRow> writeAndRead(Schema schema, List<InternalRow> rows, File file)
      throws IOException {
    SparkToIceberg toIceberg = new SparkToIceberg(schema.asStruct());
    try (FileAppender<Record> appender =
        Parquet.write(Files.localOutput(file))
            .schema(schema)
            .createWriterFunc(GenericParquetWriter::create)
            .build()) {
      for (InternalRow row : rows) {
        appender.add(toIceberg.convert(row));
      }
    }

    IcebergToSpark toSpark = new IcebergToSpark(schema.asStruct());
    List<InternalRow> result = new ArrayList<>(rows.size());
    try (CloseableIterable<Record> records =
        Parquet.read(Files.localInput(file))
            .project(schema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
            .build()) {
      for (Record record : records) {
        result.add(toSpark.convert(record));
      }
    }
    return result;
  }
}
