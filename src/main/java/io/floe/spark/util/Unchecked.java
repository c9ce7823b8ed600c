package io.floe.spark.util;

import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import scala.Option;
import scala.collection.immutable.Map$;

/**
 * Throws a checked exception from code that cannot declare it, as Spark's own Scala code throws
 * its checked {@code AnalysisException}s and {@code ParseException}s: the exception reaches the
 * caller unchanged, with its error condition and message. Also builds the plain {@link
 * AnalysisException} Floe throws where Spark would wrap any other exception and hide the reason
 * (loading a procedure, running an extension statement).
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

  /**
   * Throws an {@link AnalysisException} with this message, with no error condition or position,
   * from a method that cannot declare it.
   *
   * @return never; declared so that callers can write {@code throw Unchecked.analysisError(...)}
   */
  public static RuntimeException analysisError(String message) {
    throw rethrow(
        new AnalysisException(
            message,
            Option.empty(),
            Option.empty(),
            Option.empty(),
            Option.empty(),
            Map$.MODULE$.empty(),
            new QueryContext[0]));
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E sneaky(Throwable error) throws E {
    throw (E) error;
  }
}
