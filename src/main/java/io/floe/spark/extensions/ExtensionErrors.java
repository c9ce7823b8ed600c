package io.floe.spark.extensions;

import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import scala.Option;
import scala.collection.immutable.Map$;

/**
 * Errors of running an extension statement, built in one place. Spark's checked exceptions (such as
 * {@code NoSuchTableException}) pass through unchanged from code that cannot declare them, as
 * Spark's own Scala code throws them.
 */
final class ExtensionErrors {
  private ExtensionErrors() {}

  /** Throws {@code error} as it is; declared to return so that callers can write {@code throw}. */
  static RuntimeException rethrow(Throwable error) {
    throw ExtensionErrors.<RuntimeException>unchecked(error);
  }

  /** Throws an {@link AnalysisException} with this message, from code that cannot declare it. */
  static RuntimeException analysisError(String message) {
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

  /** A change the table refused (Iceberg's validation), naming the statement and the table. */
  static IllegalArgumentException refused(String statement, String table, RuntimeException cause) {
    return new IllegalArgumentException(
        "Cannot " + statement + " on " + table + ": " + cause.getMessage(), cause);
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E unchecked(Throwable error) throws E {
    throw (E) error;
  }
}
