package io.floe.spark.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Floe tables in S3 through Iceberg's S3FileIO, on a JDBC catalog whose warehouse is a bucket: the
 * data and metadata files land in the bucket, are read back from it, and leave it on DROP ...
 * PURGE. The server is MinIO where Docker runs, S3Proxy in this JVM otherwise.
 */
class S3TablesTest extends SparkTestBase {
  private static final String BUCKET = "floe-s3-tables";
  private static S3Server s3;
  private static Path catalogFolder;

  @BeforeAll
  static void startS3() throws IOException {
    s3 = S3Server.start("floe-test-access", "floe-test-secret-key");
    s3.createBucket(BUCKET);
    catalogFolder = Files.createTempDirectory("floe-s3-catalog");
    String prefix = "spark.sql.catalog.s3";
    spark.conf().set(prefix, io.floe.spark.FloeCatalog.class.getName());
    spark.conf().set(prefix + ".type", "jdbc");
    spark.conf().set(prefix + ".uri", "jdbc:sqlite:" + catalogFolder.resolve("catalog.db"));
    spark.conf().set(prefix + ".jdbc.schema-version", "V1");
    spark.conf().set(prefix + ".warehouse", "s3://" + BUCKET + "/warehouse");
    s3.fileIoOptions(true).forEach((key, value) -> spark.conf().set(prefix + "." + key, value));
    sql("CREATE NAMESPACE s3.db");
  }

  @AfterAll
  static void stopS3() throws IOException {
    if (s3 != null) {
      s3.close();
    }
    deleteRecursively(catalogFolder);
  }

  @Test
  void partitionedInsertLandsInTheBucketAndReadsBack() {
    sql("CREATE TABLE s3.db.events (id BIGINT, kind STRING, ts TIMESTAMP) USING iceberg"
        + " PARTITIONED BY (days(ts), kind)");
    sql("INSERT INTO s3.db.events VALUES"
        + " (1, 'click', TIMESTAMP '2024-01-01 10:00:00'),"
        + " (2, 'view', TIMESTAMP '2024-01-01 11:00:00'),"
        + " (3, 'click', TIMESTAMP '2024-01-02 09:00:00')");

    assertThat(rows("SELECT id, kind FROM s3.db.events ORDER BY id"))
        .containsExactly("1,click", "2,view", "3,click");
    assertThat(rows("SELECT id FROM s3.db.events WHERE kind = 'click' AND ts >= '2024-01-02'"))
        .containsExactly("3");

    List<String> keys = s3.keys(BUCKET, "warehouse/db/events/");
    assertThat(keys.stream().filter(key -> key.contains("/data/")).map(S3TablesTest::partitionFolder))
        .containsExactlyInAnyOrder(
            "ts_day=2024-01-01/kind=click", "ts_day=2024-01-01/kind=view", "ts_day=2024-01-02/kind=click");
    assertThat(keys).anyMatch(key -> key.startsWith("warehouse/db/events/metadata/") && key.endsWith(".metadata.json"));
    assertThat(keys).anyMatch(key -> key.endsWith(".avro"));
  }

  @Test
  void overwriteReplacesTheRowsOfTheWrittenPartitions() {
    sql("CREATE TABLE s3.db.scores (id BIGINT, team STRING) USING iceberg PARTITIONED BY (team)");
    sql("INSERT INTO s3.db.scores VALUES (1, 'red'), (2, 'blue')");
    spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
    try {
      sql("INSERT OVERWRITE s3.db.scores VALUES (3, 'red')");
    } finally {
      spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
    }

    assertThat(rows("SELECT id, team FROM s3.db.scores ORDER BY id")).containsExactly("2,blue", "3,red");
    assertThat(rows("SELECT operation FROM s3.db.scores.snapshots ORDER BY committed_at"))
        .containsExactly("append", "overwrite");

    sql("INSERT OVERWRITE s3.db.scores SELECT 4, 'green'");
    assertThat(rows("SELECT id, team FROM s3.db.scores")).containsExactly("4,green");
  }

  @Test
  void metadataTablesListTheFilesInTheBucket() {
    sql("CREATE TABLE s3.db.items (id BIGINT, name STRING) USING iceberg");
    sql("INSERT INTO s3.db.items VALUES (1, 'a'), (2, 'b')");
    sql("INSERT INTO s3.db.items VALUES (3, 'c')");

    List<String> files = rows("SELECT file_path FROM s3.db.items.files");
    assertThat(files).isNotEmpty().allMatch(path -> path.startsWith("s3://" + BUCKET + "/warehouse/db/items/data/"));
    List<String> dataKeys =
        s3.keys(BUCKET, "warehouse/db/items/data/").stream()
            .map(key -> "s3://" + BUCKET + "/" + key)
            .collect(Collectors.toList());
    assertThat(dataKeys).containsExactlyInAnyOrderElementsOf(files);
    assertThat(rows("SELECT count(*) FROM s3.db.items.snapshots")).containsExactly("2");
    assertThat(rows("SELECT record_count FROM s3.db.items.partitions")).containsExactly("3");
    assertThat(rows("SELECT count(*) FROM s3.db.items.history")).containsExactly("2");
  }

  @Test
  void dropWithPurgeRemovesTheTablesObjects() {
    sql("CREATE TABLE s3.db.doomed (id BIGINT) USING iceberg");
    sql("INSERT INTO s3.db.doomed VALUES (1), (2)");
    assertThat(s3.keys(BUCKET, "warehouse/db/doomed/")).isNotEmpty();

    sql("DROP TABLE s3.db.doomed PURGE");

    assertThat(s3.keys(BUCKET, "warehouse/db/doomed/")).isEmpty();
    assertThat(rows("SHOW TABLES IN s3.db")).doesNotContain("db,doomed,false");
  }

  private static String partitionFolder(String key) {
    String afterData = key.substring(key.indexOf("/data/") + "/data/".length());
    return afterData.substring(0, afterData.lastIndexOf('/'));
  }

  private static List<String> rows(String query) {
    return sql(query).stream().map(S3TablesTest::text).collect(Collectors.toList());
  }

  private static String text(Row row) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < row.size(); i += 1) {
      text.append(i == 0 ? "" : ",").append(row.get(i));
    }
    return text.toString();
  }
}
