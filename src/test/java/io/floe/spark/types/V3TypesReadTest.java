package io.floe.spark.types;

import static io.floe.spark.read.ReadPaths.rowPathEitherWay;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Format v3 types Spark has no exact counterpart for: {@code timestamp_ns} and {@code
 * timestamptz_ns} read as microsecond timestamps truncated toward negative infinity, and {@code
 * unknown} reads as NULL (Spark's NullType). Such scans are read as rows whatever the
 * vectorization setting (the columnar decoder does not serve these types). The expected microseconds are
 * Spark's own arithmetic over the nanoseconds Spark's Parquet reader returns for the same files
 * ({@code spark.sql.legacy.parquet.nanosAsLong}).
 */
class V3TypesReadTest extends SparkTestBase {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.IntegerType.get()),
          Types.NestedField.optional(2, "ts", Types.TimestampNanoType.withoutZone()),
          Types.NestedField.optional(3, "tstz", Types.TimestampNanoType.withZone()),
          Types.NestedField.optional(4, "nothing", Types.UnknownType.get()));

  @BeforeAll
  static void utc() {
    spark.conf().set("spark.sql.session.timeZone", "UTC");
    sql("CREATE NAMESPACE IF NOT EXISTS floe.v3types");
  }

  @AfterAll
  static void resetTimeZone() {
    if (spark != null) {
      spark.conf().unset("spark.sql.session.timeZone");
    }
  }

  @Test
  void nanosecondTimestampsReadAsMicrosecondsTruncatedTowardNegativeInfinity() throws IOException {
    Table table = createTable("nanos");
    // before 1970 with a sub-microsecond part: truncating toward zero would round up
    List<LocalDateTime> values =
        List.of(
            LocalDateTime.of(2024, 5, 6, 7, 8, 9, 123_456_789),
            LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_001),
            LocalDateTime.of(1900, 1, 1, 0, 0, 0, 1),
            LocalDateTime.of(1970, 1, 1, 0, 0, 0, 0));
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      GenericRecord record = GenericRecord.create(SCHEMA);
      record.setField("id", i);
      record.setField("ts", values.get(i));
      record.setField("tstz", OffsetDateTime.of(values.get(i), ZoneOffset.UTC));
      records.add(record);
    }
    records.add(GenericRecord.create(SCHEMA).copy(Map.of("id", values.size())));
    append(table, records);

    StructType sparkSchema = spark.table("floe.v3types.nanos").schema();
    assertThat(sparkSchema.apply("ts").dataType()).isEqualTo(DataTypes.TimestampNTZType);
    assertThat(sparkSchema.apply("tstz").dataType()).isEqualTo(DataTypes.TimestampType);
    assertThat(sparkSchema.apply("nothing").dataType()).isEqualTo(DataTypes.NullType);

    List<String> floe =
        rowPathEitherWay(spark, "SELECT id, unix_micros(CAST(ts AS TIMESTAMP)), unix_micros(tstz), nothing "
            + "FROM floe.v3types.nanos");
    assertThat(floe).isEqualTo(expectedFromNanos(table)).hasSize(5);
    assertThat(floe).contains("[1, -1, -1, null]");
  }

  @Test
  void filtersOnNanosecondColumnsKeepEveryMatchingRow() throws IOException {
    Table table = createTable("filtered");
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      GenericRecord record = GenericRecord.create(SCHEMA);
      record.setField("id", i);
      // 2024-01-01T00:00:00.000001 plus i * 400 ns: all three truncate to the same microsecond
      record.setField("ts", LocalDateTime.of(2024, 1, 1, 0, 0, 0, 1_000 + i * 400));
      records.add(record);
    }
    append(table, records);

    assertThat(rowPathEitherWay(spark,
            "SELECT id FROM floe.v3types.filtered WHERE ts = TIMESTAMP_NTZ '2024-01-01 00:00:00.000001'"))
        .containsExactly("[0]", "[1]", "[2]");
    assertThat(rowPathEitherWay(spark,
            "SELECT id FROM floe.v3types.filtered WHERE ts <= TIMESTAMP_NTZ '2024-01-01 00:00:00.000001'"))
        .hasSize(3);
  }

  @Test
  void writesToANanosecondColumnFailAndCommitNothing() throws IOException {
    Table table = createTable("written");
    long before = table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId();
    assertThatThrownBy(
            () -> sql("INSERT INTO floe.v3types.written VALUES (1, TIMESTAMP_NTZ '2024-01-01 00:00:00', "
                + "TIMESTAMP '2024-01-01 00:00:00', NULL)"))
        .hasStackTraceContaining("Cannot write column 'ts' of type timestamp_ns");
    table.refresh();
    assertThat(table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId())
        .isEqualTo(before);
  }

  /** Spark's own reading of the files' nanoseconds, floored to microseconds by Spark SQL. */
  private static List<String> expectedFromNanos(Table table) {
    List<String> paths = dataFiles(table).stream().map(DataFile::location).toList();
    spark.conf().set("spark.sql.legacy.parquet.nanosAsLong", "true");
    try {
      spark.read().parquet(paths.toArray(new String[0])).createOrReplaceTempView("nanos_raw");
      return canonicalRows(
          sql("SELECT id, (ts - pmod(ts, 1000)) div 1000, (tstz - pmod(tstz, 1000)) div 1000, "
              + "NULL FROM nanos_raw"));
    } finally {
      spark.conf().unset("spark.sql.legacy.parquet.nanosAsLong");
    }
  }

  private static Table createTable(String name) {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    catalog.icebergCatalog()
        .createTable(
            TableIdentifier.of("v3types", name),
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of("format-version", "3"));
    return icebergTable(spark, "v3types." + name);
  }

  private static void append(Table table, List<Record> records) throws IOException {
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = writers.newDataWriter(files.newOutputFile(), table.spec(), null);
    try (DataWriter<Record> closing = writer) {
      records.forEach(closing::write);
    }
    table.newAppend().appendFile(writer.toDataFile()).commit();
  }
}
