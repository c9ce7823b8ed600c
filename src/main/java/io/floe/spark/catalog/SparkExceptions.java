package io.floe.spark.catalog;

import java.util.function.Supplier;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;

/** Translates Iceberg's catalog exceptions into Spark's, in one place. */
public final class SparkExceptions {
  private SparkExceptions() {}

  /** Spark's identifier for an Iceberg one. */
  public static Identifier toSpark(TableIdentifier ident) {
    return Identifier.of(ident.namespace().levels(), ident.name());
  }

  /** Iceberg's identifier for a Spark one. */
  public static TableIdentifier toIceberg(Identifier ident) {
    return TableIdentifier.of(Namespace.of(ident.namespace()), ident.name());
  }

  public static NoSuchTableException noSuchTable(Identifier ident) {
    return new NoSuchTableException(ident);
  }

  public static NoSuchNamespaceException noSuchNamespace(String[] namespace) {
    return new NoSuchNamespaceException(namespace);
  }

  /** Runs a table call, translating "no such table" and "no such namespace". */
  public static <T> T onTable(Identifier ident, Supplier<T> call) throws NoSuchTableException {
    try {
      return call.get();
    } catch (org.apache.iceberg.exceptions.NoSuchTableException
        | org.apache.iceberg.exceptions.NoSuchNamespaceException ignored) {
      throw noSuchTable(ident);
    }
  }

  /** Runs a table creation, translating "already exists" and "no such namespace". */
  public static <T> T onCreate(Identifier ident, Supplier<T> call)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    try {
      return call.get();
    } catch (org.apache.iceberg.exceptions.AlreadyExistsException ignored) {
      throw new TableAlreadyExistsException(ident);
    } catch (org.apache.iceberg.exceptions.NoSuchNamespaceException ignored) {
      throw noSuchNamespace(ident.namespace());
    }
  }

  /** Runs a namespace call, translating the namespace exceptions. */
  public static <T> T onNamespace(String[] namespace, Supplier<T> call)
      throws NoSuchNamespaceException {
    try {
      return call.get();
    } catch (org.apache.iceberg.exceptions.NoSuchNamespaceException ignored) {
      throw noSuchNamespace(namespace);
    }
  }

  public static NamespaceAlreadyExistsException namespaceExists(String[] namespace) {
    return new NamespaceAlreadyExistsException(namespace);
  }

  public static NonEmptyNamespaceException namespaceNotEmpty(String[] namespace) {
    return new NonEmptyNamespaceException(namespace);
  }
}
