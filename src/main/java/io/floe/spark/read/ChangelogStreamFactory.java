package io.floe.spark.read;

import java.util.Map;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;

/**
 * Builds the stream source of a changelog scan ({@link ChangelogScan#toMicroBatchStream}). The
 * {@code streaming} package provides it and the changelog table hands it to the {@link
 * ChangelogScanBuilder}, so that {@code read} never imports {@code streaming}, which builds on it.
 */
@FunctionalInterface
public interface ChangelogStreamFactory {

  /**
   * @param scan the scan Spark built for the stream: its schema and reader factory
   * @param planner plans the change tasks of a range of snapshots, as the scan planned its own
   * @param options the read options as the caller gave them
   * @param checkpointLocation the stream source's folder in the query's checkpoint
   */
  MicroBatchStream create(
      ChangelogScan scan,
      ChangelogRangePlanner planner,
      Map<String, String> options,
      String checkpointLocation);
}
