package io.floe.spark.rowlevel;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.connector.write.MergeSummary;

/**
 * The snapshot summary entries of a MERGE's counts from Spark ({@link MergeSummary}), under the
 * official runtime's keys {@code spark.merge-into.num-target-rows-*}, for both the copy-on-write
 * and the merge-on-read commit.
 */
final class MergeSummaryProperties {
  /** The official runtime's summary key prefix for Spark's MERGE counts. */
  static final String PREFIX = "spark.merge-into.";

  private MergeSummaryProperties() {}

  /** Spark's MERGE counts under the official runtime's keys; one Spark did not find is left out. */
  static Map<String, String> of(MergeSummary merge) {
    Map<String, String> properties = new HashMap<>();
    putIfKnown(properties, "num-target-rows-copied", merge.numTargetRowsCopied());
    putIfKnown(properties, "num-target-rows-deleted", merge.numTargetRowsDeleted());
    putIfKnown(properties, "num-target-rows-updated", merge.numTargetRowsUpdated());
    putIfKnown(properties, "num-target-rows-inserted", merge.numTargetRowsInserted());
    putIfKnown(properties, "num-target-rows-matched-updated", merge.numTargetRowsMatchedUpdated());
    putIfKnown(properties, "num-target-rows-matched-deleted", merge.numTargetRowsMatchedDeleted());
    putIfKnown(
        properties,
        "num-target-rows-not-matched-by-source-updated",
        merge.numTargetRowsNotMatchedBySourceUpdated());
    putIfKnown(
        properties,
        "num-target-rows-not-matched-by-source-deleted",
        merge.numTargetRowsNotMatchedBySourceDeleted());
    return properties;
  }

  // Spark reports -1 for a count it did not measure
  private static void putIfKnown(Map<String, String> properties, String key, long value) {
    if (value >= 0) {
      properties.put(PREFIX + key, String.valueOf(value));
    }
  }
}
