package io.floe.spark;

import io.floe.spark.catalog.CatalogTableLoader;
import io.floe.spark.catalog.FloeTable;
import io.floe.spark.read.TimeTravel;
import io.floe.spark.util.FastLocalFileSystem;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The {@code floe} data source: {@code spark.read.format("floe").load(x)} and {@code
 * df.write.format("floe").mode("append").save(x)}, where {@code x} is either a table location
 * (anything with a {@code /}) or a table name such as {@code cat.db.t} (resolved through Spark's
 * catalogs; a name without a catalog uses the current one).
 *
 * <p>The time travel read options {@code snapshot-id}, {@code as-of-timestamp} (millis), {@code
 * branch} and {@code tag} are resolved here, when the table is loaded, so that an older snapshot is
 * read with the schema it had. (Through {@code spark.read.option(...).table(name)} Spark loads the
 * table before any option is seen, so there the snapshot is read in the table's current schema;
 * Spark's own {@code versionAsOf} and {@code timestampAsOf} options keep the snapshot's schema.)
 */
public class FloeDataSource implements TableProvider, DataSourceRegister {

  @Override
  public String shortName() {
    return "floe";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return load(options).schema();
  }

  @Override
  public Transform[] inferPartitioning(CaseInsensitiveStringMap options) {
    return load(options).partitioning();
  }

  @Override
  public org.apache.spark.sql.connector.catalog.Table getTable(
      StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return load(new CaseInsensitiveStringMap(properties));
  }

  private static org.apache.spark.sql.connector.catalog.Table load(
      CaseInsensitiveStringMap options) {
    String path = options.get("path");
    if (path == null || path.isBlank()) {
      throw new IllegalArgumentException(
          "Cannot load a floe table: no table name or location given (use load(name or path))");
    }
    return path.contains("/") ? loadLocation(path, options) : loadNamed(path, options);
  }

  private static FloeTable loadLocation(String location, CaseInsensitiveStringMap options) {
    Table table = new HadoopTables(FastLocalFileSystem.useIn(new Configuration())).load(location);
    return new FloeTable(
        table, new CatalogTableLoader(null, Map.of(), location), TimeTravel.fromOptions(options));
  }

  private static org.apache.spark.sql.connector.catalog.Table loadNamed(
      String name, CaseInsensitiveStringMap options) {
    SparkSession spark = SparkSession.active();
    List<String> parts;
    try {
      parts =
          CollectionConverters.asJava(
              spark.sessionState().sqlParser().parseMultipartIdentifier(name));
    } catch (ParseException e) {
      throw new IllegalArgumentException(
          "Cannot load table " + name + ": not a table name or location (" + e.getMessage() + ")",
          e);
    }
    CatalogManager catalogs = spark.sessionState().catalogManager();
    CatalogPlugin plugin;
    List<String> rest;
    if (parts.size() > 1 && catalogs.isCatalogRegistered(parts.get(0))) {
      plugin = catalogs.catalog(parts.get(0));
      rest = parts.subList(1, parts.size());
    } else {
      plugin = catalogs.currentCatalog();
      rest = parts;
    }
    if (!(plugin instanceof TableCatalog catalog)) {
      throw new IllegalArgumentException(
          "Cannot load table " + name + ": catalog " + plugin.name() + " is not a table catalog");
    }
    Identifier ident =
        Identifier.of(
            rest.subList(0, rest.size() - 1).toArray(new String[0]), rest.get(rest.size() - 1));
    try {
      TimeTravel travel = TimeTravel.fromOptions(options);
      if (travel == null) {
        return catalog.loadTable(ident);
      }
      if (travel.kind() == TimeTravel.Kind.TIMESTAMP) {
        return catalog.loadTable(
            ident, TimeUnit.MILLISECONDS.toMicros(travel.timestampMillis()));
      }
      return catalog.loadTable(ident, travel.version());
    } catch (NoSuchTableException e) {
      throw new IllegalArgumentException("Cannot load table " + name + ": it does not exist", e);
    }
  }
}
