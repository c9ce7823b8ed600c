package io.floe.spark.catalog;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Runs a suite against the Spark catalog {@code floe} backed by one kind of Iceberg catalog. A
 * subclass names the {@link TestCatalog}; everything else (the session, the warehouse folder, the
 * helpers that look at the Iceberg table behind a Spark name) is shared.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class CatalogTestBase extends SparkTestBase {
  /** The Spark catalog every suite uses. */
  protected static final String CATALOG = "floe";

  /**
   * The kind of catalog behind {@code floe}. A subclass overrides either this or both {@link
   * #catalogOptions} and {@link #supportsNamespaceProperties}.
   */
  protected TestCatalog testCatalog() {
    throw new IllegalStateException(
        getClass().getSimpleName() + " must override testCatalog() or catalogOptions(Path)");
  }

  /** The options of {@code spark.sql.catalog.floe.*} for a warehouse folder. */
  protected Map<String, String> catalogOptions(Path warehouse) {
    return testCatalog().options(warehouse);
  }

  /** Whether the catalog stores namespace properties. */
  protected boolean supportsNamespaceProperties() {
    return testCatalog().supportsNamespaceProperties();
  }

  @BeforeAll
  void configureCatalog() {
    catalogOptions(warehouse)
        .forEach((key, value) -> spark.conf().set("spark.sql.catalog." + CATALOG + "." + key, value));
  }

  /** Options of a hadoop catalog over the warehouse folder. */
  public static Map<String, String> hadoopOptions(Path warehouse) {
    return TestCatalog.HADOOP.options(warehouse);
  }

  /** Options of a JDBC catalog whose database is a SQLite file in the warehouse folder. */
  public static Map<String, String> jdbcOptions(Path warehouse) {
    return TestCatalog.JDBC.options(warehouse);
  }

  /** The Iceberg catalog behind {@code floe}. */
  protected static Catalog icebergCatalog() {
    return ((FloeCatalog) spark.sessionState().catalogManager().catalog(CATALOG)).icebergCatalog();
  }

  /** The Iceberg table behind {@code floe.<name>}, loaded fresh. */
  protected static Table icebergTable(String name) {
    return icebergCatalog().loadTable(TableIdentifier.parse(name));
  }

  /** The table's snapshots, oldest first. */
  protected static List<Snapshot> snapshots(String name) {
    List<Snapshot> snapshots = new ArrayList<>();
    icebergTable(name).snapshots().forEach(snapshots::add);
    return snapshots;
  }

  /** The operations of the table's snapshots, oldest first. */
  protected static List<String> operations(String name) {
    return snapshots(name).stream().map(Snapshot::operation).collect(Collectors.toList());
  }

  /** The Parquet files under a table's data folder, as they are on disk. */
  protected static List<Path> dataFilesOnDisk(String tableLocation) {
    Path data = Paths.get(URI.create(withScheme(tableLocation))).resolve("data");
    if (!Files.exists(data)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files
          .filter(Files::isRegularFile)
          .filter(path -> path.getFileName().toString().endsWith(".parquet"))
          .sorted()
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String withScheme(String location) {
    return location.startsWith("file:") ? location : "file:" + location;
  }

  /** A row of plain values, for comparing with collected rows. */
  protected static Row row(Object... values) {
    return RowFactory.create(values);
  }
}
