package io.floe.spark.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.util.DateTimeUtil;
import org.junit.jupiter.api.Test;

/** Floe's time transforms give Iceberg's values: at every unit boundary around 1970 and at random. */
class TimeTransformsTest {
  private static final long HOUR = 3_600_000_000L;
  private static final long DAY = 24 * HOUR;

  @Test
  void timestampTransformsMatchIceberg() {
    List<Long> values = new ArrayList<>();
    for (long base : boundaries()) {
      for (long delta = -2; delta <= 2; delta++) {
        values.add(base + delta);
      }
    }
    Random random = new Random(20261129);
    for (int i = 0; i < 200_000; i++) {
      // within about ±9000 years of 1970
      values.add((long) ((random.nextDouble() * 2 - 1) * 9000L * 366 * DAY));
    }

    for (long micros : values) {
      assertThat(TimeTransforms.hoursFromMicros(micros))
          .as("hours of %d", micros)
          .isEqualTo(DateTimeUtil.microsToHours(micros));
      assertThat(TimeTransforms.daysFromMicros(micros))
          .as("days of %d", micros)
          .isEqualTo(DateTimeUtil.microsToDays(micros));
      assertThat(TimeTransforms.monthsFromMicros(micros))
          .as("months of %d", micros)
          .isEqualTo(DateTimeUtil.microsToMonths(micros));
      assertThat(TimeTransforms.yearsFromMicros(micros))
          .as("years of %d", micros)
          .isEqualTo(DateTimeUtil.microsToYears(micros));
    }
  }

  @Test
  void dateTransformsMatchIceberg() {
    Random random = new Random(7);
    List<Integer> days = new ArrayList<>();
    for (int d = -800; d <= 800; d++) {
      days.add(d);
    }
    for (int i = 0; i < 100_000; i++) {
      days.add(random.nextInt(2 * 3_000_000) - 3_000_000);
    }
    for (int d : days) {
      assertThat(TimeTransforms.monthsFromDays(d))
          .as("months of day %d", d)
          .isEqualTo(DateTimeUtil.daysToMonths(d));
      assertThat(TimeTransforms.yearsFromDays(d))
          .as("years of day %d", d)
          .isEqualTo(DateTimeUtil.daysToYears(d));
    }
  }

  /** The first microsecond of every month from 1967 to 1973, as microseconds since 1970. */
  private static List<Long> boundaries() {
    List<Long> result = new ArrayList<>();
    for (LocalDate month = LocalDate.of(1967, 1, 1);
        month.isBefore(LocalDate.of(1973, 1, 1));
        month = month.plusMonths(1)) {
      LocalDateTime start = month.atStartOfDay();
      result.add(start.toEpochSecond(ZoneOffset.UTC) * 1_000_000L);
      result.add(start.plusDays(1).toEpochSecond(ZoneOffset.UTC) * 1_000_000L);
      result.add(start.plusHours(1).toEpochSecond(ZoneOffset.UTC) * 1_000_000L);
    }
    return result;
  }
}
