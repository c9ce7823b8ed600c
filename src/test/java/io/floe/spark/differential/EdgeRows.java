package io.floe.spark.differential;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Seeded rows with one column of every primitive type, full of the values pushed-down filters get
 * wrong: NULL, NaN (also with a non-canonical bit pattern), both zeros, both infinities, type
 * extremes, decimals at their precision limits, dates and timestamps before the epoch, at the ends
 * of the supported range and around midnight and daylight-saving changes in several zones, and
 * strings and bytes with LIKE wildcards, backslashes, multi-byte and supplementary characters and
 * values longer than the metrics' truncation length.
 *
 * <p>Rows are Spark {@link Row}s in the external types of the session setting {@code
 * spark.sql.datetime.java8API.enabled=true}: {@link LocalDate}, {@link Instant}, {@link
 * LocalDateTime}, {@link BigDecimal} and {@code byte[]}.
 */
final class EdgeRows {

  /** The columns, in order; {@code id} is the row's identity and never NULL. */
  static final StructType SCHEMA =
      new StructType(
          new StructField[] {
            field("id", DataTypes.IntegerType, false),
            field("b", DataTypes.BooleanType, true),
            field("i", DataTypes.IntegerType, true),
            field("l", DataTypes.LongType, true),
            field("f", DataTypes.FloatType, true),
            field("d", DataTypes.DoubleType, true),
            field("dec9", DataTypes.createDecimalType(9, 2), true),
            field("dec38", DataTypes.createDecimalType(38, 10), true),
            field("dt", DataTypes.DateType, true),
            field("ts", DataTypes.TimestampType, true),
            field("ntz", DataTypes.TimestampNTZType, true),
            field("s", DataTypes.StringType, true),
            field("bin", DataTypes.BinaryType, true)
          });

  /** The table's columns as SQL DDL. */
  static final String DDL =
      "id INT NOT NULL, b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE, dec9 DECIMAL(9,2),"
          + " dec38 DECIMAL(38,10), dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, s STRING, bin BINARY";

  static final List<Integer> INTS =
      List.of(Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -100, -1, 0, 1, 2, 7, 99, 100,
          Integer.MAX_VALUE - 1, Integer.MAX_VALUE);
  static final List<Long> LONGS =
      List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -2147483649L, -2147483648L, -1L, 0L, 1L,
          2147483647L, 2147483648L, 9007199254740993L, Long.MAX_VALUE - 1, Long.MAX_VALUE);
  static final List<Float> FLOATS =
      List.of(Float.NaN, Float.intBitsToFloat(0x7fc00123), Float.POSITIVE_INFINITY,
          Float.NEGATIVE_INFINITY, 0.0f, -0.0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MAX_VALUE,
          -Float.MAX_VALUE, 0.1f, 1.0f, -1.5f, 16777216.0f, 1e-30f);
  static final List<Double> DOUBLES =
      List.of(Double.NaN, Double.longBitsToDouble(0x7ff8000000000123L), Double.POSITIVE_INFINITY,
          Double.NEGATIVE_INFINITY, 0.0d, -0.0d, Double.MIN_VALUE, -Double.MIN_VALUE,
          Double.MAX_VALUE, -Double.MAX_VALUE, 0.1d, (double) 0.1f, 0.30000000000000004d, 1.0d,
          1.5d, -2.5d, 1e300d, 9.007199254740993e15d, 2147483647.5d, -2147483648.9d);
  static final List<BigDecimal> DECIMALS_9 =
      decimals(2, "9999999.99", "-9999999.99", "0.00", "0.01", "-0.01", "0.99", "-0.99", "1.00",
          "-1.00", "1.01", "12.34", "99.99", "100.00", "-100.00");
  static final List<BigDecimal> DECIMALS_38 =
      decimals(10, "9999999999999999999999999999.9999999999",
          "-9999999999999999999999999999.9999999999", "0", "0.0000000001", "-0.0000000001", "1",
          "1.0000000001", "-1", "123.456", "0.1", "2147483648", "-9223372036854775809.5");
  static final List<LocalDate> DATES =
      List.of(LocalDate.of(1, 1, 1), LocalDate.of(1582, 10, 4), LocalDate.of(1582, 10, 15),
          LocalDate.of(1899, 12, 31), LocalDate.of(1969, 12, 31), LocalDate.of(1970, 1, 1),
          LocalDate.of(1970, 1, 2), LocalDate.of(2000, 2, 29), LocalDate.of(2024, 2, 29),
          LocalDate.of(2024, 3, 10), LocalDate.of(9999, 12, 31));
  static final List<Instant> INSTANTS =
      List.of(Instant.parse("0001-01-01T00:00:00Z"), Instant.parse("1582-10-15T00:00:00Z"),
          Instant.parse("1969-12-31T23:59:59.999999Z"), Instant.parse("1970-01-01T00:00:00Z"),
          Instant.parse("1970-01-01T00:00:00.000001Z"), Instant.parse("1969-12-31T16:00:00Z"),
          Instant.parse("1969-12-31T18:30:00Z"), Instant.parse("1970-01-01T08:00:00Z"),
          Instant.parse("2023-12-31T23:59:59.999999Z"), Instant.parse("2024-01-01T00:00:00Z"),
          Instant.parse("2024-01-01T08:00:00Z"), Instant.parse("2024-03-10T09:59:59.999999Z"),
          Instant.parse("2024-03-10T10:00:00Z"), Instant.parse("2024-11-03T08:59:59.999999Z"),
          Instant.parse("2024-11-03T09:00:00Z"), Instant.parse("9999-12-31T23:59:59.999999Z"));
  static final List<String> STRINGS =
      List.of("", "a", "ab", "abc", "abd", "ab%", "ab_c", "a%", "a_", "a\\", "star\\", "star\\x",
          "sta", "x", "X", "ax", "bx", "é", "éa", "e", "ü", "日本", "日本語", "日", "𝄞", "𝄞a",
          "\uFFFD", "\uE000", "\u0000", "\u007F", "'q'", " ", "abcdefghijklmnopqrstuvwxyz",
          "𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞", "\uDBFF\uDFFF".repeat(17), "ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ",
          "aaaaaaaaaaaaaaaaab");
  static final List<byte[]> BINARIES =
      List.of(new byte[0], new byte[] {0}, new byte[] {0, 0}, new byte[] {1}, new byte[] {0x7F},
          new byte[] {(byte) 0x80}, new byte[] {(byte) 0xFF}, new byte[] {(byte) 0xFF, (byte) 0xFF},
          new byte[] {'a', 'b', 'c'}, filled(20, (byte) 0xFF), filled(17, (byte) 'a'));

  /** The number of clusters rows fall into; see {@link #generate}. */
  static final int CLUSTERS = 10;
  private static final String STRING_LETTERS = "abcxAX%_\\é日𝄞\uFFFD";
  private static final String[] STRING_PREFIXES = {
    "ab", "a_", "a%", "ax", "b\\", "é日", "日本", "𝄞𝄞", "\uFFFDa", "zz"
  };
  private static final byte[] BYTE_PREFIXES = {0, 1, 0x20, 0x61, 0x62, 0x7F, (byte) 0x80, (byte) 0x81, (byte) 0xFE, (byte) 0xFF};

  private EdgeRows() {}

  /**
   * Generates {@code count} rows from the seed; row k has id k. Rows fall into {@link #CLUSTERS}
   * clusters of consecutive ids, and a value that is not NULL (one in ten) nor an edge value (one
   * in five) lies in a narrow band of its column that rises with the cluster, as time-ordered data
   * does, so that files written from neighbouring rows have narrow column bounds in every column.
   */
  static List<Row> generate(long seed, int count) {
    Random random = new Random(seed);
    List<Row> rows = new ArrayList<>(count);
    for (int id = 0; id < count; id += 1) {
      int c = id * CLUSTERS / count;
      rows.add(
          RowFactory.create(
              id,
              nullOr(random, () -> random.nextBoolean()),
              nullOr(random, () -> pick(random, INTS, () -> c * 20 - 100 + random.nextInt(20))),
              nullOr(random, () -> pick(random, LONGS, () -> clusteredLong(random, c))),
              nullOr(random, () -> pick(random, FLOATS, () -> clusteredFloat(random, c))),
              nullOr(random, () -> pick(random, DOUBLES, () -> clusteredDouble(random, c))),
              nullOr(random, () -> pick(random, DECIMALS_9,
                  () -> BigDecimal.valueOf((c - 5) * 100L + random.nextInt(100), 2))),
              nullOr(random, () -> pick(random, DECIMALS_38,
                  () -> BigDecimal.valueOf((c - 5) * 1000L + random.nextInt(1000), 4).setScale(10))),
              nullOr(random, () -> pick(random, DATES, () -> clusteredDate(random, c))),
              nullOr(random, () -> pick(random, INSTANTS, () -> clusteredInstant(random, c))),
              nullOr(random, () -> pick(random, INSTANTS, () -> clusteredInstant(random, c))
                  .atOffset(ZoneOffset.UTC).toLocalDateTime()),
              nullOr(random, () -> pick(random, STRINGS,
                  () -> STRING_PREFIXES[c] + randomString(random))),
              nullOr(random, () -> pick(random, BINARIES, () -> clusteredBytes(random, c)))));
    }
    return rows;
  }

  private static long clusteredLong(Random random, int cluster) {
    long[] centers = {-(1L << 53), -2147483648L, 0L, 2147483648L, 1L << 53};
    return centers[cluster / 2] + (cluster % 2) * 100 + random.nextInt(21) - 10;
  }

  /** A few floats per cluster, so that an identity partition of them has few values. */
  private static float clusteredFloat(Random random, int cluster) {
    float value = (cluster - 5) * 0.5f + random.nextInt(2) * 0.1f;
    return value == 0.0f && random.nextBoolean() ? -0.0f : value;
  }

  private static double clusteredDouble(Random random, int cluster) {
    return random.nextBoolean()
        ? cluster - 5 + random.nextInt(10) / 10.0d
        : (double) (cluster - 5 + random.nextInt(10) / 10.0f);
  }

  /** Dates in the month of the Gregorian switch, around the epoch and around a leap day. */
  private static LocalDate clusteredDate(Random random, int cluster) {
    LocalDate start =
        cluster < 3
            ? LocalDate.of(1582, 10, 1).plusDays(cluster * 10L)
            : cluster < 7
                ? LocalDate.of(1969, 12, 12).plusDays((cluster - 3) * 7L)
                : LocalDate.of(2024, 2, 20).plusDays((cluster - 7) * 7L);
    return start.plusDays(random.nextInt(7));
  }

  /** Instants within one hour per cluster, around the epoch and around a new year in UTC. */
  private static Instant clusteredInstant(Random random, int cluster) {
    Instant start =
        cluster < 5
            ? Instant.EPOCH.plusSeconds((cluster - 2) * 3600L * 7)
            : Instant.parse("2024-01-01T00:00:00Z").plusSeconds((cluster - 7) * 3600L * 5);
    long micros = random.nextInt(4) == 0 ? 0 : (random.nextLong() & Long.MAX_VALUE) % 3_600_000_000L;
    return start.plusNanos(micros * 1000);
  }

  private static String randomString(Random random) {
    int length = random.nextInt(4);
    StringBuilder text = new StringBuilder();
    int[] letters = STRING_LETTERS.codePoints().toArray();
    for (int k = 0; k < length; k += 1) {
      text.appendCodePoint(letters[random.nextInt(letters.length)]);
    }
    return text.toString();
  }

  private static byte[] clusteredBytes(Random random, int cluster) {
    byte[] choices = {0, 1, 0x61, 0x7F, (byte) 0x80, (byte) 0xFF};
    byte[] bytes = new byte[1 + random.nextInt(3)];
    bytes[0] = BYTE_PREFIXES[cluster];
    for (int k = 1; k < bytes.length; k += 1) {
      bytes[k] = choices[random.nextInt(choices.length)];
    }
    return bytes;
  }

  private static <T> T pick(Random random, List<T> edges, java.util.function.Supplier<T> other) {
    return random.nextInt(5) == 0 ? edges.get(random.nextInt(edges.size())) : other.get();
  }

  private static Object nullOr(Random random, java.util.function.Supplier<Object> value) {
    return random.nextInt(10) == 0 ? null : value.get();
  }

  private static List<BigDecimal> decimals(int scale, String... values) {
    List<BigDecimal> result = new ArrayList<>();
    for (String value : values) {
      result.add(new BigDecimal(value).setScale(scale));
    }
    return List.copyOf(result);
  }

  private static byte[] filled(int length, byte value) {
    byte[] bytes = new byte[length];
    java.util.Arrays.fill(bytes, value);
    return bytes;
  }

  private static StructField field(String name, org.apache.spark.sql.types.DataType type,
      boolean nullable) {
    return new StructField(name, type, nullable, Metadata.empty());
  }
}
