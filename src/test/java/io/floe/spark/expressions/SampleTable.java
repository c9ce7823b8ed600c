package io.floe.spark.expressions;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.iceberg.Accessor;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A table with one column of each type the converter handles, rows full of edge values (NULL, NaN,
 * signed zeros, infinities, type extremes, pre-epoch dates) and data files with the metrics Iceberg
 * writers record for such rows.
 */
final class SampleTable {

  static final Types.StructType POINT =
      Types.StructType.of(optional(13, "x", Types.IntegerType.get()));

  static final Schema SCHEMA =
      new Schema(
          optional(1, "i", Types.IntegerType.get()),
          optional(2, "l", Types.LongType.get()),
          optional(3, "f", Types.FloatType.get()),
          optional(4, "d", Types.DoubleType.get()),
          optional(5, "dec", Types.DecimalType.of(9, 2)),
          optional(6, "s", Types.StringType.get()),
          optional(7, "dt", Types.DateType.get()),
          optional(8, "ts", Types.TimestampType.withZone()),
          optional(9, "ntz", Types.TimestampType.withoutZone()),
          optional(10, "b", Types.BooleanType.get()),
          optional(11, "bin", Types.BinaryType.get()),
          optional(12, "st", POINT),
          optional(14, "u", Types.UUIDType.get()),
          optional(15, "fx", Types.FixedType.ofLength(2)),
          required(16, "req", Types.IntegerType.get()));

  static final UUID UUID_A = UUID.fromString("0a1b2c3d-0000-4000-8000-00000000000a");
  static final UUID UUID_B = UUID.fromString("f0000000-0000-4000-8000-00000000000b");

  static final LocalDateTime PRE_EPOCH = LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000);
  static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);
  static final LocalDateTime LEAP_DAY = LocalDateTime.of(2024, 2, 29, 12, 0, 0, 1_000);

  /** Generic (Iceberg data API) values each column takes, by column name. */
  static final Map<String, List<Object>> VALUES = values();

  private SampleTable() {}

  private static Map<String, List<Object>> values() {
    Map<String, List<Object>> values = new LinkedHashMap<>();
    values.put("i", Arrays.asList(null, Integer.MIN_VALUE, -1, 0, 1, 5, 42, Integer.MAX_VALUE));
    values.put(
        "l",
        Arrays.asList(
            null,
            Long.MIN_VALUE,
            -3_000_000_000L,
            -1L,
            0L,
            1L,
            5L,
            3_000_000_000L,
            Long.MAX_VALUE));
    values.put(
        "f",
        Arrays.asList(
            null,
            Float.NaN,
            Float.NEGATIVE_INFINITY,
            -Float.MAX_VALUE,
            -1.0f,
            -0.0f,
            0.0f,
            Float.MIN_VALUE,
            0.1f,
            1.0f,
            Float.MAX_VALUE,
            Float.POSITIVE_INFINITY));
    values.put(
        "d",
        Arrays.asList(
            null,
            Double.NaN,
            Double.NEGATIVE_INFINITY,
            -1.0,
            -0.0,
            0.0,
            Double.MIN_VALUE,
            0.1,
            1.0,
            Double.MAX_VALUE,
            Double.POSITIVE_INFINITY));
    values.put(
        "dec",
        Arrays.asList(
            null,
            new BigDecimal("-9999999.99"),
            new BigDecimal("-1.00"),
            new BigDecimal("0.00"),
            new BigDecimal("1.50"),
            new BigDecimal("1.55"),
            new BigDecimal("9999999.99")));
    values.put(
        "s",
        Arrays.asList(
            null,
            "",
            "a",
            "ab",
            "abc",
            "b",
            "%x",
            "a%b",
            "a_b",
            "a\\b",
            "ax",
            "X",
            "x",
            "é",
            "\uD83D\uDE00",
            "\uFFFD"));
    values.put(
        "dt",
        Arrays.asList(
            null,
            LocalDate.of(1900, 1, 1),
            LocalDate.of(1969, 12, 31),
            LocalDate.of(1970, 1, 1),
            LocalDate.of(2024, 2, 29)));
    values.put(
        "ts",
        Arrays.asList(
            null,
            PRE_EPOCH.atOffset(ZoneOffset.UTC),
            EPOCH.atOffset(ZoneOffset.UTC),
            LEAP_DAY.atOffset(ZoneOffset.UTC)));
    values.put("ntz", Arrays.asList(null, PRE_EPOCH, EPOCH, LEAP_DAY));
    values.put("b", Arrays.asList(null, true, false));
    values.put(
        "bin",
        Arrays.asList(
            null, buffer(), buffer(0), buffer(1, 2), buffer(0x7f), buffer(0x80), buffer(0xff)));
    values.put("st", Arrays.asList(null, point(null), point(1), point(2)));
    values.put("u", Arrays.asList(null, UUID_A, UUID_B));
    values.put("fx", Arrays.asList(null, bytes(0, 1), bytes(0x80, 0), bytes(0xff, 0xff)));
    values.put("req", Arrays.asList(Integer.MIN_VALUE, 0, 7, Integer.MAX_VALUE));
    return values;
  }

  /**
   * Rows in which every value of every column appears, followed by random combinations so that
   * predicates over two columns meet most pairs of values.
   */
  static List<Record> rows() {
    return rows(250);
  }

  /** Rows in which every value of every column appears, then {@code random} random ones. */
  static List<Record> rows(int random) {
    int longest = VALUES.values().stream().mapToInt(List::size).max().orElseThrow();
    List<Record> rows = new ArrayList<>();
    for (int k = 0; k < longest; k += 1) {
      int index = k;
      rows.add(row(values -> values.get(index % values.size())));
    }
    Random picks = new Random(20240229L);
    for (int k = 0; k < random; k += 1) {
      rows.add(row(values -> values.get(picks.nextInt(values.size()))));
    }
    return rows;
  }

  private interface Pick {
    Object from(List<Object> values);
  }

  private static Record row(Pick pick) {
    Record record = GenericRecord.create(SCHEMA);
    VALUES.forEach((column, values) -> record.setField(column, copy(pick.from(values))));
    return record;
  }

  /** Records and buffers are mutable; each row gets its own. */
  private static Object copy(Object value) {
    if (value instanceof Record record) {
      return record.copy();
    } else if (value instanceof ByteBuffer buffer) {
      return buffer.duplicate();
    } else if (value instanceof byte[] bytes) {
      return bytes.clone();
    }
    return value;
  }

  /** Iceberg's view of a row: dates, timestamps and fixed values in their internal form. */
  static StructLike internal(Record row) {
    return new InternalRecordWrapper(SCHEMA.asStruct()).wrap(row);
  }

  /** A data file holding the rows, with the counts and bounds an Iceberg writer records. */
  static DataFile file(String path, List<Record> rows) {
    Map<Integer, Long> valueCounts = new HashMap<>();
    Map<Integer, Long> nullCounts = new HashMap<>();
    Map<Integer, Long> nanCounts = new HashMap<>();
    Map<Integer, ByteBuffer> lowerBounds = new HashMap<>();
    Map<Integer, ByteBuffer> upperBounds = new HashMap<>();
    for (Types.NestedField field : SCHEMA.columns()) {
      if (field.type().isPrimitiveType()) {
        addMetrics(field, rows, valueCounts, nullCounts, nanCounts, lowerBounds, upperBounds);
      }
    }
    addMetrics(
        POINT.field("x"), rows, valueCounts, nullCounts, nanCounts, lowerBounds, upperBounds);
    Metrics metrics =
        new Metrics(
            (long) rows.size(), null, valueCounts, nullCounts, nanCounts, lowerBounds, upperBounds);
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(path)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(1024)
        .withMetrics(metrics)
        .build();
  }

  private static void addMetrics(
      Types.NestedField field,
      List<Record> rows,
      Map<Integer, Long> valueCounts,
      Map<Integer, Long> nullCounts,
      Map<Integer, Long> nanCounts,
      Map<Integer, ByteBuffer> lowerBounds,
      Map<Integer, ByteBuffer> upperBounds) {
    int id = field.fieldId();
    Type.PrimitiveType type = field.type().asPrimitiveType();
    Accessor<StructLike> accessor = SCHEMA.accessorForField(id);
    Comparator<Object> order = Comparators.forType(type);
    long nulls = 0;
    long nans = 0;
    Object lower = null;
    Object upper = null;
    for (Record row : rows) {
      Object value = accessor.get(internal(row));
      if (value == null) {
        nulls += 1;
      } else if (isNaN(value)) {
        nans += 1;
      } else {
        lower = lower == null || order.compare(value, lower) < 0 ? value : lower;
        upper = upper == null || order.compare(value, upper) > 0 ? value : upper;
      }
    }
    valueCounts.put(id, (long) rows.size());
    nullCounts.put(id, nulls);
    if (type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE) {
      nanCounts.put(id, nans);
    }
    if (lower != null) {
      lowerBounds.put(id, Conversions.toByteBuffer(type, lower));
      upperBounds.put(id, Conversions.toByteBuffer(type, upper));
    }
  }

  private static boolean isNaN(Object value) {
    return (value instanceof Float f && f.isNaN()) || (value instanceof Double d && d.isNaN());
  }

  static Record point(Integer x) {
    Record point = GenericRecord.create(POINT);
    point.setField("x", x);
    return point;
  }

  static ByteBuffer buffer(int... unsignedBytes) {
    return ByteBuffer.wrap(bytes(unsignedBytes));
  }

  static byte[] bytes(int... unsignedBytes) {
    byte[] bytes = new byte[unsignedBytes.length];
    for (int i = 0; i < bytes.length; i += 1) {
      bytes[i] = (byte) unsignedBytes[i];
    }
    return bytes;
  }
}
