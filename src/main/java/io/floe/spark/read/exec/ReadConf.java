package io.floe.spark.read.exec;

import org.apache.hadoop.conf.Configuration;

/**
 * The Hadoop configuration executors hand to Parquet and Spark's Parquet reader: Hadoop's default
 * resources, parsed once per JVM and shared read-only by every reader.
 *
 * <p>A fresh {@code new Configuration()} parses {@code core-default.xml} and {@code core-site.xml}
 * on its first lookup, which cost a short scan task about a quarter of its CPU when every task
 * built its own. Readers that need their own settings copy this one ({@code new
 * Configuration(ReadConf.shared())}), which copies the parsed properties without parsing again.
 */
final class ReadConf {
  private static final Configuration SHARED = loaded();

  private ReadConf() {}

  /** The parsed defaults; callers never change it. */
  static Configuration shared() {
    return SHARED;
  }

  private static Configuration loaded() {
    Configuration conf = new Configuration();
    // the first lookup parses the default resources; copies made later reuse the parsed properties
    conf.size();
    return conf;
  }
}
