package io.floe.spark;

import io.floe.spark.catalog.CatalogTableLoader;
import io.floe.spark.catalog.FloeTable;
import io.floe.spark.types.SparkSchemas;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Path-based Floe tables: {@code spark.read.format("floe").load(location)} reads the Iceberg table
 * at a location, and {@code df.write.format("floe").mode("append").save(location)} writes to it.
 */
public final class FloeDataSource
    implements org.apache.spark.sql.connector.catalog.TableProvider, DataSourceRegister {

  @Override
  public String shortName() {
    return "floe";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return SparkSchemas.toSpark(load(location(options)).schema());
  }

  @Override
  public Transform[] inferPartitioning(CaseInsensitiveStringMap options) {
    return getTable(null, new Transform[0], options.asCaseSensitiveMap()).partitioning();
  }

  @Override
  public org.apache.spark.sql.connector.catalog.Table getTable(
      StructType schema, Transform[] partitioning, Map<String, String> properties) {
    String location = location(new CaseInsensitiveStringMap(properties));
    return new FloeTable(load(location), new CatalogTableLoader(null, Map.of(), location), null);
  }

  private static Table load(String location) {
    return new HadoopTables(new Configuration()).load(location);
  }

  private static String location(CaseInsensitiveStringMap options) {
    String path = options.get("path");
    if (path == null || path.isBlank()) {
      throw new IllegalArgumentException("Cannot load a floe table: no location given (use load(path))");
    }
    return path;
  }
}
