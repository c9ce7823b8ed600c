package io.floe.spark.packaging;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream;
import org.apache.spark.sql.streaming.StreamingQuery;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The streaming application of the checkpoint interoperability test: it streams batches of rows
 * into a table of the catalog {@code cat} (Floe or the official runtime, as {@code --conf} and
 * {@code --jars} set it), one epoch per batch. Batch {@code i} holds ids {@code [10 i, 10 i + 10)}.
 *
 * <p>Arguments: table, checkpoint location, preloaded batches (added before the query starts, so
 * that a restart can replay the epochs the checkpoint has not committed), total batches (the rest
 * are added one at a time, each processed before the next), and optionally the rows per batch
 * (default 10; batch {@code i} then holds ids {@code [n i, n i + n)}). It prints how long the
 * batches after the preloaded ones took, from the first one added to the last one committed. Uses
 * Spark's API only.
 */
public final class StreamApp {
  static final String DONE_PREFIX = "done> ";
  static final String TIME_PREFIX = "millis> ";

  private StreamApp() {}

  public static void main(String[] args) throws TimeoutException {
    String table = args[0];
    String checkpoint = args[1];
    int preload = Integer.parseInt(args[2]);
    int total = Integer.parseInt(args[3]);
    int perBatch = args.length > 4 ? Integer.parseInt(args[4]) : 10;
    SparkSession spark = SparkSession.builder().appName("floe-stream-interop").getOrCreate();
    try {
      spark.sql("CREATE NAMESPACE IF NOT EXISTS cat.s");
      spark.sql("CREATE TABLE IF NOT EXISTS " + table + " (id BIGINT, data STRING) USING iceberg");
      MemoryStream<Tuple2<Long, String>> input =
          MemoryStream.apply(Encoders.tuple(Encoders.LONG(), Encoders.STRING()), spark);
      for (int batch = 0; batch < preload; batch++) {
        input.addData(CollectionConverters.asScala(rows(batch, perBatch)));
      }
      StreamingQuery query =
          input.toDF().toDF("id", "data").writeStream()
              .option("checkpointLocation", checkpoint)
              .toTable(table);
      query.processAllAvailable();
      long start = System.nanoTime();
      for (int batch = preload; batch < total; batch++) {
        input.addData(CollectionConverters.asScala(rows(batch, perBatch)));
        query.processAllAvailable();
      }
      long millis = (System.nanoTime() - start) / 1_000_000;
      query.stop();
      System.out.println(TIME_PREFIX + millis);
      System.out.println(DONE_PREFIX + "query=" + query.id());
    } finally {
      spark.stop();
    }
  }

  private static List<Tuple2<Long, String>> rows(int batch, int perBatch) {
    List<Tuple2<Long, String>> rows = new ArrayList<>(perBatch);
    for (long id = (long) batch * perBatch; id < (long) batch * perBatch + perBatch; id++) {
      rows.add(new Tuple2<>(id, "b" + batch));
    }
    return rows;
  }
}
