package io.floe.spark.streaming;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.commit.FaultInjectingCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What the sink tests share: a MemoryStream of {@code (id, data)} rows fed by {@link #send}, the
 * rows sent so far as Spark's own answer ({@link #sentRows}), a fresh checkpoint folder per test,
 * and a catalog over the same warehouse whose commits can be disturbed ({@link
 * #registerFaultyCatalog}). After each test every stream is stopped, the queued faults are
 * cleared, and the tables the subclass names are dropped.
 */
abstract class SinkTestBase extends SparkTestBase {
  protected Path checkpoints;
  protected MemoryStream<Tuple2<Long, String>> input;
  protected final List<Tuple2<Long, String>> sent = new ArrayList<>();
  private long nextId;

  /** The tables a test may leave behind, dropped after it. */
  abstract List<String> tablesToDrop();

  /** Registers {@code name} as a Floe catalog over the test warehouse, through FaultInjectingCatalog. */
  static void registerFaultyCatalog(String name) {
    String prefix = "spark.sql.catalog." + name;
    spark.conf().set(prefix, FloeCatalog.class.getName());
    spark.conf().set(prefix + ".catalog-impl", FaultInjectingCatalog.class.getName());
    spark.conf().set(prefix + ".delegate-type", "hadoop");
    spark.conf().set(prefix + ".warehouse", warehouse.toUri().toString());
  }

  @BeforeEach
  void startInput() throws IOException {
    checkpoints = Files.createTempDirectory("floe-checkpoints");
    input = MemoryStream.apply(Encoders.tuple(Encoders.LONG(), Encoders.STRING()), spark);
    sent.clear();
    nextId = 0;
  }

  @AfterEach
  void stopStreams() throws IOException {
    FaultInjectingCatalog.clear();
    for (StreamingQuery query : spark.streams().active()) {
      try {
        query.stop();
      } catch (TimeoutException e) {
        throw new IllegalStateException(e);
      }
    }
    for (String table : tablesToDrop()) {
      sql("DROP TABLE IF EXISTS " + table);
    }
    deleteRecursively(checkpoints);
  }

  /**
   * Sends {@code rows} new rows with ids counting on and data {@code p<id % parts>}: the parts of a
   * batch interleave, so a batch is never clustered by partition on its own.
   */
  protected void send(int rows, int parts) {
    List<Tuple2<Long, String>> batch = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      long id = nextId++;
      batch.add(new Tuple2<>(id, "p" + (id % parts)));
    }
    sent.addAll(batch);
    input.addData(CollectionConverters.asScala(batch));
  }

  /** Every row sent so far, as a DataFrame of {@code (id, data)}. */
  protected Dataset<Row> sentRows() {
    return spark.createDataset(sent, Encoders.tuple(Encoders.LONG(), Encoders.STRING())).toDF("id", "data");
  }
}
