package io.floe.spark.extensions;

import io.floe.spark.util.Unchecked;
import java.util.Map;
import org.apache.spark.sql.AnalysisException;
import scala.jdk.javaapi.CollectionConverters;

/** The errors of view statements and view reads, built in one place with Spark's conditions. */
final class ViewErrors {
  private ViewErrors() {}

  /** Spark's error for a persistent view that references a temporary view or function. */
  static RuntimeException tempReference(ViewRef view, String kind, String tempName) {
    return condition(
        "INVALID_TEMP_OBJ_REFERENCE",
        Map.of("obj", "VIEW", "objName", view.quoted(), "tempObj", kind, "tempObjName", tempName));
  }

  static RuntimeException columnArity(ViewRef view, boolean tooFew, String viewColumns, String dataColumns) {
    return condition(
        "CREATE_VIEW_COLUMN_ARITY_MISMATCH."
            + (tooFew ? "NOT_ENOUGH_DATA_COLUMNS" : "TOO_MANY_DATA_COLUMNS"),
        Map.of("viewName", view.quoted(), "viewColumns", viewColumns, "dataColumns", dataColumns));
  }

  static RuntimeException cycle(String view, String path) {
    return Unchecked.analysisError(
        String.format("Recursive cycle in view detected: %s (cycle: %s)", view, path));
  }

  /** A catalog's refusal as an analysis error; a message that already says what failed is kept. */
  static RuntimeException refused(String statement, ViewRef view, Throwable cause) {
    String message = String.valueOf(cause.getMessage());
    return Unchecked.analysisError(
        message.startsWith("Cannot ")
            ? message
            : String.format("Cannot %s %s: %s", statement, view.quoted(), message));
  }

  static RuntimeException message(String message) {
    return Unchecked.analysisError(message);
  }

  private static RuntimeException condition(String condition, Map<String, String> parameters) {
    throw Unchecked.rethrow(
        new AnalysisException(
            condition,
            scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(parameters))));
  }
}
