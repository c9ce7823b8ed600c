package io.floe.spark.util;

import java.util.Locale;

/**
 * Parses the string value of a read, write or catalog option, failing with a message that names
 * what could not be done, the option and the value given.
 */
public final class OptionValues {
  private OptionValues() {}

  /**
   * {@code true} or {@code false}, in any case, around spaces.
   *
   * @param action what fails on a bad value, such as {@code "Cannot read"}
   * @throws IllegalArgumentException for any other value
   */
  public static boolean parseBoolean(String action, String option, String value) {
    String normalized = value.trim().toLowerCase(Locale.ROOT);
    if (!normalized.equals("true") && !normalized.equals("false")) {
      throw new IllegalArgumentException(
          action + ": option '" + option + "' must be true or false, not '" + value + "'");
    }
    return normalized.equals("true");
  }

  /**
   * A whole number, around spaces.
   *
   * @param action what fails on a bad value, such as {@code "Cannot read"}
   * @param expected how the message describes a good value, such as {@code "a whole number"}
   * @throws IllegalArgumentException for anything else
   */
  public static long parseLong(String action, String option, String value, String expected) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          action + ": option '" + option + "' must be " + expected + ", not '" + value + "'", e);
    }
  }
}
