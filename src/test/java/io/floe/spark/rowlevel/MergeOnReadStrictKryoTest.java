package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.distributed.RecordingCatalog;
import io.floe.spark.distributed.RecordingCatalog.Call;
import io.floe.spark.serialization.Travel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Merge-on-read DELETE, UPDATE and MERGE in a session with {@code
 * spark.kryo.registrationRequired=true} and Floe's registrator: the pieces they ship (writer
 * factory, writer settings with the previous deletion vectors, task results) are all registered,
 * and only the driver calls the catalog.
 */
class MergeOnReadStrictKryoTest {
  private static SparkSession spark;
  private static Path warehouse;
  private static Path calls;

  @BeforeAll
  static void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-mor-kryo");
    calls = warehouse.resolve("catalog-calls.log");
    SparkConf conf =
        Travel.withRecordingCatalog(
            Travel.strictKryoLocalConf("floe-mor-strict-kryo"),
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
  void deleteUpdateAndMergeRunWithRegistrationRequiredAndOnlyTheDriverCallsTheCatalog() {
    sql("CREATE NAMESPACE rec.db");
    sql("CREATE TABLE rec.db.t (id BIGINT, part STRING) USING iceberg PARTITIONED BY (part)"
        + " TBLPROPERTIES ('format-version' = '3', 'write.delete.mode' = 'merge-on-read',"
        + " 'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')");
    sql("INSERT INTO rec.db.t SELECT id, cast(id % 4 AS STRING) FROM range(0, 400, 1, 4)");
    int start = RecordingCatalog.calls(calls).size();

    sql("DELETE FROM rec.db.t WHERE id % 10 = 0");
    // the second delete merges the first one's deletion vectors, shipped to the executors
    sql("DELETE FROM rec.db.t WHERE id % 10 = 1");
    sql("UPDATE rec.db.t SET id = id + 1000 WHERE id % 10 = 2");
    sql("MERGE INTO rec.db.t t USING (SELECT id, '9' AS part FROM range(395, 405)) s ON t.id = s.id"
        + " WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *");
    List<Call> phase = RecordingCatalog.calls(calls).subList(start, RecordingCatalog.calls(calls).size());

    // 400 rows, less 40 + 40 deleted, 40 updated in place, 395-399 deleted less those gone already
    // (395-399 end in 5-9: none), and 400-404 inserted
    assertThat(count("SELECT count(*) FROM rec.db.t")).isEqualTo(400 - 80 - 5 + 5);
    assertThat(count("SELECT count(*) FROM rec.db.t WHERE id >= 1000")).isEqualTo(40);
    assertThat(count("SELECT count(*) FROM rec.db.t WHERE id % 10 IN (0, 1) AND id < 400"))
        .isZero();
    assertThat(phase).extracting(Call::call).contains("commit rec.db.t");
    long driver = ProcessHandle.current().pid();
    assertThat(phase).allSatisfy(call -> {
      assertThat(call.pid()).isEqualTo(driver);
      assertThat(call.thread()).doesNotStartWith("Executor task launch worker");
    });
  }

  private static long count(String query) {
    Row row = spark.sql(query).collectAsList().get(0);
    return row.getLong(0);
  }

  private static void sql(String query) {
    spark.sql(query).collectAsList();
  }
}
