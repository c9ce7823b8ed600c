package io.floe.spark.write.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.types.SparkToIceberg;
import io.floe.spark.write.AllTypes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Floe's Parquet writer for Spark rows against Iceberg's generic writer for the same rows: the
 * same column metrics (which planning prunes on) under every metrics mode, the same Parquet schema
 * with the table's field ids, the same values read back, and the same errors for values that do
 * not fit the column.
 */
class RowParquetWriterTest extends SparkTestBase {

  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.rows");
  }

  @Test
  void everyTypeGetsTheSameMetricsSchemaAndValuesAsTheGenericWriter() throws IOException {
    sql("CREATE TABLE floe.rows.all_types (%s) USING iceberg", AllTypes.DDL);
    Table table = table("rows.all_types");
    List<InternalRow> rows = allTypesRows();

    DataFile actual = writeNative(table, rows);
    DataFile expected = writeGeneric(table, rows);

    assertSameMetrics(actual, expected);
    assertThat(actual.lowerBounds()).isNotEmpty();
    assertThat(actual.nanValueCounts()).isNotEmpty();
    assertThat(parquetSchema(actual)).isEqualTo(parquetSchema(expected));
    assertThat(parquetSchema(actual).getColumns())
        .allSatisfy(column -> assertThat(column.getPrimitiveType().getId()).isNotNull());
    assertThat(read(table, actual)).containsExactlyElementsOf(read(table, expected));
  }

  @Test
  void metricsPropertiesApplyAsWithTheGenericWriter() throws IOException {
    sql(
        "CREATE TABLE floe.rows.metrics_modes (%s) USING iceberg TBLPROPERTIES ("
            + "'write.metadata.metrics.default' = 'truncate(2)',"
            + " 'write.metadata.metrics.column.s' = 'full',"
            + " 'write.metadata.metrics.column.f' = 'none',"
            + " 'write.metadata.metrics.column.d' = 'counts',"
            + " 'write.metadata.metrics.column.st.inner.x' = 'full')",
        AllTypes.DDL);
    Table table = table("rows.metrics_modes");
    List<InternalRow> rows = allTypesRows();

    DataFile actual = writeNative(table, rows);

    assertSameMetrics(actual, writeGeneric(table, rows));
    int f = table.schema().findField("f").fieldId();
    int d = table.schema().findField("d").fieldId();
    assertThat(actual.valueCounts()).doesNotContainKey(f);
    assertThat(actual.nanValueCounts()).containsKey(d);
    assertThat(actual.lowerBounds()).doesNotContainKey(d);
  }

  @Test
  void uuidAndFixedColumnsGetTheSameMetricsAndValuesAsTheGenericWriter() throws IOException {
    Table table = uuidAndFixedTable("uuid_fixed");
    String uuid = "f79c3e09-677c-4bbd-a479-3f349cb785e7";
    List<InternalRow> rows =
        List.of(
            new GenericInternalRow(new Object[] {1L, UTF8String.fromString(uuid), new byte[] {1, 2, 3, 4}}),
            new GenericInternalRow(new Object[] {2L, null, null}),
            new GenericInternalRow(
                new Object[] {
                  3L, UTF8String.fromString("00000000-0000-0000-0000-000000000000"), new byte[4]
                }));

    DataFile actual = writeNative(table, rows);

    assertSameMetrics(actual, writeGeneric(table, rows));
    List<Record> records = read(table, actual);
    assertThat(records.get(0).getField("u")).isEqualTo(UUID.fromString(uuid));
    assertThat(records.get(1).getField("u")).isNull();
  }

  @Test
  void valuesThatDoNotFitTheColumnFailNamingIt() {
    Table table = uuidAndFixedTable("bad_values");

    assertThatThrownBy(
            () ->
                writeNative(
                    table,
                    List.of(new GenericInternalRow(new Object[] {1L, UTF8String.fromString("nope"), null}))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write 'nope' into column 'u' of type uuid: not a valid UUID");
    assertThatThrownBy(
            () ->
                writeNative(
                    table, List.of(new GenericInternalRow(new Object[] {1L, null, new byte[3]}))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write 3 bytes into column 'fx' of type fixed[4]: wrong length");
    assertThatThrownBy(
            () -> writeNative(table, List.of(new GenericInternalRow(new Object[] {null, null, null}))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write NULL into required column 'id'");
  }

  @Test
  void nullInARequiredNestedFieldFailsNamingTheField() {
    sql("CREATE TABLE floe.rows.nested (%s) USING iceberg", AllTypes.DDL);
    Table table = table("rows.nested");
    Object[] values = new Object[AllTypes.SCHEMA.fields().length];
    values[0] = 1L;
    values[13] = new GenericInternalRow(new Object[] {null, null, null});

    assertThatThrownBy(() -> writeNative(table, List.of(new GenericInternalRow(values))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write NULL into required column 'st.a'");
  }

  private static Table uuidAndFixedTable(String name) {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "u", Types.UUIDType.get()),
            Types.NestedField.optional(3, "fx", Types.FixedType.ofLength(4)));
    return catalog
        .icebergCatalog()
        .createTable(TableIdentifier.of("rows", name), schema, PartitionSpec.unpartitioned());
  }

  private static Table table(String name) {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    return catalog.icebergCatalog().loadTable(TableIdentifier.parse(name));
  }

  /** AllTypes' rows as Spark hands them to a writer: UnsafeRows. */
  private static List<InternalRow> allTypesRows() {
    return spark
        .createDataFrame(AllTypes.rows(), AllTypes.SCHEMA)
        .queryExecution()
        .toRdd()
        .toJavaRDD()
        .map(InternalRow::copy)
        .collect();
  }

  private static DataFile writeNative(Table table, List<InternalRow> rows) throws IOException {
    DataWriter<InternalRow> writer =
        new RowFileWriterFactory(table, table.schema(), Map.of())
            .newDataWriter(newFile(table), table.spec(), null);
    try (writer) {
      for (InternalRow row : rows) {
        writer.write(row);
      }
    }
    return writer.toDataFile();
  }

  private static DataFile writeGeneric(Table table, List<InternalRow> rows) throws IOException {
    SparkToIceberg converter = new SparkToIceberg(table.schema().asStruct());
    DataWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .dataSchema(table.schema())
            .build()
            .newDataWriter(newFile(table), table.spec(), null);
    try (writer) {
      for (InternalRow row : rows) {
        writer.write(converter.convert(row));
      }
    }
    return writer.toDataFile();
  }

  private static EncryptedOutputFile newFile(Table table) {
    String location = table.locationProvider().newDataLocation(UUID.randomUUID() + ".parquet");
    return EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(location));
  }

  private static void assertSameMetrics(DataFile actual, DataFile expected) {
    assertThat(actual.recordCount()).isEqualTo(expected.recordCount());
    assertThat(actual.valueCounts()).isEqualTo(expected.valueCounts());
    assertThat(actual.nullValueCounts()).isEqualTo(expected.nullValueCounts());
    assertThat(actual.nanValueCounts()).isEqualTo(expected.nanValueCounts());
    assertThat(actual.lowerBounds()).isEqualTo(expected.lowerBounds());
    assertThat(actual.upperBounds()).isEqualTo(expected.upperBounds());
    assertThat(actual.columnSizes()).isEqualTo(expected.columnSizes());
    assertThat(actual.splitOffsets()).isEqualTo(expected.splitOffsets());
  }

  private static MessageType parquetSchema(DataFile file) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new Path(file.location()), new Configuration()))) {
      return reader.getFooter().getFileMetaData().getSchema();
    }
  }

  private static List<Record> read(Table table, DataFile file) {
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> rows =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(table.schema())
            .createReaderFunc(type -> GenericParquetReaders.buildReader(table.schema(), type))
            .build()) {
      rows.forEach(records::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return records;
  }
}
