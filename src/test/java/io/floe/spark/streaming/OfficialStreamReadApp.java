package io.floe.spark.streaming;

import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;

/**
 * What {@link StreamingOfficialRuntimeInteropTest} runs in the official runtime's JVM (Spark's API
 * only, so it needs no Floe class): the table's rows by a batch read, printed as {@code
 * row> table|<id>|<data>}, then the rows of every micro-batch of the runtime's own stream source
 * over the table, one data file per micro-batch ({@code Trigger.AvailableNow}), printed as {@code
 * row> batch|<batch id>|<id>|<data>}.
 *
 * <p>Arguments: the table, then the stream's checkpoint folder.
 */
public final class OfficialStreamReadApp {
  private OfficialStreamReadApp() {}

  public static void main(String[] arguments) throws TimeoutException, StreamingQueryException {
    String table = arguments[0];
    String checkpoint = arguments[1];
    SparkSession spark = SparkSession.builder().appName("floe-stream-interop").getOrCreate();
    try {
      for (Row row : spark.table(table).collectAsList()) {
        System.out.println("row> table|" + row.mkString("|"));
      }
      VoidFunction2<Dataset<Row>, Long> print =
          (rows, batchId) -> {
            for (Row row : rows.collectAsList()) {
              System.out.println("row> batch|" + batchId + "|" + row.mkString("|"));
            }
          };
      spark.readStream()
          .option("streaming-max-files-per-micro-batch", "1")
          .table(table)
          .writeStream()
          .option("checkpointLocation", checkpoint)
          .trigger(Trigger.AvailableNow())
          .foreachBatch(print)
          .start()
          .awaitTermination();
    } finally {
      spark.stop();
    }
  }
}
