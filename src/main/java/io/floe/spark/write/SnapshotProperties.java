package io.floe.spark.write;

import io.floe.spark.commit.Committer;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.EnvironmentContext;
import org.apache.iceberg.SnapshotSummary;
import org.apache.spark.sql.internal.SQLConf;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The official runtime's {@code snapshot-property.<key>} entries of one write, from its write
 * options and session confs, checked on the driver: a key Floe ({@code floe.commit-id}) or Iceberg
 * itself records in every snapshot summary is refused before anything is written.
 */
final class SnapshotProperties {
  /** The summary keys Iceberg declares (its public constants), taken from Iceberg itself. */
  private static final Set<String> ICEBERG_SUMMARY_KEYS = icebergSummaryKeys();

  private SnapshotProperties() {}

  /**
   * The snapshot summary entries, in the usual order: the official runtime's session confs, then
   * Floe's, then the write options, each later one replacing an earlier one's key.
   */
  static Map<String, String> resolve(
      String tableName, Map<String, String> options, SQLConf session) {
    Map<String, String> properties = new TreeMap<>();
    if (session != null) {
      Map<String, String> confs = CollectionConverters.asJava(session.getAllConfs());
      putPrefixed(
          tableName, confs, WriteOptions.ICEBERG_SNAPSHOT_PROPERTY_CONF_PREFIX, properties,
          "session conf ");
      putPrefixed(
          tableName, confs, WriteOptions.SESSION_PREFIX + WriteOptions.SNAPSHOT_PROPERTY_PREFIX,
          properties, "session conf ");
    }
    putPrefixed(tableName, options, WriteOptions.SNAPSHOT_PROPERTY_PREFIX, properties, "option ");
    return properties;
  }

  /**
   * Whether Iceberg writes the key into every snapshot summary itself (file and record counts,
   * totals, partition summaries, write-audit-publish ids, its environment): a second value for it
   * would fail the commit after the files are written, so it is refused up front.
   */
  private static boolean isIcebergSummaryKey(String key) {
    return ICEBERG_SUMMARY_KEYS.contains(key)
        || key.startsWith(SnapshotSummary.CHANGED_PARTITION_PREFIX)
        || EnvironmentContext.get().containsKey(key);
  }

  private static void putPrefixed(
      String tableName,
      Map<String, String> source,
      String prefix,
      Map<String, String> into,
      String kind) {
    for (Map.Entry<String, String> entry : new TreeMap<>(source).entrySet()) {
      String name = entry.getKey();
      if (!name.toLowerCase(Locale.ROOT).startsWith(prefix)) {
        continue;
      }
      String key = name.substring(prefix.length());
      if (key.isEmpty()) {
        throw new IllegalArgumentException(
            "Cannot write to " + tableName + ": " + kind + "'" + name + "' names no summary key");
      }
      if (key.equals(Committer.COMMIT_ID_KEY)) {
        throw new IllegalArgumentException(
            "Cannot write to " + tableName + ": " + kind + "'" + name + "' cannot set "
                + Committer.COMMIT_ID_KEY + ", which records the write's commit id; use the option '"
                + WriteOptions.COMMIT_ID + "'");
      }
      if (isIcebergSummaryKey(key)) {
        throw new IllegalArgumentException(
            "Cannot write to " + tableName + ": " + kind + "'" + name + "' cannot set " + key
                + ", which Iceberg itself records in the snapshot summary");
      }
      if (entry.getValue() == null) {
        continue;
      }
      into.put(key, entry.getValue());
    }
  }

  private static Set<String> icebergSummaryKeys() {
    Set<String> keys = new HashSet<>();
    for (Field field : SnapshotSummary.class.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
        try {
          keys.add((String) field.get(null));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("Cannot read " + field, e);
        }
      }
    }
    return Set.copyOf(keys);
  }
}
