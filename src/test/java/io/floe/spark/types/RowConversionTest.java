package io.floe.spark.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

class RowConversionTest {
  private static final Schema ALL_TYPES = TestData.allTypes();
  private static final StructType SPARK_ALL_TYPES = SparkSchemas.toSpark(ALL_TYPES);

  /** id, ts (timestamptz), ts_ntz, date, dec decimal(9, 2), s, u uuid, fx fixed[3], bin. */
  static final Schema FLAT =
      new Schema(
          Types.NestedField.required(1, "id", Types.IntegerType.get()),
          Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(3, "ts_ntz", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(4, "date", Types.DateType.get()),
          Types.NestedField.optional(5, "dec", Types.DecimalType.of(9, 2)),
          Types.NestedField.optional(6, "s", Types.StringType.get()),
          Types.NestedField.optional(7, "u", Types.UUIDType.get()),
          Types.NestedField.optional(8, "fx", Types.FixedType.ofLength(3)),
          Types.NestedField.optional(9, "bin", Types.BinaryType.get()));

  @Test
  void randomRowsOfEveryTypeSurviveARoundTripThroughIcebergRecords() {
    List<InternalRow> rows = TestData.randomRows(ALL_TYPES.asStruct(), 42L, 500);

    List<InternalRow> roundTrip = roundTrip(ALL_TYPES, rows);

    assertThat(TestData.toJava(roundTrip, SPARK_ALL_TYPES))
        .isEqualTo(TestData.toJava(rows, SPARK_ALL_TYPES));
  }

  @Test
  void edgeValuesSurviveARoundTrip() {
    List<InternalRow> rows = edgeRows();

    List<InternalRow> roundTrip = roundTrip(FLAT, rows);

    StructType spark = SparkSchemas.toSpark(FLAT);
    assertThat(TestData.toJava(roundTrip, spark)).isEqualTo(TestData.toJava(rows, spark));
  }

  @Test
  void sparkRowsBecomeIcebergGenericValues() {
    UUID uuid = UUID.fromString("f79c3e09-677c-4d1f-9b86-9c7f0a5f6a10");
    InternalRow row =
        new GenericInternalRow(
            new Object[] {
              7,
              -1L,
              1_500_000L,
              -1,
              Decimal.apply(new BigDecimal("-12.30"), 9, 2),
              UTF8String.fromString("héllo"),
              UTF8String.fromString(uuid.toString()),
              new byte[] {1, 2, 3},
              new byte[] {4, 5}
            });

    Record record = new SparkToIceberg(FLAT.asStruct()).convert(row);

    assertThat(record.get(0)).isEqualTo(7);
    assertThat(record.get(1))
        .isEqualTo(OffsetDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000, ZoneOffset.UTC));
    assertThat(record.get(2)).isEqualTo(LocalDateTime.of(1970, 1, 1, 0, 0, 1, 500_000_000));
    assertThat(record.get(3)).isEqualTo(LocalDate.of(1969, 12, 31));
    assertThat(record.get(4)).isEqualTo(new BigDecimal("-12.30"));
    assertThat(record.get(5)).isEqualTo("héllo");
    assertThat(record.get(6)).isEqualTo(uuid);
    assertThat(record.get(7)).isEqualTo(new byte[] {1, 2, 3});
    assertThat(record.get(8)).isEqualTo(ByteBuffer.wrap(new byte[] {4, 5}));
  }

  @Test
  void sparkNestedValuesBecomeRecordsListsAndMaps() {
    Types.StructType struct =
        Types.StructType.of(
            Types.NestedField.optional(
                1,
                "point",
                Types.StructType.of(Types.NestedField.required(4, "x", Types.DoubleType.get()))),
            Types.NestedField.optional(2, "tags", Types.ListType.ofOptional(5, Types.StringType.get())),
            Types.NestedField.optional(
                3,
                "counts",
                Types.MapType.ofOptional(6, 7, Types.StringType.get(), Types.LongType.get())));
    InternalRow row =
        new GenericInternalRow(
            new Object[] {
              new GenericInternalRow(new Object[] {1.5}),
              new GenericArrayData(new Object[] {UTF8String.fromString("a"), null}),
              new ArrayBasedMapData(
                  new GenericArrayData(
                      new Object[] {UTF8String.fromString("b"), UTF8String.fromString("a")}),
                  new GenericArrayData(new Object[] {2L, null}))
            });

    Record record = new SparkToIceberg(struct).convert(row);

    Record point = (Record) record.get(0);
    assertThat(point.struct()).isEqualTo(struct.field("point").type());
    assertThat(point.get(0)).isEqualTo(1.5);
    List<String> tags = new ArrayList<>();
    tags.add("a");
    tags.add(null);
    assertThat(record.get(1)).isEqualTo(tags);
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("b", 2L);
    counts.put("a", null);
    assertThat(record.get(2)).isEqualTo(counts);
    assertThat(new ArrayList<Object>(((Map<?, ?>) record.get(2)).keySet())).containsExactly("b", "a");
  }

  @Test
  void nullInARequiredTopLevelColumnIsRejected() {
    InternalRow row = new GenericInternalRow(new Object[FLAT.columns().size()]);

    assertThatThrownBy(() -> new SparkToIceberg(FLAT.asStruct()).convert(row))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write NULL into required column 'id'");
  }

  @Test
  void nullInARequiredNestedFieldElementOrValueIsRejectedWithItsPath() {
    Types.StructType struct =
        Types.StructType.of(
            Types.NestedField.optional(
                1,
                "a",
                Types.StructType.of(Types.NestedField.required(4, "b", Types.IntegerType.get()))),
            Types.NestedField.optional(2, "l", Types.ListType.ofRequired(5, Types.IntegerType.get())),
            Types.NestedField.optional(
                3,
                "m",
                Types.MapType.ofRequired(6, 7, Types.IntegerType.get(), Types.IntegerType.get())));
    SparkToIceberg converter = new SparkToIceberg(struct);
    GenericArrayData oneNull = new GenericArrayData(new Object[] {null});
    GenericArrayData one = new GenericArrayData(new Object[] {1});

    InternalRow nullField =
        new GenericInternalRow(new Object[] {new GenericInternalRow(new Object[1]), null, null});
    InternalRow nullElement = new GenericInternalRow(new Object[] {null, oneNull, null});
    InternalRow nullValue =
        new GenericInternalRow(new Object[] {null, null, new ArrayBasedMapData(one, oneNull)});
    InternalRow nullKey =
        new GenericInternalRow(new Object[] {null, null, new ArrayBasedMapData(oneNull, one)});

    assertThatThrownBy(() -> converter.convert(nullField))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write NULL into required column 'a.b'");
    assertThatThrownBy(() -> converter.convert(nullElement))
        .hasMessage("Cannot write NULL into required column 'l.element'");
    assertThatThrownBy(() -> converter.convert(nullValue))
        .hasMessage("Cannot write NULL into required column 'm.value'");
    assertThatThrownBy(() -> converter.convert(nullKey))
        .hasMessage("Cannot write NULL into required column 'm.key'");
  }

  @Test
  void decimalTooWideForItsColumnIsRejected() {
    InternalRow row = flatRowWithDecimal(Decimal.apply(new BigDecimal("12345678.90")));

    assertThatThrownBy(() -> new SparkToIceberg(FLAT.asStruct()).convert(row))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot write 12345678.90 into column 'dec' of type decimal(9, 2): "
                + "precision 10 exceeds 9");
  }

  @Test
  void decimalWithMoreFractionDigitsThanItsColumnIsRejected() {
    InternalRow row = flatRowWithDecimal(Decimal.apply(new BigDecimal("1.234")));

    assertThatThrownBy(() -> new SparkToIceberg(FLAT.asStruct()).convert(row))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot write 1.234 into column 'dec' of type decimal(9, 2): "
                + "scale 3 would lose digits");
  }

  @Test
  void decimalWithFewerFractionDigitsGetsTheColumnScale() {
    InternalRow row = flatRowWithDecimal(Decimal.apply(new BigDecimal("-1.5")));

    Record record = new SparkToIceberg(FLAT.asStruct()).convert(row);

    assertThat(record.get(4)).isEqualTo(new BigDecimal("-1.50"));
  }

  @Test
  void malformedUuidAndWrongFixedLengthAreRejectedNamingTheColumn() {
    SparkToIceberg converter = new SparkToIceberg(FLAT.asStruct());
    InternalRow badUuid =
        new GenericInternalRow(
            new Object[] {1, null, null, null, null, null, UTF8String.fromString("nope"), null, null});
    InternalRow badFixed =
        new GenericInternalRow(
            new Object[] {1, null, null, null, null, null, null, new byte[] {1, 2}, null});

    assertThatThrownBy(() -> converter.convert(badUuid))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write 'nope' into column 'u' of type uuid: not a valid UUID");
    assertThatThrownBy(() -> converter.convert(badFixed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write 2 bytes into column 'fx' of type fixed[3]: wrong length");
  }

  @Test
  void rowWithTheWrongNumberOfFieldsIsRejected() {
    InternalRow row = new GenericInternalRow(new Object[] {1});

    assertThatThrownBy(() -> new SparkToIceberg(FLAT.asStruct()).convert(row))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot convert row to struct<")
        .hasMessageEndingWith(": expected 9 fields but the row has 1");
  }

  @Test
  void icebergToSparkAcceptsIcebergsInternalRepresentation() {
    Types.StructType struct =
        Types.StructType.of(
            Types.NestedField.required(1, "date", Types.DateType.get()),
            Types.NestedField.required(2, "ts", Types.TimestampType.withZone()),
            Types.NestedField.required(3, "ts_ntz", Types.TimestampType.withoutZone()),
            Types.NestedField.required(4, "s", Types.StringType.get()),
            Types.NestedField.required(5, "u", Types.UUIDType.get()),
            Types.NestedField.required(6, "fx", Types.FixedType.ofLength(2)),
            Types.NestedField.required(7, "bin", Types.BinaryType.get()),
            Types.NestedField.required(8, "dec", Types.DecimalType.of(4, 1)),
            Types.NestedField.required(
                9,
                "st",
                Types.StructType.of(Types.NestedField.required(10, "x", Types.StringType.get()))));
    UUID uuid = new UUID(1, 2);
    StructLike generic =
        values(
            LocalDate.of(1969, 12, 30),
            OffsetDateTime.of(1969, 12, 31, 23, 0, 0, 1000, ZoneOffset.ofHours(-2)),
            LocalDateTime.of(1900, 1, 1, 0, 0, 0, 123_456_000),
            "abc",
            uuid,
            new byte[] {9, 8},
            ByteBuffer.wrap(new byte[] {7}),
            new BigDecimal("-0.5"),
            record(Types.StructType.of(Types.NestedField.required(10, "x", Types.StringType.get())), "in"));
    StructLike internal =
        values(
            -2,
            3_600_000_001L,
            -2_208_988_799_876_544L,
            new Utf8("abc"),
            uuid.toString(),
            ByteBuffer.wrap(new byte[] {0, 9, 8}, 1, 2),
            ByteBuffer.wrap(new byte[] {7}),
            new BigDecimal("-0.5"),
            values(new Utf8("in")));

    IcebergToSpark converter = new IcebergToSpark(struct);
    StructType spark = SparkSchemas.toSpark(new Schema(struct.fields()));

    assertThat(TestData.toJava(converter.convert(internal), spark))
        .isEqualTo(TestData.toJava(converter.convert(generic), spark));
    assertThat(TestData.toJava(converter.convert(generic), spark))
        .isEqualTo(
            List.of(
                -2,
                3_600_000_001L,
                -2_208_988_799_876_544L,
                "abc",
                uuid.toString(),
                "0908",
                "07",
                new BigDecimal("-0.5"),
                List.of("in")));
  }

  @Test
  void icebergToSparkCopiesBuffersWithoutMovingThem() {
    Types.StructType struct =
        Types.StructType.of(Types.NestedField.required(1, "bin", Types.BinaryType.get()));
    byte[] backing = {1, 2, 3, 4};
    ByteBuffer buffer = ByteBuffer.wrap(backing, 1, 2);

    byte[] converted = new IcebergToSpark(struct).convert(values(buffer)).getBinary(0);

    assertThat(converted).containsExactly(2, 3);
    assertThat(buffer.position()).isEqualTo(1);
    backing[1] = 0;
    assertThat(converted).containsExactly(2, 3);
  }

  @Test
  void aTimestamptzReadAsALocalDateTimeKeepsTheMicrosItWasCountedFrom() {
    // Iceberg's Avro reader gives LocalDateTime (the stored micros from the epoch, in UTC) for a
    // timestamp-micros without adjust-to-utc, which is how Spark's Avro writer stores TIMESTAMP
    Types.StructType struct =
        Types.StructType.of(Types.NestedField.optional(1, "ts", Types.TimestampType.withZone()));
    long micros = -86_400_000_000L + 123_456L;
    LocalDateTime read = LocalDateTime.of(1970, 1, 1, 0, 0).plus(micros, ChronoUnit.MICROS);

    assertThat(new IcebergToSpark(struct).convert(values(read)).getLong(0)).isEqualTo(micros);
  }

  @Test
  void icebergToSparkRejectsAValueOfAnUnexpectedClassNamingTheColumn() {
    Types.StructType struct =
        Types.StructType.of(
            Types.NestedField.optional(
                1,
                "a",
                Types.StructType.of(Types.NestedField.optional(2, "d", Types.DateType.get()))));

    assertThatThrownBy(
            () -> new IcebergToSpark(struct).convert(values(values("2024-01-01"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot convert column 'a.d' of type date to Spark: "
                + "unexpected value of class java.lang.String");
  }

  @Test
  void convertersRejectColumnsSparkCannotRepresent() {
    Types.StructType struct =
        Types.StructType.of(
            Types.NestedField.optional(
                1, "t", Types.ListType.ofOptional(2, Types.TimeType.get())));

    assertThatThrownBy(() -> new IcebergToSpark(struct))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot convert column 't.element' of type time to a Spark type: unsupported type");
    assertThatThrownBy(() -> new SparkToIceberg(struct))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot convert column 't.element' of type time to a Spark type: unsupported type");
  }

  @Test
  void convertersStillWorkAfterJavaSerialization() throws Exception {
    List<InternalRow> rows = TestData.randomRows(ALL_TYPES.asStruct(), 7L, 20);
    SparkToIceberg toIceberg = serializeAndBack(new SparkToIceberg(ALL_TYPES.asStruct()));
    IcebergToSpark toSpark = serializeAndBack(new IcebergToSpark(ALL_TYPES.asStruct()));

    List<InternalRow> roundTrip = new ArrayList<>();
    for (InternalRow row : rows) {
      roundTrip.add(toSpark.convert(toIceberg.convert(row)));
    }

    assertThat(toSpark.struct()).isEqualTo(ALL_TYPES.asStruct());
    assertThat(TestData.toJava(roundTrip, SPARK_ALL_TYPES))
        .isEqualTo(TestData.toJava(rows, SPARK_ALL_TYPES));
  }

  /**
   * Rows of {@link #FLAT} with values at the edges: before 1970, negative and extreme numbers, empty
   * strings and bytes, and all-NULL optional columns.
   */
  static List<InternalRow> edgeRows() {
    return List.of(
        flatRow(
            Integer.MIN_VALUE,
            -1L,
            -62_135_596_800_000_000L, // 0001-01-01T00:00:00
            -719_162, // 0001-01-01
            Decimal.apply(new BigDecimal("-9999999.99"), 9, 2),
            "",
            "00000000-0000-0000-0000-000000000000",
            new byte[] {0, 0, 0},
            new byte[0]),
        flatRow(
            Integer.MAX_VALUE,
            253_402_300_799_999_999L, // 9999-12-31T23:59:59.999999
            -1_500_001L,
            2_932_896, // 9999-12-31
            Decimal.apply(new BigDecimal("-0.01"), 9, 2),
            "日本語 🙂",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            new byte[] {-1, -128, 127},
            new byte[] {-1}),
        flatRow(0, 0L, 0L, 0, Decimal.apply(new BigDecimal("0.00"), 9, 2), null, null, null, null),
        flatRow(-5, null, null, null, null, null, null, null, null));
  }

  private static InternalRow flatRow(
      int id,
      Long ts,
      Long tsNtz,
      Integer date,
      Decimal dec,
      String string,
      String uuid,
      byte[] fixed,
      byte[] binary) {
    return new GenericInternalRow(
        new Object[] {
          id,
          ts,
          tsNtz,
          date,
          dec,
          string == null ? null : UTF8String.fromString(string),
          uuid == null ? null : UTF8String.fromString(uuid),
          fixed,
          binary
        });
  }

  private static InternalRow flatRowWithDecimal(Decimal decimal) {
    return flatRow(1, null, null, null, decimal, null, null, null, null);
  }

  private static List<InternalRow> roundTrip(Schema schema, List<InternalRow> rows) {
    SparkToIceberg toIceberg = new SparkToIceberg(schema.asStruct());
    IcebergToSpark toSpark = new IcebergToSpark(schema.asStruct());
    List<InternalRow> result = new ArrayList<>(rows.size());
    for (InternalRow row : rows) {
      result.add(toSpark.convert(toIceberg.convert(row)));
    }
    return result;
  }

  private static Record record(Types.StructType struct, Object... values) {
    GenericRecord record = GenericRecord.create(struct);
    for (int i = 0; i < values.length; i += 1) {
      record.set(i, values[i]);
    }
    return record;
  }

  /** A StructLike that is not a Record, as Iceberg's internal readers produce. */
  private static StructLike values(Object... values) {
    return new StructLike() {
      @Override
      public int size() {
        return values.length;
      }

      @Override
      public <T> T get(int pos, Class<T> javaClass) {
        return javaClass.cast(values[pos]);
      }

      @Override
      public <T> void set(int pos, T value) {
        values[pos] = value;
      }
    };
  }

  @SuppressWarnings("unchecked")
  private static <T> T serializeAndBack(T value) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }
}
