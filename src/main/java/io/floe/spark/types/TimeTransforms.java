package io.floe.spark.types;

import java.time.LocalDate;

/**
 * Iceberg's year, month, day and hour transforms of dates (days since 1970-01-01) and timestamps
 * (microseconds since 1970-01-01T00:00, UTC for timestamps with zone), computed with integer
 * arithmetic and {@link LocalDate}.
 *
 * <p>Iceberg's own transforms give the same values through an {@code OffsetDateTime} and {@code
 * ChronoUnit.between} per value, which made them the largest single cost of sorting and
 * partitioning rows by {@code days(ts)} on write. Every unit counts whole units from 1970 and rounds
 * toward the past, so the hour before 1970 is -1.
 */
public final class TimeTransforms {
  private static final long MICROS_PER_HOUR = 3_600_000_000L;
  private static final long MICROS_PER_DAY = 24 * MICROS_PER_HOUR;

  private TimeTransforms() {}

  /** Whole hours since 1970-01-01T00:00. */
  public static int hoursFromMicros(long micros) {
    return (int) Math.floorDiv(micros, MICROS_PER_HOUR);
  }

  /** The date, as days since 1970-01-01. */
  public static int daysFromMicros(long micros) {
    return (int) Math.floorDiv(micros, MICROS_PER_DAY);
  }

  /** Whole months since 1970-01. */
  public static int monthsFromDays(int days) {
    LocalDate date = LocalDate.ofEpochDay(days);
    return (date.getYear() - 1970) * 12 + date.getMonthValue() - 1;
  }

  /** Whole years since 1970. */
  public static int yearsFromDays(int days) {
    return LocalDate.ofEpochDay(days).getYear() - 1970;
  }

  /** Whole months since 1970-01. */
  public static int monthsFromMicros(long micros) {
    return monthsFromDays(daysFromMicros(micros));
  }

  /** Whole years since 1970. */
  public static int yearsFromMicros(long micros) {
    return yearsFromDays(daysFromMicros(micros));
  }
}
