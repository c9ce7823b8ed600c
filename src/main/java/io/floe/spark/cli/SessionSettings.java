package io.floe.spark.cli;

import io.floe.spark.FloeCatalog;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The Spark settings {@code floe-sql} starts its session with, in increasing precedence: its own
 * defaults (local[2], no UI, Floe as catalog {@code floe} and as the current catalog), then the
 * properties file, then {@code --master} and {@code --warehouse}, then each {@code --conf}. A
 * default is left out when the JVM already has a {@code -Dspark...} system property for the key,
 * so that one wins too.
 */
final class SessionSettings {
  /** The name of the Floe catalog the session sets up. */
  static final String CATALOG = "floe";

  static final String MASTER = "spark.master";
  static final String DEFAULT_MASTER = "local[2]";
  static final String WAREHOUSE = "spark.sql.catalog." + CATALOG + ".warehouse";

  private static final Pattern URI_SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]+:.*");

  private SessionSettings() {}

  /**
   * The settings for these arguments.
   *
   * @param systemProperties the JVM's system properties, whose {@code spark.*} keys Spark reads on
   *     its own
   * @throws IllegalArgumentException when the properties file cannot be read
   */
  static Map<String, String> of(CliArguments args, Properties systemProperties) {
    Objects.requireNonNull(args, "args is null");
    Objects.requireNonNull(systemProperties, "systemProperties is null");
    Map<String, String> settings = new LinkedHashMap<>();
    Map<String, String> defaults = new LinkedHashMap<>();
    defaults.put(MASTER, DEFAULT_MASTER);
    defaults.put("spark.app.name", "floe-sql");
    defaults.put("spark.ui.enabled", "false");
    defaults.put("spark.sql.catalog." + CATALOG, FloeCatalog.class.getName());
    defaults.put("spark.sql.defaultCatalog", CATALOG);
    defaults.forEach(
        (key, value) -> {
          if (systemProperties.getProperty(key) == null) {
            settings.put(key, value);
          }
        });
    if (args.propertiesFile() != null) {
      settings.putAll(readProperties(args.propertiesFile()));
    }
    if (args.master() != null) {
      settings.put(MASTER, args.master());
    }
    if (args.warehouse() != null) {
      settings.put(WAREHOUSE, warehouseLocation(args.warehouse()));
    }
    settings.putAll(args.conf());

    String master = settings.getOrDefault(MASTER, systemProperties.getProperty(MASTER, ""));
    if (master.startsWith("local")
        && !settings.containsKey("spark.driver.host")
        && systemProperties.getProperty("spark.driver.host") == null) {
      // a local session has no reason to advertise anything but loopback
      settings.put("spark.driver.host", "127.0.0.1");
    }
    return settings;
  }

  /** A warehouse folder as a URI; a location that already has a scheme is kept as it is. */
  static String warehouseLocation(String warehouse) {
    if (URI_SCHEME.matcher(warehouse).matches()) {
      return warehouse;
    }
    return Path.of(warehouse).toAbsolutePath().normalize().toUri().toString();
  }

  private static Map<String, String> readProperties(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "Cannot read properties file " + file + ": " + FloeSql.reason(e), e);
    }
    Map<String, String> settings = new LinkedHashMap<>();
    properties.stringPropertyNames().stream()
        .sorted()
        .forEach(key -> settings.put(key, properties.getProperty(key).trim()));
    return settings;
  }
}
