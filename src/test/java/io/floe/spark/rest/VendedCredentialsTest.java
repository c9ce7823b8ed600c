package io.floe.spark.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.s3.InProcessS3;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A Floe catalog on a REST catalog that vends S3 credentials living three seconds per table: the
 * Spark catalog names no S3 keys at all, and a write and a scan that run longer than a credential
 * lives still succeed, because S3FileIO renews them through the table's credentials endpoint. The
 * S3 server is always S3Proxy in this JVM, which accepts each vended key only until its expiry.
 */
class VendedCredentialsTest extends SparkTestBase {
  private static final String BUCKET = "floe-vended";
  private static final Duration CREDENTIAL_LIFETIME = Duration.ofSeconds(3);
  private static final long SLOW_ROW_MILLIS = 150;
  private static InProcessS3 s3;
  private static RestCatalogServer server;
  private static Path folder;

  @BeforeAll
  static void startServers() throws IOException {
    s3 = InProcessS3.start("floe-rest-server-key", "floe-rest-server-secret");
    s3.createBucket(BUCKET);
    folder = Files.createTempDirectory("floe-rest-vended");
    server =
        RestCatalogServer.builder(folder, "s3://" + BUCKET + "/warehouse")
            .backendStorage(s3.fileIoOptions(true))
            .clientStorage(s3.fileIoOptions(false))
            .vendCredentials(s3, CREDENTIAL_LIFETIME)
            .start();
    spark.conf().set("spark.sql.catalog.rest", FloeCatalog.class.getName());
    server.catalogOptions().forEach((key, value) -> spark.conf().set("spark.sql.catalog.rest." + key, value));
    spark.udf()
        .register(
            "slow_id",
            (UDF1<Long, Long>)
                id -> {
                  Thread.sleep(SLOW_ROW_MILLIS);
                  return id;
                },
            DataTypes.LongType);
    sql("CREATE NAMESPACE rest.db");
  }

  @AfterAll
  static void stopServers() throws IOException {
    RestCatalogServer.closeCatalog(spark, "rest");
    if (server != null) {
      server.close();
    }
    if (s3 != null) {
      s3.close();
    }
    deleteRecursively(folder);
  }

  @Test
  void writeRunningPastTheCredentialLifetimeSucceeds() {
    sql("CREATE TABLE rest.db.slow_write (id BIGINT) USING iceberg");
    long rows = 2 * CREDENTIAL_LIFETIME.toMillis() / SLOW_ROW_MILLIS;

    long start = System.nanoTime();
    sql("INSERT INTO rest.db.slow_write SELECT slow_id(id) FROM range(0, %d, 1, 1)", rows);
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(took).isGreaterThan(CREDENTIAL_LIFETIME);
    assertThat(sql("SELECT count(*), sum(id) FROM rest.db.slow_write").get(0).toString())
        .isEqualTo("[" + rows + "," + rows * (rows - 1) / 2 + "]");
    assertThat(s3.keys(BUCKET, "warehouse/db/slow_write/data/")).isNotEmpty();
    assertUsedOnlyVendedKeys();
  }

  @Test
  void scanRunningPastTheCredentialLifetimeSucceeds() {
    sql("CREATE TABLE rest.db.slow_read (id BIGINT) USING iceberg");
    long perFile = CREDENTIAL_LIFETIME.toMillis() / SLOW_ROW_MILLIS / 2;
    for (int file = 0; file < 4; file += 1) {
      sql("INSERT INTO rest.db.slow_read SELECT id FROM range(%d, %d, 1, 1)", file * perFile, (file + 1) * perFile);
    }
    int refreshesBefore = server.credentialRequests();

    long start = System.nanoTime();
    // one task reads the four files one after the other, slowly
    List<org.apache.spark.sql.Row> result =
        sql("SELECT count(*), sum(slow_id(id)) FROM rest.db.slow_read WITH ('split-size' = '1073741824')");
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    long rows = 4 * perFile;
    assertThat(result.get(0).toString()).isEqualTo("[" + rows + "," + rows * (rows - 1) / 2 + "]");
    assertThat(took).isGreaterThan(CREDENTIAL_LIFETIME);
    assertThat(server.credentialRequests()).isGreaterThan(refreshesBefore);
    assertUsedOnlyVendedKeys();
  }

  @Test
  void anExpiredVendedKeyIsRefusedByTheS3Server() throws InterruptedException {
    sql("CREATE TABLE rest.db.expiry (id BIGINT) USING iceberg");
    sql("INSERT INTO rest.db.expiry VALUES (1)");
    List<String> vended = server.vendor().vendedValues();
    String accessKey = vended.get(vended.size() - 3);
    String secret = vended.get(vended.size() - 2);

    Thread.sleep(CREDENTIAL_LIFETIME.toMillis() + 200);

    try (S3Client client = s3.client(accessKey, secret)) {
      assertThatThrownBy(() -> client.listObjectsV2(request -> request.bucket(BUCKET)))
          .isInstanceOf(S3Exception.class)
          .hasMessageContaining("Status Code: 403");
    }
    assertThat(sql("SELECT id FROM rest.db.expiry").get(0).getLong(0)).isEqualTo(1L);
  }

  /** Floe's reads and writes signed only with vended keys; the server's own key stayed server-side. */
  private static void assertUsedOnlyVendedKeys() {
    assertThat(server.vendor().vendedFor()).isNotEmpty();
    assertThat(server.vendor().vendedValues()).containsAll(
        s3.usedKeys().stream().filter(key -> !key.equals(s3.accessKey())).toList());
    assertThat(s3.usedKeys().stream().filter(key -> !key.equals(s3.accessKey())).count())
        .as("distinct vended keys S3 accepted")
        .isGreaterThanOrEqualTo(2);
  }
}
