package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.serialization.Travel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A stream from one Floe table into another in a session with {@code
 * spark.kryo.registrationRequired=true} and Floe's registrator: every piece the source and the
 * sink ship to executors is registered.
 */
class StreamingKryoTest {
  private static SparkSession spark;
  private static Path warehouse;

  @BeforeAll
  static void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-stream-kryo");
    spark = Travel.strictKryoFloeSession("floe-stream-kryo", warehouse.resolve("wh"));
  }

  @AfterAll
  static void stopSpark() throws IOException {
    Travel.stopAndDelete(spark, warehouse);
    spark = null;
  }

  @Test
  void streamBetweenFloeTablesRunsWithStrictKryo() throws Exception {
    spark.sql("CREATE NAMESPACE floe.k");
    spark.sql("CREATE TABLE floe.k.src (id BIGINT, data STRING) USING iceberg PARTITIONED BY (data)");
    spark.sql("CREATE TABLE floe.k.dst (id BIGINT, data STRING) USING iceberg PARTITIONED BY (data)");
    spark.sql("INSERT INTO floe.k.src SELECT id, CAST(id % 3 AS STRING) FROM range(0, 30)");
    spark.sql("INSERT INTO floe.k.src SELECT id, CAST(id % 3 AS STRING) FROM range(30, 45)");
    StreamingQuery query =
        spark.readStream().table("floe.k.src").writeStream()
            .option("checkpointLocation", warehouse.resolve("checkpoint").toString())
            .trigger(Trigger.AvailableNow())
            .toTable("floe.k.dst");
    query.awaitTermination();
    assertThat(StreamTables.sortedRows(spark.table("floe.k.dst")))
        .isEqualTo(StreamTables.sortedRows(spark.table("floe.k.src")))
        .hasSize(45);
  }
}
