package io.floe.spark.util;

/**
 * Throws a checked exception from code that cannot declare it, as Spark's own Scala code throws
 * its checked {@code AnalysisException}s and {@code ParseException}s: the exception reaches the
 * caller unchanged, with its error condition and message.
 */
public final class Unchecked {
  private Unchecked() {}

  /**
   * Throws {@code error} as it is.
   *
   * @return never; declared so that callers can write {@code throw Unchecked.rethrow(e)}
   */
  public static RuntimeException rethrow(Throwable error) {
    throw Unchecked.<RuntimeException>sneaky(error);
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E sneaky(Throwable error) throws E {
    throw (E) error;
  }
}
