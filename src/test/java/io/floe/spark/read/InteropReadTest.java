package io.floe.spark.read;

import static io.floe.spark.read.ReadTestSupport.canonicalRecords;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Floe and Iceberg's own generic reader and writer agree on every value: a table Floe writes reads
 * back identically through {@link IcebergGenerics}, and a table written with Iceberg's generic
 * writer reads identically through Floe. Covers every primitive type Spark can represent (plus
 * Iceberg's uuid and fixed), nested structs, lists and maps, nulls, and partitioned tables whose
 * identity partition values Floe fills from metadata.
 */
class InteropReadTest extends SparkTestBase {

  @BeforeAll
  static void configure() {
    spark.conf().set("spark.sql.datetime.java8API.enabled", "true");
    spark.conf().set("spark.sql.session.timeZone", "Asia/Kolkata");
    sql("CREATE NAMESPACE IF NOT EXISTS floe.interop");
  }

  @Test
  void tableWrittenByFloeReadsIdenticallyThroughIcebergGenerics() throws IOException {
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW floe_src AS SELECT * FROM VALUES"
            + " (1L, true, CAST(1 AS TINYINT), CAST(-2 AS SMALLINT), 3, CAST(1.5 AS FLOAT), 2.25D,"
            + "  CAST(12345678901234.0123456789 AS DECIMAL(38,10)), CAST(-1.05 AS DECIMAL(9,2)),"
            + "  DATE '2024-02-29', TIMESTAMP '2024-02-29 23:59:59.999999',"
            + "  TIMESTAMP_NTZ '1969-12-31 23:59:59.5', 'a', 'héllo ☃', X'00FF10',"
            + "  array(1, NULL, 3), map('k1', named_struct('x', 1L, 'y', 'one')),"
            + "  named_struct('inner', array('p', 'q'), 'n', 7)),"
            + " (2L, false, NULL, NULL, NULL, CAST('NaN' AS FLOAT), CAST('-Infinity' AS DOUBLE),"
            + "  NULL, NULL, DATE '1900-01-01', TIMESTAMP '1900-01-01 00:00:00',"
            + "  NULL, 'b', '', X'',"
            + "  array(), map(), named_struct('inner', CAST(NULL AS ARRAY<STRING>), 'n', 0)),"
            + " (3L, NULL, CAST(127 AS TINYINT), CAST(32767 AS SMALLINT), -2147483648,"
            + "  CAST(-0.0 AS FLOAT), 1e-300D, CAST(0 AS DECIMAL(38,10)), CAST(9999999.99 AS DECIMAL(9,2)),"
            + "  NULL, NULL, TIMESTAMP_NTZ '9999-12-31 23:59:59.999999', NULL, NULL, NULL,"
            + "  NULL, NULL, NULL),"
            + " (4L, true, CAST(-128 AS TINYINT), CAST(0 AS SMALLINT), 2147483647,"
            + "  CAST(3.4028235E38 AS FLOAT), -0.0D, CAST(-0.0000000001 AS DECIMAL(38,10)), CAST(0.01 AS DECIMAL(9,2)),"
            + "  DATE '2024-02-29', TIMESTAMP '2024-03-01 00:00:00', TIMESTAMP_NTZ '2024-03-01 05:30:00',"
            + "  'a', 'x', X'FF', array(NULL), map('k', NULL, 'j', named_struct('x', NULL, 'y', NULL)),"
            + "  named_struct('inner', array(NULL, 'z'), 'n', -1))"
            + " AS t(id, bool, tiny, small, i, f, dbl, dec_big, dec_small, d, ts, ntz, cat, s, bin,"
            + "      arr, m, st)");
    sql(
        "CREATE TABLE floe.interop.by_floe (id BIGINT, bool BOOLEAN, tiny TINYINT, small SMALLINT,"
            + " i INT, f FLOAT, dbl DOUBLE, dec_big DECIMAL(38,10), dec_small DECIMAL(9,2), d DATE,"
            + " ts TIMESTAMP, ntz TIMESTAMP_NTZ, cat STRING, s STRING, bin BINARY, arr ARRAY<INT>,"
            + " m MAP<STRING, STRUCT<x: BIGINT, y: STRING>>, st STRUCT<inner: ARRAY<STRING>, n: INT>)"
            + " USING iceberg PARTITIONED BY (cat, d, bool, i, ntz, bin, days(ts), bucket(2, id), truncate(1, s))");
    sql("INSERT INTO floe.interop.by_floe SELECT * FROM floe_src");
    Table table = icebergTable(spark, "interop.by_floe");
    int width = table.schema().columns().size();

    List<String> expected = canonicalRows(sql("SELECT * FROM floe_src"));
    List<String> generic;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      generic = canonicalRecords(records, width);
    }
    assertThat(generic).isEqualTo(expected);
    assertThat(canonicalRows(sql("SELECT * FROM floe.interop.by_floe"))).isEqualTo(expected);
    assertThat(
            canonicalRows(spark.read().format("floe").load(table.location()).collectAsList()))
        .isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(value = FileFormat.class, names = {"PARQUET", "AVRO"})
  void tableWrittenByIcebergGenericWriterReadsIdenticallyThroughFloe(FileFormat format)
      throws IOException {
    String name = "by_generic_" + format.name().toLowerCase(Locale.ROOT);
    Schema schema =
        new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "bool", Types.BooleanType.get()),
            optional(3, "i", Types.IntegerType.get()),
            optional(4, "l", Types.LongType.get()),
            optional(5, "f", Types.FloatType.get()),
            optional(6, "dbl", Types.DoubleType.get()),
            optional(7, "dec_big", Types.DecimalType.of(38, 10)),
            optional(8, "dec_small", Types.DecimalType.of(9, 2)),
            optional(9, "d", Types.DateType.get()),
            optional(10, "ts", Types.TimestampType.withZone()),
            optional(11, "ntz", Types.TimestampType.withoutZone()),
            optional(12, "cat", Types.StringType.get()),
            optional(13, "u", Types.UUIDType.get()),
            optional(14, "fx", Types.FixedType.ofLength(3)),
            optional(15, "bin", Types.BinaryType.get()),
            optional(16, "arr", Types.ListType.ofOptional(17, Types.IntegerType.get())),
            optional(
                18,
                "m",
                Types.MapType.ofOptional(
                    19,
                    20,
                    Types.StringType.get(),
                    Types.StructType.of(
                        optional(21, "x", Types.LongType.get()),
                        optional(22, "y", Types.StringType.get())))),
            optional(
                23,
                "st",
                Types.StructType.of(
                    optional(24, "inner", Types.ListType.ofRequired(25, Types.StringType.get())),
                    required(26, "n", Types.IntegerType.get()))));
    PartitionSpec spec =
        PartitionSpec.builderFor(schema)
            .identity("bool")
            .identity("i")
            .identity("l")
            .identity("f")
            .identity("dbl")
            .identity("dec_big")
            .identity("d")
            .identity("ts")
            .identity("ntz")
            .identity("cat")
            .identity("u")
            .identity("fx")
            .identity("bin")
            .day("ts")
            .bucket("id", 2)
            .truncate("dec_small", 100)
            .build();
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    Table table =
        catalog
            .icebergCatalog()
            .createTable(
                TableIdentifier.of("interop", name),
                schema,
                spec,
                Map.of(
                    TableProperties.FORMAT_VERSION, "2",
                    TableProperties.DEFAULT_FILE_FORMAT, format.name()));

    List<Record> records = new ArrayList<>();
    UUID uuid = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
    records.add(
        record(
            schema, 1L, true, 3, Long.MIN_VALUE, 1.5f, 2.25d,
            new BigDecimal("12345678901234.0123456789"), new BigDecimal("-1.05"),
            LocalDate.of(2024, 2, 29), OffsetDateTime.of(2024, 2, 29, 23, 59, 59, 999_999_000, ZoneOffset.UTC),
            LocalDateTime.of(1969, 12, 31, 23, 59, 59, 500_000_000), "a", uuid,
            new byte[] {1, 2, 3}, ByteBuffer.wrap("bin".getBytes(StandardCharsets.UTF_8)),
            Arrays.asList(1, null, 3), Map.of("k1", struct(schema, "m", 1L, "one")),
            nested(schema, List.of("p", "q"), 7)));
    records.add(
        record(
            schema, 2L, false, null, Long.MAX_VALUE, Float.NaN, Double.NEGATIVE_INFINITY, null, null,
            LocalDate.of(1900, 1, 1), OffsetDateTime.of(1900, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
            null, "b", null, new byte[] {0, 0, 0}, ByteBuffer.allocate(0), List.of(), Map.of(),
            nested(schema, null, 0)));
    Map<String, Record> withNulls = new LinkedHashMap<>();
    withNulls.put("k", null);
    withNulls.put("j", struct(schema, "m", null, null));
    records.add(
        record(
            schema, 3L, null, Integer.MIN_VALUE, 0L, -0.0f, 1e-300, BigDecimal.ZERO.setScale(10),
            new BigDecimal("9999999.99"), null, null,
            LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000), null, uuid, null, null,
            Arrays.asList((Integer) null), withNulls, null));
    records.add(
        record(
            schema, 4L, true, Integer.MAX_VALUE, -1L, Float.MAX_VALUE, -0.0d,
            new BigDecimal("-0.0000000001"), new BigDecimal("0.01"), LocalDate.of(2024, 2, 29),
            OffsetDateTime.of(2024, 3, 1, 0, 0, 0, 0, ZoneOffset.UTC), null, "a",
            UUID.fromString("00000000-0000-0000-0000-000000000001"), new byte[] {(byte) 0xff, 0, 1},
            ByteBuffer.wrap(new byte[] {(byte) 0xff}), null, null, nested(schema, List.of("z"), -1)));

    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(format).build();
    FanoutDataWriter<Record> writer =
        new FanoutDataWriter<>(writers, files, table.io(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    PartitionKey key = new PartitionKey(spec, schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    try (FanoutDataWriter<Record> closing = writer) {
      for (Record record : records) {
        key.partition(wrapper.wrap(record));
        closing.write(record, spec, key);
      }
    }
    AppendFiles append = table.newAppend();
    writer.result().dataFiles().forEach(append::appendFile);
    append.commit();
    assertThat(writer.result().dataFiles()).hasSizeGreaterThan(1);

    List<String> expected = canonicalRecords(records, schema.columns().size());
    assertThat(canonicalRows(sql("SELECT * FROM floe.interop." + name))).isEqualTo(expected);
    assertThat(canonicalRows(sql("SELECT * FROM floe.interop." + name + " WHERE cat = 'a'")))
        .isEqualTo(canonicalRecords(records.stream().filter(r -> "a".equals(r.getField("cat"))).toList(),
            schema.columns().size()));
    assertThat(sql("SELECT u, d FROM floe.interop." + name + " WHERE id = 1").get(0).getString(0))
        .isEqualTo(uuid.toString());
  }

  private static Record record(Schema schema, Object... values) {
    Record record = GenericRecord.create(schema);
    for (int i = 0; i < values.length; i += 1) {
      record.set(i, values[i]);
    }
    return record;
  }

  private static Record struct(Schema schema, String mapColumn, Long x, String y) {
    Record value = GenericRecord.create(schema.findType(mapColumn).asMapType().valueType().asStructType());
    value.set(0, x);
    value.set(1, y);
    return value;
  }

  private static Record nested(Schema schema, List<String> inner, int n) {
    Record value = GenericRecord.create(schema.findType("st").asStructType());
    value.set(0, inner);
    value.set(1, n);
    return value;
  }

  @Test
  void tableWithATypeSparkCannotRepresentFailsNamingTheColumn() {
    Schema schema =
        new Schema(
            required(1, "id", Types.LongType.get()), optional(2, "at", Types.TimeType.get()));
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    catalog.icebergCatalog().createTable(TableIdentifier.of("interop", "with_time"), schema);

    assertThatThrownBy(() -> sql("SELECT id FROM floe.interop.with_time"))
        .hasMessageContaining("'at'")
        .hasMessageContaining("time");
  }
}
