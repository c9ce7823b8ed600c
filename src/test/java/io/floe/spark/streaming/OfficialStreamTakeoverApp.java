package io.floe.spark.streaming;

import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;

/**
 * What {@link StreamingOverwriteModeTest} runs in the official runtime's JVM (Spark's API only) to
 * take a stream over from a checkpoint Floe's source wrote: the runtime's own stream source over
 * the table, {@code Trigger.AvailableNow}, once per run the arguments name, one after the other on
 * the same checkpoint. It prints the rows of every micro-batch as {@code row> <run>|batch|<batch
 * id>|<id>|<data>}, or, when a run's stream fails, {@code row> <run>|error|<message>} (the process
 * still ends normally, so the test sees what a user would).
 *
 * <p>Arguments: the table, the stream's checkpoint folder, then one argument per run: its read
 * options as {@code key=value} joined by {@code ,}, or {@code -} for none.
 */
public final class OfficialStreamTakeoverApp {
  private OfficialStreamTakeoverApp() {}

  public static void main(String[] arguments) throws TimeoutException {
    String table = arguments[0];
    String checkpoint = arguments[1];
    SparkSession spark = SparkSession.builder().appName("floe-stream-takeover").getOrCreate();
    try {
      for (int run = 2; run < arguments.length; run++) {
        DataStreamReader reader = spark.readStream();
        if (!arguments[run].equals("-")) {
          for (String pair : arguments[run].split(",")) {
            String[] option = pair.split("=", 2);
            reader = reader.option(option[0], option[1]);
          }
        }
        String prefix = "row> " + (run - 2) + "|";
        VoidFunction2<Dataset<Row>, Long> print =
            (rows, batchId) -> {
              for (Row row : rows.collectAsList()) {
                System.out.println(prefix + "batch|" + batchId + "|" + row.mkString("|"));
              }
            };
        try {
          reader.table(table).writeStream()
              .option("checkpointLocation", checkpoint)
              .trigger(Trigger.AvailableNow())
              .foreachBatch(print)
              .start()
              .awaitTermination();
        } catch (StreamingQueryException e) {
          System.out.println(prefix + "error|" + e.getMessage().replace('\n', ' '));
        }
      }
    } finally {
      spark.stop();
    }
  }
}
