package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A written partition derived from a read one ({@link WrittenPartitions#derivation}) is Iceberg's
 * own transform of the value: for every pair of transforms it derives, over values on both sides
 * of 1970 and of bucket and truncate boundaries, the derivation of the read transform's result
 * equals the written transform of the value; pairs where the read partition does not decide the
 * written one have no derivation.
 */
class WrittenPartitionsTest {
  private static final Random RANDOM = new Random(31);

  /** Checks that {@code read} derives {@code written} for every value, as Iceberg computes it. */
  @SuppressWarnings("unchecked")
  private static void derives(String read, String written, Type type, List<Object> values) {
    Transform<Object, Object> from = (Transform<Object, Object>) Transforms.fromString(read);
    Transform<Object, Object> to = (Transform<Object, Object>) Transforms.fromString(written);
    UnaryOperator<Object> derivation =
        WrittenPartitions.derivation(from, to, type)
            .orElseThrow(() -> new AssertionError(read + " does not derive " + written));
    for (Object value : values) {
      Object readValue = from.bind(type).apply(copy(value));
      assertThat(derivation.apply(readValue))
          .as("%s from %s of %s", written, read, value)
          .isEqualTo(to.bind(type).apply(copy(value)));
    }
    assertThat(derivation.apply(null)).isNull();
  }

  private static Object copy(Object value) {
    return value instanceof ByteBuffer buffer ? buffer.duplicate() : value;
  }

  private static List<Object> timestamps() {
    List<Object> values = new ArrayList<>();
    long day = 86_400_000_000L;
    for (long micros : new long[] {0, -1, 1, day - 1, day, -day, -day - 1, 951_782_400_000_000L}) {
      values.add(micros);
    }
    for (int i = 0; i < 2_000; i++) {
      // 1800 to 2140, so leap years and negative ordinals are crossed
      values.add((long) ((RANDOM.nextDouble() * 340 - 170) * 365.25 * day));
    }
    return values;
  }

  @Test
  void coarserTimeUnitsAreIcebergsOwn() {
    for (Type type : List.of(Types.TimestampType.withZone(), Types.TimestampType.withoutZone())) {
      derives("hour", "day", type, timestamps());
      derives("hour", "month", type, timestamps());
      derives("hour", "year", type, timestamps());
      derives("day", "month", type, timestamps());
      derives("day", "year", type, timestamps());
      derives("month", "year", type, timestamps());
      derives("identity", "day", type, timestamps());
    }
    List<Object> dates = new ArrayList<>();
    for (Object micros : timestamps()) {
      dates.add((int) Math.floorDiv((Long) micros, 86_400_000_000L));
    }
    derives("day", "month", Types.DateType.get(), dates);
    derives("day", "year", Types.DateType.get(), dates);
    derives("month", "year", Types.DateType.get(), dates);
    derives("identity", "month", Types.DateType.get(), dates);
  }

  @Test
  void bucketsAndTruncationsThatDivideAreIcebergsOwn() {
    List<Object> longs = new ArrayList<>();
    List<Object> ints = new ArrayList<>();
    List<Object> strings = new ArrayList<>();
    List<Object> decimals = new ArrayList<>();
    List<Object> binaries = new ArrayList<>();
    for (int i = -500; i < 500; i++) {
      long value = i % 2 == 0 ? i : RANDOM.nextLong();
      longs.add(value);
      ints.add(i * 7);
      strings.add("s" + value + "é€" + i);
      decimals.add(BigDecimal.valueOf(value % 100_000, 2));
      binaries.add(ByteBuffer.wrap(("b" + value).getBytes(StandardCharsets.UTF_8)));
    }
    derives("bucket[16]", "bucket[4]", Types.LongType.get(), longs);
    derives("bucket[16]", "bucket[16]", Types.LongType.get(), longs);
    derives("bucket[6]", "bucket[3]", Types.StringType.get(), strings);
    derives("identity", "bucket[5]", Types.StringType.get(), strings);
    derives("identity", "bucket[5]", Types.BinaryType.get(), binaries);
    derives("truncate[10]", "truncate[100]", Types.IntegerType.get(), ints);
    derives("truncate[10]", "truncate[1000]", Types.LongType.get(), longs);
    derives("truncate[5]", "truncate[50]", Types.DecimalType.of(9, 2), decimals);
    derives("truncate[6]", "truncate[3]", Types.StringType.get(), strings);
    derives("truncate[6]", "truncate[2]", Types.BinaryType.get(), binaries);
    derives("identity", "truncate[20]", Types.LongType.get(), longs);
  }

  @Test
  void finerOrUnrelatedTransformsDoNotDerive() {
    String[][] pairs = {
      {"day", "hour"}, {"year", "month"}, {"bucket[4]", "bucket[16]"}, {"bucket[4]", "bucket[3]"},
      {"truncate[10]", "truncate[15]"}, {"truncate[100]", "truncate[10]"}, {"day", "bucket[4]"},
      {"bucket[4]", "identity"}, {"void", "void"}, {"identity", "void"}
    };
    for (String[] pair : pairs) {
      Type type = pair[0].startsWith("truncate") ? Types.LongType.get() : Types.DateType.get();
      assertThat(
              WrittenPartitions.derivation(
                  Transforms.fromString(pair[0]), Transforms.fromString(pair[1]), type))
          .as("%s from %s", pair[1], pair[0])
          .isEmpty();
    }
    assertThat(
            WrittenPartitions.derivation(
                Transforms.fromString("truncate[6]"),
                Transforms.fromString("truncate[8]"),
                Types.StringType.get()))
        .isEmpty();
  }
}
