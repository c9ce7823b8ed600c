package io.floe.spark.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Floe catalog on a real REST catalog server that authenticates with OAuth2 client credentials
 * and hands out tokens that live two seconds: a long-lived driver keeps planning and committing
 * because Iceberg's client refreshes the token, and it recovers when the server rejects a refresh.
 */
class RestOAuthTest extends SparkTestBase {
  private static final Duration TOKEN_LIFETIME = Duration.ofSeconds(2);
  private static RestCatalogServer server;
  private static Path folder;

  @BeforeAll
  static void startServer() throws IOException {
    folder = Files.createTempDirectory("floe-rest-oauth");
    server =
        RestCatalogServer.builder(folder, folder.resolve("warehouse").toUri().toString())
            .tokenLifetime(TOKEN_LIFETIME)
            .start();
    spark.conf().set("spark.sql.catalog.rest", FloeCatalog.class.getName());
    server.catalogOptions().forEach((key, value) -> spark.conf().set("spark.sql.catalog.rest." + key, value));
    sql("CREATE NAMESPACE rest.db");
  }

  @AfterAll
  static void stopServer() throws IOException {
    RestCatalogServer.closeCatalog(spark, "rest");
    if (server != null) {
      server.close();
    }
    deleteRecursively(folder);
  }

  @Test
  void driverKeepsPlanningAndCommittingForSeveralTokenLifetimes() {
    sql("CREATE TABLE rest.db.ticks (id BIGINT) USING iceberg");
    int refreshesBefore = server.tokens().refreshes();
    long start = System.nanoTime();
    long rows = 0;
    while (Duration.ofNanos(System.nanoTime() - start).compareTo(TOKEN_LIFETIME.multipliedBy(4)) < 0) {
      sql("INSERT INTO rest.db.ticks VALUES (%d)", rows);
      rows += 1;
      assertThat(sql("SELECT count(*) FROM rest.db.ticks").get(0).getLong(0)).isEqualTo(rows);
      sleep(500);
    }

    assertThat(rows).isGreaterThan(1);
    assertThat(sql("SELECT count(*) FROM rest.db.ticks.snapshots").get(0).getLong(0)).isEqualTo(rows);
    assertThat(server.tokens().refreshes() - refreshesBefore)
        .as("token refresh requests while the driver ran")
        .isGreaterThanOrEqualTo(2);
  }

  @Test
  void driverRecoversAfterTheServerRejectsOneRefresh() {
    sql("CREATE TABLE rest.db.retries (id BIGINT) USING iceberg");
    server.tokens().failNextRefresh();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (server.tokens().rejectedRefreshes() == 0 && System.nanoTime() < deadline) {
      sleep(100);
    }
    assertThat(server.tokens().rejectedRefreshes()).as("refreshes the server rejected").isEqualTo(1);
    int refreshesAtRejection = server.tokens().refreshes();
    // outlive the token that was current when the refresh failed
    sleep(TOKEN_LIFETIME.toMillis() + 500);

    sql("INSERT INTO rest.db.retries VALUES (1), (2)");

    assertThat(sql("SELECT sum(id) FROM rest.db.retries").get(0).getLong(0)).isEqualTo(3L);
    assertThat(server.tokens().refreshes()).isGreaterThan(refreshesAtRejection);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
