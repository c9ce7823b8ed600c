package io.floe.spark.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.FloeKryoRegistrator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * S3 tables written and read by executors in their own JVM ({@code local-cluster[1,1,1024]}, strict
 * Kryo): the S3FileIO settings travel inside Floe's plan pieces, and the executor reaches the S3
 * server with them.
 */
@Tag("distributed")
class S3OnClusterTest {
  private static final String BUCKET = "floe-s3-cluster";
  private static S3Server s3;
  private static Path folder;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws IOException {
    String home = System.getenv("SPARK_HOME");
    if (home == null || System.getenv("SPARK_SCALA_VERSION") == null) {
      throw new IllegalStateException(
          "Cannot start local-cluster: set SPARK_HOME and SPARK_SCALA_VERSION=2.13; the Maven build sets both");
    }
    Files.createDirectories(Paths.get(home, "jars"));
    s3 = S3Server.start("floe-cluster-access", "floe-cluster-secret-key");
    s3.createBucket(BUCKET);
    folder = Files.createTempDirectory("floe-s3-cluster");
    String catalog = "spark.sql.catalog.s3";
    SparkConf conf =
        new SparkConf(false)
            .setMaster("local-cluster[1,1,1024]")
            .setAppName("floe-s3-cluster")
            .set("spark.ui.enabled", "false")
            .set("spark.driver.host", "127.0.0.1")
            .set("spark.sql.shuffle.partitions", "2")
            .set("spark.serializer", KryoSerializer.class.getName())
            .set("spark.kryo.registrationRequired", "true")
            .set("spark.kryo.registrator", FloeKryoRegistrator.class.getName())
            .set("spark.executor.extraClassPath", System.getProperty("java.class.path"))
            .set("spark.executor.memory", "1g")
            .set(catalog, FloeCatalog.class.getName())
            .set(catalog + ".type", "jdbc")
            .set(catalog + ".uri", "jdbc:sqlite:" + folder.resolve("catalog.db"))
            .set(catalog + ".jdbc.schema-version", "V1")
            .set(catalog + ".warehouse", "s3://" + BUCKET + "/warehouse");
    s3.fileIoOptions(true).forEach((key, value) -> conf.set(catalog + "." + key, value));
    spark = SparkSession.builder().config(conf).getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
  }

  @AfterAll
  static void stop() throws IOException {
    if (spark != null) {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
    if (s3 != null) {
      s3.close();
    }
    if (folder != null) {
      try (Stream<Path> files = Files.walk(folder)) {
        files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
      }
    }
  }

  @Test
  void executorJvmsWriteAndReadTheTablesFilesInS3() {
    spark.sql("CREATE NAMESPACE s3.db");
    spark.sql("CREATE TABLE s3.db.events (id BIGINT, kind STRING) USING iceberg PARTITIONED BY (kind)");
    spark.sql("INSERT INTO s3.db.events SELECT id, IF(id % 2 = 0, 'even', 'odd') FROM range(0, 1000, 1, 2)");

    List<String> counts =
        spark.sql("SELECT kind, count(*), sum(id) FROM s3.db.events GROUP BY kind ORDER BY kind").collectAsList()
            .stream()
            .map(Object::toString)
            .collect(Collectors.toList());

    assertThat(counts).containsExactly("[even,500,249500]", "[odd,500,250000]");
    assertThat(s3.keys(BUCKET, "warehouse/db/events/data/"))
        .anyMatch(key -> key.contains("/kind=even/"))
        .anyMatch(key -> key.contains("/kind=odd/"));
  }
}
