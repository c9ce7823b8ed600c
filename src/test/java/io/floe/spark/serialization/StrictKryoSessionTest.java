package io.floe.spark.serialization;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.distributed.RecordingCatalog;
import io.floe.spark.distributed.RecordingCatalog.Call;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A whole SparkSession with {@code spark.serializer=KryoSerializer}, {@code
 * spark.kryo.registrationRequired=true} and Floe's registrator: every statement users run against a
 * Floe catalog works, and the catalog (wrapped in a {@link RecordingCatalog}) is called by the
 * driver only, never by an executor task thread.
 */
class StrictKryoSessionTest {
  private static SparkSession spark;
  private static Path warehouse;
  private static Path calls;

  @BeforeAll
  static void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-kryo");
    calls = warehouse.resolve("catalog-calls.log");
    SparkConf conf =
        Travel.withRecordingCatalog(
            Travel.withHadoopCatalog(
                Travel.strictKryoLocalConf("floe-strict-kryo"), "floe", warehouse.resolve("plain")),
            "rec",
            calls,
            warehouse.resolve("recorded"));
    spark = SparkSession.builder().config(conf).getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
  }

  @AfterAll
  static void stopSpark() throws IOException {
    Travel.stopAndDelete(spark, warehouse);
    spark = null;
  }

  @Test
  void createInsertSelectCtasOverwriteAndMetadataQueriesRunWithRegistrationRequired() {
    assertThat(spark.sparkContext().conf().get("spark.kryo.registrationRequired")).isEqualTo("true");
    sql("CREATE NAMESPACE floe.db");
    sql("CREATE TABLE floe.db.events (id BIGINT, category STRING, amount DOUBLE, tags ARRAY<STRING>,"
        + " attrs MAP<STRING, INT>) USING iceberg PARTITIONED BY (category)");
    sql("INSERT INTO floe.db.events SELECT id, CASE WHEN id %% 3 = 0 THEN 'a' WHEN id %% 3 = 1 THEN 'b'"
        + " ELSE 'c' END, id * 1.5, array(cast(id AS STRING)), map('k', cast(id AS INT))"
        + " FROM range(0, 300, 1, 4)");
    sql("INSERT INTO floe.db.events VALUES (1000, 'd', 1.0, array('x'), map('k', 1))");

    assertThat(rows("SELECT category, count(*), sum(id) FROM floe.db.events GROUP BY category ORDER BY category"))
        .containsExactly(
            List.of("a", 100L, 14850L), List.of("b", 100L, 14950L), List.of("c", 100L, 15050L),
            List.of("d", 1L, 1000L));
    assertThat(rows("SELECT id, amount, tags[0], attrs['k'] FROM floe.db.events"
            + " WHERE category = 'b' AND id < 5 ORDER BY id"))
        .containsExactly(List.of(1L, 1.5, "1", 1), List.of(4L, 6.0, "4", 4));

    sql("CREATE TABLE floe.db.totals USING iceberg PARTITIONED BY (category) AS"
        + " SELECT category, count(*) AS n FROM floe.db.events GROUP BY category");
    assertThat(rows("SELECT category, n FROM floe.db.totals ORDER BY category"))
        .containsExactly(List.of("a", 100L), List.of("b", 100L), List.of("c", 100L), List.of("d", 1L));

    spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
    sql("INSERT OVERWRITE floe.db.totals VALUES ('a', 7), ('e', 9)");
    spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
    assertThat(rows("SELECT category, n FROM floe.db.totals ORDER BY category"))
        .containsExactly(
            List.of("a", 7L), List.of("b", 100L), List.of("c", 100L), List.of("d", 1L), List.of("e", 9L));

    assertThat(rows("SELECT t.category, t.n, count(*) FROM floe.db.totals t JOIN floe.db.events e"
        + " ON t.category = e.category GROUP BY t.category, t.n ORDER BY t.category"))
        .containsExactly(
            List.of("a", 7L, 100L), List.of("b", 100L, 100L), List.of("c", 100L, 100L),
            List.of("d", 1L, 1L));

    assertThat(rows("SELECT operation FROM floe.db.events.snapshots ORDER BY committed_at"))
        .containsExactly(List.of("append"), List.of("append"));
    assertThat(rows("SELECT count(*), sum(record_count) FROM floe.db.events.files"))
        .containsExactly(List.of(countFiles("events"), 301L));
    assertThat(rows("SELECT count(*) FROM floe.db.totals.history")).containsExactly(List.of(2L));
    assertThat(rows("SELECT count(*) FROM floe.db.events.manifests")).containsExactly(List.of(2L));
    assertThat(rows("SELECT count(DISTINCT _file) FROM floe.db.events"))
        .containsExactly(List.of(countFiles("events")));
  }

  @Test
  void onlyTheDriverCallsTheCatalogDuringReadsWritesAndMetadataQueries() {
    sql("CREATE NAMESPACE rec.db");
    sql("CREATE TABLE rec.db.t (id BIGINT, part STRING) USING iceberg PARTITIONED BY (part)");

    int start = RecordingCatalog.calls(calls).size();
    sql("INSERT INTO rec.db.t SELECT id, cast(id %% 4 AS STRING) FROM range(0, 400, 1, 4)");
    List<Call> write = since(start);

    start = RecordingCatalog.calls(calls).size();
    assertThat(rows("SELECT count(*), sum(id) FROM rec.db.t WHERE part = '1'")).containsExactly(List.of(100L, 19900L));
    List<Call> read = since(start);

    start = RecordingCatalog.calls(calls).size();
    assertThat(rows("SELECT operation, summary['added-records'] FROM rec.db.t.snapshots"))
        .containsExactly(List.of("append", "400"));
    List<Call> metadata = since(start);

    assertThat(write).extracting(Call::call).contains("loadTable db.t", "commit rec.db.t");
    // the catalog keeps the table the write loaded, so the read asks the catalog for a refresh
    assertThat(read).extracting(Call::call).contains("refresh rec.db.t");
    assertThat(metadata).extracting(Call::call).contains("loadTable db.t.snapshots");
    long driver = ProcessHandle.current().pid();
    for (List<Call> phase : List.of(write, read, metadata)) {
      assertThat(phase).allSatisfy(call -> {
        assertThat(call.pid()).isEqualTo(driver);
        assertThat(call.thread()).doesNotStartWith("Executor task launch worker");
      });
    }
    assertThat(RecordingCatalog.calls(calls)).extracting(Call::thread).containsOnly(Thread.currentThread().getName());
  }

  private static List<Call> since(int start) {
    List<Call> all = RecordingCatalog.calls(calls);
    return all.subList(start, all.size());
  }

  /** The data files under a table of the plain catalog that has never replaced any. */
  private static long countFiles(String table) {
    try (Stream<Path> files = Files.walk(warehouse.resolve("plain/db").resolve(table).resolve("data"))) {
      return files.filter(path -> path.toString().endsWith(".parquet")).count();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void sql(String query, Object... args) {
    spark.sql(String.format(query, args)).collectAsList();
  }

  private static List<List<Object>> rows(String query) {
    List<List<Object>> rows = new ArrayList<>();
    for (Row row : spark.sql(query).collectAsList()) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < row.size(); i += 1) {
        values.add(row.get(i));
      }
      rows.add(values);
    }
    return rows;
  }
}
