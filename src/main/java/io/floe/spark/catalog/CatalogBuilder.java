package io.floe.spark.catalog;

import io.floe.spark.util.FastLocalFileSystem;
import io.floe.spark.util.Redaction;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds an Iceberg {@link Catalog} from the options of {@code spark.sql.catalog.<name>.*}, with the
 * same keys the official Iceberg runtime reads ({@code type}, {@code catalog-impl}, {@code
 * warehouse}, {@code uri}, {@code io-impl}, ...). Every key is handed to Iceberg's {@link
 * CatalogUtil} unchanged.
 *
 * <p>With neither {@code type} nor {@code catalog-impl} the embedded default is used: a hadoop
 * catalog whose warehouse is the {@code floe-warehouse} folder under the working directory, unless
 * {@code warehouse} names another.
 *
 * <p>The catalog's Hadoop configuration is Spark's, with the {@code hadoop.*} options set on it;
 * local files are served by {@link FastLocalFileSystem} unless {@code hadoop.fs.file.impl} names
 * another class.
 */
public final class CatalogBuilder {
  /** The folder, under the working directory, of the embedded default warehouse. */
  public static final String DEFAULT_WAREHOUSE_FOLDER = "floe-warehouse";

  private static final Logger LOG = LoggerFactory.getLogger(CatalogBuilder.class);
  private static final Set<String> TYPES = Set.of("hadoop", "jdbc", "rest", "hive", "glue", "nessie");
  private static final String HADOOP_PREFIX = "hadoop.";

  private CatalogBuilder() {}

  /**
   * Builds the catalog.
   *
   * @throws IllegalArgumentException for an unknown type or a missing required option
   */
  public static Catalog build(String name, Map<String, String> options, Configuration conf) {
    Map<String, String> properties = new HashMap<>(options);
    String type = properties.get(CatalogUtil.ICEBERG_CATALOG_TYPE);
    String impl = properties.get(CatalogProperties.CATALOG_IMPL);
    if (type == null && impl == null) {
      type = CatalogUtil.ICEBERG_CATALOG_TYPE_HADOOP;
      properties.put(CatalogUtil.ICEBERG_CATALOG_TYPE, type);
      properties.putIfAbsent(CatalogProperties.WAREHOUSE_LOCATION, defaultWarehouse());
    }

    if (type != null) {
      type = type.toLowerCase(Locale.ROOT);
      properties.put(CatalogUtil.ICEBERG_CATALOG_TYPE, type);
      if (impl != null) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot create catalog %s: both type=%s and catalog-impl=%s are set; set one",
                name, type, impl));
      }
      if (!TYPES.contains(type)) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot create catalog %s: unknown catalog type '%s' (expected one of hadoop, jdbc, rest,"
                    + " or catalog-impl=<class>)",
                name, type));
      }
      requireOptions(name, type, properties);
    }

    Configuration catalogConf = new Configuration(conf);
    properties.forEach(
        (key, value) -> {
          if (key.startsWith(HADOOP_PREFIX)) {
            catalogConf.set(key.substring(HADOOP_PREFIX.length()), value);
          }
        });
    FastLocalFileSystem.useIn(catalogConf);
    LOG.debug(
        "Building catalog {} ({}) with options {}",
        name,
        type != null ? "type=" + type : "catalog-impl=" + impl,
        Redaction.redact(properties));
    return CatalogUtil.buildIcebergCatalog(name, properties, catalogConf);
  }

  /** The embedded default warehouse location, as a URI. */
  public static String defaultWarehouse() {
    return Paths.get(System.getProperty("user.dir"), DEFAULT_WAREHOUSE_FOLDER).toUri().toString();
  }

  private static void requireOptions(String name, String type, Map<String, String> properties) {
    switch (type) {
      case "hadoop":
        require(name, type, properties, CatalogProperties.WAREHOUSE_LOCATION);
        break;
      case "jdbc":
        require(name, type, properties, CatalogProperties.URI);
        require(name, type, properties, CatalogProperties.WAREHOUSE_LOCATION);
        break;
      case "rest":
        require(name, type, properties, CatalogProperties.URI);
        break;
      default:
        break;
    }
  }

  private static void require(
      String name, String type, Map<String, String> properties, String key) {
    String value = properties.get(key);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot create catalog %s: option '%s' is required for type=%s (set"
                  + " spark.sql.catalog.%s.%s)",
              name, key, type, name, key));
    }
  }
}
