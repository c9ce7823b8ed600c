package io.floe.spark.extensions;

import io.floe.spark.util.Unchecked;
import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import scala.Option;
import scala.collection.immutable.Map$;

/** Errors of running an extension statement, built in one place. */
final class ExtensionErrors {
  private ExtensionErrors() {}

  /** Throws an {@link AnalysisException} with this message, from code that cannot declare it. */
  static RuntimeException analysisError(String message) {
    throw Unchecked.rethrow(
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
}
