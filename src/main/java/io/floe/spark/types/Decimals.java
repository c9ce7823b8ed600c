package io.floe.spark.types;

import java.math.BigDecimal;

/** Checks that a decimal value fits a {@code decimal(precision, scale)} column before it is written. */
public final class Decimals {
  private Decimals() {}

  /**
   * {@code value} with the scale of a {@code decimal(precision, scale)} column, rescaled only when
   * no digit is lost (Spark casts to the column type before writing), and checked to fit its
   * precision; otherwise an {@link IllegalArgumentException} naming {@code column}.
   */
  public static BigDecimal fitted(BigDecimal value, int precision, int scale, String column) {
    BigDecimal fitted = value;
    if (fitted.scale() != scale) {
      try {
        fitted = fitted.setScale(scale);
      } catch (ArithmeticException e) {
        throw error(value, precision, scale, column, "scale " + value.scale() + " would lose digits");
      }
    }
    if (fitted.precision() > precision) {
      throw error(
          fitted, precision, scale, column,
          "precision " + fitted.precision() + " exceeds " + precision);
    }
    return fitted;
  }

  private static IllegalArgumentException error(
      BigDecimal value, int precision, int scale, String column, String why) {
    return new IllegalArgumentException(
        String.format(
            "Cannot write %s into column '%s' of type decimal(%d, %d): %s",
            value.toPlainString(), column, precision, scale, why));
  }
}
