package io.floe.spark.types;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Converts between java.time values and the microseconds Spark and Iceberg store for timestamps.
 *
 * <p>Plain arithmetic rather than {@code ChronoUnit.between}, because it runs once per value.
 * Seconds are floored, so instants before 1970 keep a non-negative fraction of a second.
 */
final class DateTimes {
  private static final long MICROS_PER_SECOND = 1_000_000L;
  private static final int NANOS_PER_MICRO = 1_000;

  private DateTimes() {}

  static long micros(LocalDateTime timestamp) {
    return micros(timestamp.toEpochSecond(ZoneOffset.UTC), timestamp.getNano());
  }

  static long micros(OffsetDateTime timestamp) {
    return micros(timestamp.toEpochSecond(), timestamp.getNano());
  }

  /** Nanoseconds to microseconds, truncated toward negative infinity (as for instants before 1970). */
  static long microsOfNanos(long nanos) {
    return Math.floorDiv(nanos, NANOS_PER_MICRO);
  }

  static LocalDateTime localDateTime(long micros) {
    return LocalDateTime.ofEpochSecond(
        Math.floorDiv(micros, MICROS_PER_SECOND),
        (int) Math.floorMod(micros, MICROS_PER_SECOND) * NANOS_PER_MICRO,
        ZoneOffset.UTC);
  }

  static OffsetDateTime offsetDateTime(long micros) {
    return Instant.ofEpochSecond(
            Math.floorDiv(micros, MICROS_PER_SECOND),
            Math.floorMod(micros, MICROS_PER_SECOND) * NANOS_PER_MICRO)
        .atOffset(ZoneOffset.UTC);
  }

  private static long micros(long epochSecond, int nanos) {
    return Math.addExact(
        Math.multiplyExact(epochSecond, MICROS_PER_SECOND), nanos / NANOS_PER_MICRO);
  }
}
