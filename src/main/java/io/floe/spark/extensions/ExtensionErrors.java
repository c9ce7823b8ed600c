package io.floe.spark.extensions;

/** Errors of running an extension statement, built in one place. */
final class ExtensionErrors {
  private ExtensionErrors() {}

  /** A change the table refused (Iceberg's validation), naming the statement and the table. */
  static IllegalArgumentException refused(String statement, String table, RuntimeException cause) {
    return new IllegalArgumentException(
        "Cannot " + statement + " on " + table + ": " + cause.getMessage(), cause);
  }
}
