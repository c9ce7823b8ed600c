package io.floe.spark.procedures;

import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import scala.Option;
import scala.collection.immutable.Map$;

/**
 * Errors Spark must show as they are. Spark wraps any exception thrown while a procedure is loaded
 * that is not one of its own in "Failed to load routine", hiding the reason; an {@link
 * AnalysisException} carrying Floe's message passes through.
 */
final class ProcedureErrors {
  private ProcedureErrors() {}

  /**
   * Throws an {@link AnalysisException} with this message from a method that cannot declare it
   * ({@code ProcedureCatalog.loadProcedure}), as Spark's own Scala code does.
   *
   * @return never; declared so that callers can write {@code throw analysisError(...)}
   */
  static RuntimeException analysisError(String message) {
    throw ProcedureErrors.<RuntimeException>unchecked(newAnalysisException(message));
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E unchecked(Throwable error) throws E {
    throw (E) error;
  }

  private static AnalysisException newAnalysisException(String message) {
    return new AnalysisException(
        message,
        Option.empty(),
        Option.empty(),
        Option.empty(),
        Option.empty(),
        Map$.MODULE$.empty(),
        new QueryContext[0]);
  }
}
