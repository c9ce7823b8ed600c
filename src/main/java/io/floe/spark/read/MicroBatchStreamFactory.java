package io.floe.spark.read;

import java.util.Map;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;

/**
 * Builds the stream source of a planned scan ({@link FloeScan#toMicroBatchStream}). The {@code
 * streaming} package provides it and the table hands it to the {@link FloeScanBuilder}, so that
 * {@code read} never imports {@code streaming}, which builds on it.
 */
@FunctionalInterface
public interface MicroBatchStreamFactory {

  /**
   * @param scan the scan Spark built for the stream: its schema, options and reader settings
   * @param options the read options as the caller gave them
   * @param checkpointLocation the stream source's folder in the query's checkpoint
   */
  MicroBatchStream create(FloeScan scan, Map<String, String> options, String checkpointLocation);
}
