package io.floe.spark.streaming;

import org.apache.spark.sql.connector.read.streaming.CompositeReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxFiles;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;

/**
 * The most files and rows one micro-batch takes, from Spark's read limit (a composite limit takes
 * the smallest of each); unlimited is {@link Long#MAX_VALUE}.
 */
record BatchLimits(long maxFiles, long maxRows) {

  static BatchLimits of(ReadLimit limit) {
    long files = Long.MAX_VALUE;
    long rows = Long.MAX_VALUE;
    ReadLimit[] limits =
        limit instanceof CompositeReadLimit ? ((CompositeReadLimit) limit).getReadLimits() : new ReadLimit[] {limit};
    for (ReadLimit one : limits) {
      if (one instanceof ReadMaxFiles) {
        files = Math.min(files, ((ReadMaxFiles) one).maxFiles());
      } else if (one instanceof ReadMaxRows) {
        rows = Math.min(rows, ((ReadMaxRows) one).maxRows());
      }
    }
    return new BatchLimits(files, rows);
  }
}
