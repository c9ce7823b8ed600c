package io.floe.spark.catalog;

import java.util.function.BooleanSupplier;
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

  /** Runs a table replacement, translating "no such table" and "no such namespace". */
  public static <T> T onReplace(Identifier ident, Supplier<T> call)
      throws NoSuchTableException, NoSuchNamespaceException {
    try {
      return call.get();
    } catch (org.apache.iceberg.exceptions.NoSuchTableException ignored) {
      throw noSuchTable(ident);
    } catch (org.apache.iceberg.exceptions.NoSuchNamespaceException ignored) {
      throw noSuchNamespace(ident.namespace());
    }
  }

  /** Runs a table drop; a table that does not exist was not dropped. */
  public static boolean onDrop(BooleanSupplier call) {
    try {
      return call.getAsBoolean();
    } catch (org.apache.iceberg.exceptions.NoSuchTableException ignored) {
      return false;
    }
  }

  /** Runs a rename, translating "no such table" (of {@code from}) and "already exists" (of {@code to}). */
  public static void onRename(Identifier from, Identifier to, Runnable call)
      throws NoSuchTableException, TableAlreadyExistsException {
    try {
      call.run();
    } catch (org.apache.iceberg.exceptions.NoSuchTableException ignored) {
      throw noSuchTable(from);
    } catch (org.apache.iceberg.exceptions.AlreadyExistsException ignored) {
      throw new TableAlreadyExistsException(to);
    }
  }

  /** Runs a namespace listing that answers {@code whenMissing} when the namespace does not exist. */
  public static <T> T orWhenNoNamespace(Supplier<T> call, T whenMissing) {
    try {
      return call.get();
    } catch (org.apache.iceberg.exceptions.NoSuchNamespaceException ignored) {
      return whenMissing;
    }
  }

  /** Runs a namespace creation, translating "already exists". */
  public static void onCreateNamespace(String[] namespace, Runnable call)
      throws NamespaceAlreadyExistsException {
    try {
      call.run();
    } catch (org.apache.iceberg.exceptions.AlreadyExistsException ignored) {
      throw new NamespaceAlreadyExistsException(namespace);
    }
  }

  /** Runs a namespace drop, translating "not empty". */
  public static boolean onDropNamespace(String[] namespace, BooleanSupplier call)
      throws NonEmptyNamespaceException {
    try {
      return call.getAsBoolean();
    } catch (org.apache.iceberg.exceptions.NamespaceNotEmptyException ignored) {
      throw new NonEmptyNamespaceException(namespace);
    }
  }
}
