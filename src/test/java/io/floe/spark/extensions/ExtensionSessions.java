package io.floe.spark.extensions;

import io.floe.spark.FloeSparkSessionExtensions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * The session the extension tests share the setup of: local, small, with {@code
 * FloeSparkSessionExtensions} and the catalogs a test class configures. {@code spark.sql.extensions}
 * is fixed when a session starts, so each test class starts its own.
 */
final class ExtensionSessions {
  private ExtensionSessions() {}

  static SparkSession start(String appName, Map<String, String> conf) {
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName(appName)
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.default.parallelism", "2")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.extensions", FloeSparkSessionExtensions.class.getName());
    conf.forEach(builder::config);
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    return spark;
  }

  static void stop(SparkSession spark, Path... folders) throws IOException {
    if (spark != null) {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
    for (Path folder : folders) {
      if (folder != null && Files.exists(folder)) {
        try (Stream<Path> files = Files.walk(folder)) {
          files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        }
      }
    }
  }
}
