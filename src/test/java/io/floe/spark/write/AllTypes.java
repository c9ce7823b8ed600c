package io.floe.spark.write;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;

/**
 * A table schema with every type Iceberg stores, nested several levels, and rows that hold ordinary
 * values, NULLs at every level, and the extremes: minimum and maximum numbers, NaN and infinities,
 * negative decimals, dates and timestamps before 1970 and before the Gregorian switch, empty strings,
 * binaries, arrays and maps, and non-ASCII text.
 */
public final class AllTypes {
  /** The columns, as written in CREATE TABLE. */
  public static final String DDL =
      "id BIGINT NOT NULL, b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(9, 2),"
          + " dec38 DECIMAL(38, 10), dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, s STRING, bin BINARY,"
          + " st STRUCT<a: INT NOT NULL, bin: BINARY,"
          + " inner: STRUCT<x: STRING, ys: ARRAY<MAP<STRING, STRUCT<z: DECIMAL(5, 2)>>>>>,"
          + " arr ARRAY<INT>, m MAP<STRING, BIGINT>, arr_st ARRAY<STRUCT<k: STRING, v: DOUBLE>>,"
          + " m_arr MAP<INT, ARRAY<STRING>>";

  public static final StructType SCHEMA = StructType.fromDDL(DDL);

  private AllTypes() {}

  public static List<Row> rows() {
    return List.of(ordinary(), nulls(), emptiesAndMinimums(), maximumsAndUnicode(), ancient());
  }

  private static Row ordinary() {
    Map<String, Row> ys = new LinkedHashMap<>();
    ys.put("k1", RowFactory.create(new BigDecimal("1.25")));
    ys.put("k2", null);
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("a", 1L);
    m.put("b", null);
    Map<Integer, List<String>> mArr = new LinkedHashMap<>();
    mArr.put(1, Arrays.asList("x", null));
    mArr.put(2, List.of());
    return RowFactory.create(
        1L, true, 42, 1234567890123L, 3.14f, 2.718281828d,
        new BigDecimal("1234567.89"),
        new BigDecimal("1234567890123456789012345678.1234567890"),
        LocalDate.of(2024, 2, 29),
        Instant.parse("2024-02-29T12:34:56.123456Z"),
        LocalDateTime.parse("2024-02-29T12:34:56.123456"),
        "hello",
        new byte[] {1, 2, 3},
        RowFactory.create(7, new byte[] {9}, RowFactory.create("in", Arrays.asList(ys, Map.of()))),
        Arrays.asList(1, 2, null),
        m,
        Arrays.asList(RowFactory.create("k", 1.5d), null),
        mArr);
  }

  private static Row nulls() {
    return RowFactory.create(
        2L, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
        null, null, null);
  }

  private static Row emptiesAndMinimums() {
    return RowFactory.create(
        3L, false, Integer.MIN_VALUE, Long.MIN_VALUE, -Float.MAX_VALUE, Double.NEGATIVE_INFINITY,
        new BigDecimal("-9999999.99"),
        new BigDecimal("-9999999999999999999999999999.9999999999"),
        LocalDate.of(1969, 12, 31),
        Instant.parse("1969-12-31T23:59:59.999999Z"),
        LocalDateTime.parse("1900-01-01T00:00:00.000001"),
        "",
        new byte[0],
        RowFactory.create(-1, new byte[0], RowFactory.create("", List.of())),
        List.of(),
        Map.of(),
        List.of(),
        Map.of());
  }

  private static Row maximumsAndUnicode() {
    Map<String, Long> m = new HashMap<>();
    m.put("ключ", Long.MIN_VALUE);
    m.put("", 0L);
    return RowFactory.create(
        4L, true, Integer.MAX_VALUE, Long.MAX_VALUE, Float.NaN, Double.MIN_VALUE,
        new BigDecimal("-0.01"),
        new BigDecimal("0.0000000001"),
        LocalDate.of(9999, 12, 31),
        Instant.parse("9999-12-31T23:59:59.999999Z"),
        LocalDateTime.parse("9999-12-31T23:59:59.999999"),
        "héllo wörld — 日本語 🎉",
        new byte[] {-128, 0, 127},
        RowFactory.create(Integer.MIN_VALUE, null, RowFactory.create(null, null)),
        List.of(Integer.MAX_VALUE),
        m,
        Arrays.asList(RowFactory.create(null, Double.NaN)),
        Map.of(-1, List.of("")));
  }

  private static Row ancient() {
    return RowFactory.create(
        5L, null, 0, 0L, -0.0f, Double.POSITIVE_INFINITY,
        new BigDecimal("0.00"),
        new BigDecimal("-0.0000000001"),
        LocalDate.of(1000, 1, 1),
        Instant.parse("1000-01-01T00:00:00Z"),
        LocalDateTime.parse("1582-10-10T12:00:00"),
        "line\nbreak\ttab",
        null,
        null,
        Arrays.asList((Integer) null),
        null,
        null,
        null);
  }
}
