package io.floe.spark.functions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.ScalarFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transform functions give exactly Iceberg's partition values, for edge values of every type
 * they take: called directly (the magic {@code invoke} method and {@code produceResult}) and
 * through SQL, compiled and interpreted. Expected values come from Iceberg's {@link Transforms}
 * bound to the matching Iceberg type, and, for bucket hashes, from the Iceberg spec's appendix.
 */
class TransformFunctionsTest extends SparkTestBase {
  private static final int[] INTS = {Integer.MIN_VALUE, -1_000_001, -10, -1, 0, 1, 9, 10, 34, Integer.MAX_VALUE};
  private static final long[] LONGS = {Long.MIN_VALUE, -1_000_000_000_001L, -10, -1, 0, 1, 34, Long.MAX_VALUE};
  private static final String[] STRINGS = {
    "", "a", "iceberg", "ünïcödé", "日本語のテキスト", "😀😁😂🤣", "a😀b", "\u0000nul", "ascii-only-text"
  };
  private static final LocalDate[] DATES = {
    LocalDate.of(1, 1, 1),
    LocalDate.of(1900, 2, 28),
    LocalDate.of(1969, 1, 1),
    LocalDate.of(1969, 12, 31),
    LocalDate.of(1970, 1, 1),
    LocalDate.of(1970, 1, 2),
    LocalDate.of(2000, 2, 29),
    LocalDate.of(2017, 11, 16),
    LocalDate.of(9999, 12, 31)
  };
  private static final LocalDateTime[] TIMESTAMPS = {
    LocalDateTime.of(1, 1, 1, 0, 0),
    LocalDateTime.of(1969, 12, 31, 0, 0),
    LocalDateTime.of(1969, 12, 31, 23, 0),
    LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000),
    LocalDateTime.of(1970, 1, 1, 0, 0),
    LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1_000),
    LocalDateTime.of(1970, 1, 1, 0, 59, 59, 999_999_000),
    LocalDateTime.of(1970, 1, 1, 1, 0),
    LocalDateTime.of(2017, 11, 16, 22, 31, 8),
    LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000)
  };
  private static final BigDecimal[] DECIMALS = {
    new BigDecimal("-9999999.99"),
    new BigDecimal("-12.34"),
    new BigDecimal("-0.05"),
    new BigDecimal("-0.01"),
    new BigDecimal("0.00"),
    new BigDecimal("0.01"),
    new BigDecimal("12.34"),
    new BigDecimal("14.20"),
    new BigDecimal("9999999.99")
  };
  private static final int[] COUNTS = {1, 2, 16, 100, Integer.MAX_VALUE};

  @BeforeAll
  static void compileOrFail() {
    // a generated-code failure must fail the query, not fall back to interpreted evaluation
    spark.conf().set("spark.sql.codegen.fallback", "false");
    spark.conf().set("spark.sql.datetime.java8API.enabled", "true");
    spark.conf().set("spark.sql.session.timeZone", "UTC");
  }

  @Test
  void catalogServesTheFunctionsInTheSystemNamespaceAndByBareName() throws Exception {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    List<String> names = List.of("bucket", "truncate", "years", "months", "days", "hours");

    assertThat(Arrays.stream(catalog.listFunctions(new String[] {"system"})).map(Identifier::name))
        .containsExactlyElementsOf(names);
    assertThat(catalog.listFunctions(new String[0])).hasSize(names.size());
    for (String name : names) {
      assertThat(catalog.loadFunction(Identifier.of(new String[] {"system"}, name)).name()).isEqualTo(name);
      assertThat(catalog.loadFunction(Identifier.of(new String[0], name)).name()).isEqualTo(name);
      assertThat(catalog.loadFunction(Identifier.of(new String[] {"SYSTEM"}, name.toUpperCase())).name())
          .isEqualTo(name);
    }
    assertThatThrownBy(() -> catalog.loadFunction(Identifier.of(new String[] {"system"}, "identity")))
        .isInstanceOf(NoSuchFunctionException.class)
        .hasMessageContaining("identity");
    assertThatThrownBy(() -> catalog.loadFunction(Identifier.of(new String[] {"db"}, "bucket")))
        .isInstanceOf(NoSuchFunctionException.class);
    sql("CREATE NAMESPACE IF NOT EXISTS floe.no_functions");
    assertThat(catalog.listFunctions(new String[] {"no_functions"})).isEmpty();
    assertThatThrownBy(() -> catalog.listFunctions(new String[] {"missing"}))
        .isInstanceOf(NoSuchNamespaceException.class);
  }

  @Test
  void bucketHashesMatchTheIcebergSpec() {
    // the spec's appendix gives 32-bit Murmur3 hashes; bucket(MAX_VALUE) shows them as (hash & MAX) % MAX
    assertThat(bucket(DataTypes.IntegerType, 34)).isEqualTo(positive(2017239379));
    assertThat(bucket(DataTypes.LongType, 34L)).isEqualTo(positive(2017239379));
    assertThat(bucket(DataTypes.createDecimalType(4, 2), Decimal.apply(new BigDecimal("14.20"))))
        .isEqualTo(positive(-500754589));
    assertThat(bucket(DataTypes.DateType, (int) LocalDate.of(2017, 11, 16).toEpochDay()))
        .isEqualTo(positive(-653330422));
    assertThat(bucket(DataTypes.TimestampNTZType, micros(LocalDateTime.of(2017, 11, 16, 22, 31, 8))))
        .isEqualTo(positive(-2047944441));
    assertThat(bucket(DataTypes.StringType, UTF8String.fromString("iceberg")))
        .isEqualTo(positive(1210000089));
    assertThat(bucket(DataTypes.BinaryType, new byte[] {0, 1, 2, 3})).isEqualTo(positive(-188683207));
  }

  @Test
  void bucketMatchesIcebergForEdgeValues() {
    for (int n : COUNTS) {
      for (int value : INTS) {
        assertThat(bucket(n, DataTypes.IntegerType, value))
            .isEqualTo(icebergBucket(n, Types.IntegerType.get(), value));
      }
      for (long value : LONGS) {
        assertThat(bucket(n, DataTypes.LongType, value))
            .isEqualTo(icebergBucket(n, Types.LongType.get(), value));
      }
      for (LocalDate date : DATES) {
        assertThat(bucket(n, DataTypes.DateType, (int) date.toEpochDay()))
            .isEqualTo(icebergBucket(n, Types.DateType.get(), (int) date.toEpochDay()));
      }
      for (LocalDateTime timestamp : TIMESTAMPS) {
        long micros = micros(timestamp);
        assertThat(bucket(n, DataTypes.TimestampType, micros))
            .isEqualTo(icebergBucket(n, Types.TimestampType.withZone(), micros));
        assertThat(bucket(n, DataTypes.TimestampNTZType, micros))
            .isEqualTo(icebergBucket(n, Types.TimestampType.withoutZone(), micros));
      }
      for (String value : STRINGS) {
        assertThat(bucket(n, DataTypes.StringType, UTF8String.fromString(value)))
            .isEqualTo(icebergBucket(n, Types.StringType.get(), value));
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        assertThat(bucket(n, DataTypes.BinaryType, bytes))
            .isEqualTo(icebergBucket(n, Types.BinaryType.get(), ByteBuffer.wrap(bytes)));
      }
      for (BigDecimal value : DECIMALS) {
        assertThat(bucket(n, DataTypes.createDecimalType(9, 2), Decimal.apply(value)))
            .isEqualTo(icebergBucket(n, Types.DecimalType.of(9, 2), value));
      }
    }
  }

  @Test
  void truncateMatchesIcebergForEdgeValues() {
    for (int width : new int[] {1, 3, 10, 1000}) {
      for (int value : INTS) {
        assertThat(call("truncate", DataTypes.IntegerType, width, value))
            .isEqualTo(icebergTruncate(width, Types.IntegerType.get(), value));
      }
      for (long value : LONGS) {
        assertThat(call("truncate", DataTypes.LongType, width, value))
            .isEqualTo(icebergTruncate(width, Types.LongType.get(), value));
      }
      for (String value : STRINGS) {
        assertThat(call("truncate", DataTypes.StringType, width, UTF8String.fromString(value)))
            .isEqualTo(UTF8String.fromString(icebergTruncate(width, Types.StringType.get(), value).toString()));
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        ByteBuffer expected = (ByteBuffer) icebergTruncate(width, Types.BinaryType.get(), ByteBuffer.wrap(bytes));
        assertThat((byte[]) call("truncate", DataTypes.BinaryType, width, bytes))
            .isEqualTo(Arrays.copyOfRange(bytes, 0, expected.remaining()));
      }
      for (BigDecimal value : DECIMALS) {
        Decimal result = (Decimal) call("truncate", DataTypes.createDecimalType(9, 2), width, Decimal.apply(value));
        assertThat(result.toJavaBigDecimal())
            .isEqualTo(icebergTruncate(width, Types.DecimalType.of(9, 2), value));
      }
    }
    // code points, not UTF-16 units or bytes: the emoji survive whole
    assertThat(call("truncate", DataTypes.StringType, 2, UTF8String.fromString("😀😁😂🤣")))
        .isEqualTo(UTF8String.fromString("😀😁"));
    // rounding is towards negative infinity, and may need one more digit than the value's type
    assertThat(bind("truncate", DataTypes.IntegerType, DataTypes.createDecimalType(9, 2)).resultType())
        .isEqualTo(DataTypes.createDecimalType(10, 2));
    assertThat(((Decimal) call("truncate", DataTypes.createDecimalType(9, 2), 10, Decimal.apply(new BigDecimal("-9999999.99"))))
            .toJavaBigDecimal())
        .isEqualTo(new BigDecimal("-10000000.00"));
    assertThat(call("truncate", DataTypes.IntegerType, 10, -1)).isEqualTo(-10);
    assertThat(((Decimal) call("truncate", DataTypes.createDecimalType(9, 2), 10, Decimal.apply(new BigDecimal("-0.05"))))
            .toJavaBigDecimal())
        .isEqualTo(new BigDecimal("-0.10"));
  }

  @Test
  void timeTransformsMatchIcebergForEdgeValues() {
    for (LocalDate date : DATES) {
      int days = (int) date.toEpochDay();
      for (String name : List.of("years", "months", "days")) {
        assertThat(call(name, DataTypes.DateType, days))
            .as("%s(%s)", name, date)
            .isEqualTo(icebergTime(name, Types.DateType.get(), days));
      }
    }
    for (LocalDateTime timestamp : TIMESTAMPS) {
      long micros = micros(timestamp);
      for (String name : List.of("years", "months", "days", "hours")) {
        for (DataType type : List.of(DataTypes.TimestampType, DataTypes.TimestampNTZType)) {
          assertThat(call(name, type, micros))
              .as("%s(%s %s)", name, type.simpleString(), timestamp)
              .isEqualTo(icebergTime(name, Types.TimestampType.withZone(), micros));
        }
      }
    }
    // epoch boundaries: the unit before 1970 is -1
    long lastMicroOf1969 = -1L;
    assertThat(call("years", DataTypes.TimestampType, lastMicroOf1969)).isEqualTo(-1);
    assertThat(call("months", DataTypes.TimestampType, lastMicroOf1969)).isEqualTo(-1);
    assertThat(call("days", DataTypes.TimestampType, lastMicroOf1969)).isEqualTo(-1);
    assertThat(call("hours", DataTypes.TimestampType, lastMicroOf1969)).isEqualTo(-1);
    assertThat(call("hours", DataTypes.TimestampType, 0L)).isEqualTo(0);
  }

  @Test
  void nullsGiveNull() {
    assertThat(produce(bind("bucket", DataTypes.IntegerType, DataTypes.StringType), 16, null)).isNull();
    assertThat(produce(bind("bucket", DataTypes.IntegerType, DataTypes.LongType), null, 5L)).isNull();
    assertThat(produce(bind("truncate", DataTypes.IntegerType, DataTypes.StringType), 3, null)).isNull();
    assertThat(produce(bind("days", DataTypes.TimestampType), (Object) null)).isNull();
    assertThat(row("SELECT floe.system.bucket(16, CAST(NULL AS STRING)), floe.system.days(CAST(NULL AS DATE)), "
            + "floe.system.truncate(2, CAST(NULL AS BIGINT))").toSeq().toList())
        .isNotNull();
    Row nulls = row("SELECT floe.system.bucket(16, CAST(NULL AS STRING)), floe.system.days(CAST(NULL AS DATE)), "
        + "floe.system.truncate(2, CAST(NULL AS BIGINT))");
    assertThat(nulls.isNullAt(0)).isTrue();
    assertThat(nulls.isNullAt(1)).isTrue();
    assertThat(nulls.isNullAt(2)).isTrue();
  }

  @Test
  void sqlCallsGiveIcebergValuesCompiledAndInterpreted() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE OR REPLACE TABLE floe.db.edge (i INT, l BIGINT, s STRING, b BINARY, dec DECIMAL(9, 2), "
        + "d DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ) USING iceberg");
    List<String> values = new ArrayList<>();
    for (int row = 0; row < STRINGS.length; row += 1) {
      values.add(String.format(
          "(%d, %dL, '%s', X'%s', %s, DATE '%s', TIMESTAMP_NTZ '%s', TIMESTAMP_NTZ '%s')",
          INTS[row % INTS.length],
          LONGS[row % LONGS.length],
          STRINGS[row].replace("\u0000", "\\u0000").replace("'", "\\'"),
          hex(STRINGS[row].getBytes(StandardCharsets.UTF_8)),
          DECIMALS[row % DECIMALS.length].toPlainString(),
          DATES[row % DATES.length],
          TIMESTAMPS[row % TIMESTAMPS.length].toString().replace('T', ' '),
          TIMESTAMPS[row % TIMESTAMPS.length].toString().replace('T', ' ')));
    }
    sql("INSERT INTO floe.db.edge VALUES " + String.join(", ", values));
    String query = "SELECT i, l, s, b, dec, d, ts, ntz, "
        + "floe.system.bucket(16, i), floe.system.bucket(16, l), floe.system.bucket(16, s), "
        + "floe.system.bucket(16, b), floe.system.bucket(16, dec), floe.system.bucket(16, d), "
        + "floe.system.bucket(16, ts), floe.system.bucket(16, ntz), "
        + "floe.system.truncate(10, i), floe.system.truncate(10, l), floe.system.truncate(3, s), "
        + "floe.system.truncate(2, b), floe.system.truncate(10, dec), "
        + "floe.system.years(d), floe.system.months(ts), floe.system.days(ntz), floe.system.hours(ts) "
        + "FROM floe.db.edge";

    List<Row> compiled = spark.sql(query).collectAsList();
    List<Row> interpreted;
    spark.conf().set("spark.sql.codegen.factoryMode", "NO_CODEGEN");
    spark.conf().set("spark.sql.codegen.wholeStage", "false");
    try {
      interpreted = spark.sql(query).collectAsList();
    } finally {
      spark.conf().unset("spark.sql.codegen.factoryMode");
      spark.conf().unset("spark.sql.codegen.wholeStage");
    }

    assertThat(compiled).hasSize(STRINGS.length);
    assertThat(interpreted).containsExactlyInAnyOrderElementsOf(compiled);
    for (Row row : compiled) {
      int i = row.getInt(0);
      long l = row.getLong(1);
      String s = row.getString(2);
      byte[] b = (byte[]) row.get(3);
      BigDecimal dec = row.getDecimal(4);
      int d = (int) row.getLocalDate(5).toEpochDay();
      long ts = DateTimeUtil.microsFromInstant(row.getInstant(6));
      long ntz = DateTimeUtil.microsFromTimestamp(row.<LocalDateTime>getAs(7));
      assertThat(row.getInt(8)).isEqualTo(icebergBucket(16, Types.IntegerType.get(), i));
      assertThat(row.getInt(9)).isEqualTo(icebergBucket(16, Types.LongType.get(), l));
      assertThat(row.getInt(10)).isEqualTo(icebergBucket(16, Types.StringType.get(), s));
      assertThat(row.getInt(11)).isEqualTo(icebergBucket(16, Types.BinaryType.get(), ByteBuffer.wrap(b)));
      assertThat(row.getInt(12)).isEqualTo(icebergBucket(16, Types.DecimalType.of(9, 2), dec));
      assertThat(row.getInt(13)).isEqualTo(icebergBucket(16, Types.DateType.get(), d));
      assertThat(row.getInt(14)).isEqualTo(icebergBucket(16, Types.TimestampType.withZone(), ts));
      assertThat(row.getInt(15)).isEqualTo(icebergBucket(16, Types.TimestampType.withoutZone(), ntz));
      assertThat(row.getInt(16)).isEqualTo(icebergTruncate(10, Types.IntegerType.get(), i));
      assertThat(row.getLong(17)).isEqualTo(icebergTruncate(10, Types.LongType.get(), l));
      assertThat(row.getString(18)).isEqualTo(icebergTruncate(3, Types.StringType.get(), s).toString());
      assertThat((byte[]) row.get(19)).isEqualTo(Arrays.copyOf(b, Math.min(2, b.length)));
      assertThat(row.getDecimal(20)).isEqualTo(icebergTruncate(10, Types.DecimalType.of(9, 2), dec));
      assertThat(row.getInt(21)).isEqualTo(icebergTime("years", Types.DateType.get(), d));
      assertThat(row.getInt(22)).isEqualTo(icebergTime("months", Types.TimestampType.withZone(), ts));
      assertThat(row.getLocalDate(23).toEpochDay())
          .isEqualTo((long) icebergTime("days", Types.TimestampType.withoutZone(), ntz));
      assertThat(row.getInt(24)).isEqualTo(icebergTime("hours", Types.TimestampType.withZone(), ts));
    }
  }

  @Test
  void sqlCallsUseTheMagicMethods() {
    String plan = spark.sql("SELECT floe.system.days(DATE '2024-01-01'), floe.system.bucket(4, 1L), "
            + "floe.system.truncate(2, 'abc')")
        .queryExecution().analyzed().toString();

    assertThat(plan).contains("static_invoke(io.floe.spark.functions.DaysFunction$FromDate.invoke(");
    assertThat(plan).contains("invoke(floe.bucket(int, bigint)").contains("invoke(floe.truncate(int, string)");
  }

  @Test
  void smallIntegersAreWidenedLikeInts() {
    Row row = row("SELECT floe.system.bucket(16, CAST(34 AS TINYINT)), floe.system.bucket(16, CAST(34 AS SMALLINT)), "
        + "floe.system.bucket(16, 34), floe.system.truncate(10, CAST(-1 AS SMALLINT))");

    assertThat(row.getInt(0)).isEqualTo(row.getInt(2));
    assertThat(row.getInt(1)).isEqualTo(row.getInt(2));
    assertThat(row.getInt(3)).isEqualTo(-10);
  }

  @Test
  void wrongArgumentsFailWithTheFunctionsUsage() {
    assertThatThrownBy(() -> sql("SELECT floe.system.bucket(16, 1.5D)"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("Cannot call bucket: cannot bucket values of type double")
        .hasMessageContaining("bucket(numBuckets int, value)");
    assertThatThrownBy(() -> sql("SELECT floe.system.bucket('16', 1)"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("the number of buckets must be an int, not string");
    assertThatThrownBy(() -> sql("SELECT floe.system.truncate(3)"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("Cannot call truncate: expected 2 argument(s) but got 1");
    assertThatThrownBy(() -> sql("SELECT floe.system.hours(DATE '2024-01-01')"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("Cannot call hours: cannot apply it to a value of type date");
    assertThatThrownBy(() -> sql("SELECT floe.system.bucket(0, 1)"))
        .hasMessageContaining("Invalid number of buckets: 0 (must be > 0)");
  }

  // ---- helpers ----

  private static int positive(int hash) {
    return (hash & Integer.MAX_VALUE) % Integer.MAX_VALUE;
  }

  private static Object bucket(DataType type, Object value) {
    return bucket(Integer.MAX_VALUE, type, value);
  }

  private static Object bucket(int n, DataType type, Object value) {
    return call("bucket", type, n, value);
  }

  /**
   * Calls a function on Spark values both ways Spark may: the magic method by reflection (as
   * Spark's generated code calls it) and produceResult; both must agree.
   */
  private static Object call(String name, DataType valueType, Object... args) {
    BoundFunction bound =
        args.length == 2 ? bind(name, DataTypes.IntegerType, valueType) : bind(name, valueType);
    Object produced = produce(bound, args);
    Object invoked = invoke(bound, args);
    if (produced instanceof byte[] bytes) {
      assertThat((byte[]) invoked).isEqualTo(bytes);
    } else {
      assertThat(invoked).isEqualTo(produced);
    }
    return produced;
  }

  private static BoundFunction bind(String name, DataType... types) {
    UnboundFunction function =
        FloeFunctions.load(Identifier.of(new String[] {"system"}, name)).orElseThrow();
    StructField[] fields = new StructField[types.length];
    for (int i = 0; i < types.length; i += 1) {
      fields[i] = new StructField("_" + i, types[i], true, Metadata.empty());
    }
    return function.bind(new StructType(fields));
  }

  private static Object produce(BoundFunction bound, Object... args) {
    InternalRow row = new GenericInternalRow(args);
    return ((ScalarFunction<?>) bound).produceResult(row);
  }

  private static Object invoke(BoundFunction bound, Object... args) {
    Class<?>[] classes = new Class<?>[args.length];
    DataType[] types = bound.inputTypes();
    for (int i = 0; i < args.length; i += 1) {
      classes[i] = javaClass(types[i]);
    }
    try {
      return bound.getClass().getDeclaredMethod(ScalarFunction.MAGIC_METHOD_NAME, classes).invoke(bound, args);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("Cannot call invoke of " + bound.canonicalName(), e);
    }
  }

  private static Class<?> javaClass(DataType type) {
    if (type.equals(DataTypes.IntegerType) || type.equals(DataTypes.DateType)) {
      return int.class;
    } else if (type.equals(DataTypes.LongType) || type.equals(DataTypes.TimestampType)
        || type.equals(DataTypes.TimestampNTZType)) {
      return long.class;
    } else if (type.equals(DataTypes.StringType)) {
      return UTF8String.class;
    } else if (type.equals(DataTypes.BinaryType)) {
      return byte[].class;
    }
    return Decimal.class;
  }

  private static Integer icebergBucket(int n, Type type, Object value) {
    return Transforms.<Object>bucket(n).bind(type).apply(value);
  }

  private static Object icebergTruncate(int width, Type type, Object value) {
    return Transforms.<Object>truncate(width).bind(type).apply(value);
  }

  private static Integer icebergTime(String name, Type type, Object value) {
    Function<Object, Integer> transform =
        switch (name) {
          case "years" -> Transforms.<Object>year().bind(type);
          case "months" -> Transforms.<Object>month().bind(type);
          case "days" -> Transforms.<Object>day().bind(type);
          default -> Transforms.<Object>hour().bind(type);
        };
    return transform.apply(value);
  }

  private static long micros(LocalDateTime timestamp) {
    return DateTimeUtil.microsFromTimestamptz(timestamp.atOffset(ZoneOffset.UTC));
  }

  private static Row row(String query) {
    return sql(query).get(0);
  }

  private static String hex(byte[] bytes) {
    StringBuilder builder = new StringBuilder();
    for (byte b : bytes) {
      builder.append(String.format("%02X", b));
    }
    return builder.toString();
  }
}
