package io.floe.spark.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Floe's tables are never stale when loaded, and Spark's cache manager still decides what a cached
 * table shows: a cached table keeps its cached rows when another writer (here a second catalog
 * over the same warehouse, which Spark's cache knows nothing of) changes it, until {@code REFRESH
 * TABLE}, which caches the new state; a write through the same catalog refreshes the cache itself.
 */
class SparkCacheInteropTest extends SparkTestBase {
  @BeforeAll
  static void secondCatalog() {
    spark.conf().set("spark.sql.catalog.other", FloeCatalog.class.getName());
    spark.conf().set("spark.sql.catalog.other.type", "hadoop");
    spark.conf().set("spark.sql.catalog.other.warehouse", warehouse.toUri().toString());
    sql("CREATE NAMESPACE IF NOT EXISTS floe.cached");
  }

  @Test
  void aCachedTableKeepsItsRowsUntilRefreshedAndThenCachesTheNewState() {
    sql("CREATE TABLE floe.cached.t (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.cached.t VALUES (1), (2), (3)");
    sql("CACHE TABLE floe.cached.t");
    try {
      assertThat(count("floe.cached.t")).isEqualTo(3L);

      sql("INSERT INTO other.cached.t VALUES (4)");
      assertThat(count("other.cached.t")).isEqualTo(4L);
      assertThat(count("floe.cached.t")).isEqualTo(3L);
      assertThat(spark.catalog().isCached("floe.cached.t")).isTrue();

      sql("REFRESH TABLE floe.cached.t");
      assertThat(spark.catalog().isCached("floe.cached.t")).isTrue();
      assertThat(count("floe.cached.t")).isEqualTo(4L);
      assertThat(cachedScans("SELECT * FROM floe.cached.t")).isTrue();
    } finally {
      sql("UNCACHE TABLE IF EXISTS floe.cached.t");
    }
  }

  @Test
  void aWriteThroughTheSameCatalogRefreshesTheCachedTable() {
    sql("CREATE TABLE floe.cached.w (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.cached.w VALUES (1), (2)");
    sql("CACHE TABLE floe.cached.w");
    try {
      assertThat(count("floe.cached.w")).isEqualTo(2L);
      sql("INSERT INTO floe.cached.w VALUES (3)");
      assertThat(count("floe.cached.w")).isEqualTo(3L);
      assertThat(cachedScans("SELECT * FROM floe.cached.w")).isTrue();
    } finally {
      sql("UNCACHE TABLE IF EXISTS floe.cached.w");
    }
  }

  @Test
  void aCachedDataFrameOfAnOlderSnapshotIsNotServedForTheCurrentTable() {
    sql("CREATE TABLE floe.cached.v (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.cached.v VALUES (1)");
    long first = spark.sql("SELECT snapshot_id FROM floe.cached.v.snapshots").first().getLong(0);
    sql("INSERT INTO floe.cached.v VALUES (2)");
    var old = spark.sql("SELECT * FROM floe.cached.v VERSION AS OF " + first);
    old.cache();
    try {
      assertThat(old.count()).isEqualTo(1L);
      assertThat(count("floe.cached.v")).isEqualTo(2L);
    } finally {
      old.unpersist();
    }
  }

  @Test
  void aTableDroppedAndCreatedAgainElsewhereIsNotRefreshedIntoTheOldCacheEntry() throws Exception {
    sql("CREATE TABLE floe.cached.r (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.cached.r VALUES (1), (2)");
    String firstId = ((FloeTable) ((io.floe.spark.FloeCatalog) spark.sessionState().catalogManager()
            .catalog("floe")).loadTable(org.apache.spark.sql.connector.catalog.Identifier.of(
                new String[] {"cached"}, "r"))).id();
    assertThat(firstId).isNotBlank();
    sql("CACHE TABLE floe.cached.r");
    try {
      sql("DROP TABLE other.cached.r");
      sql("CREATE TABLE other.cached.r (id BIGINT) USING iceberg");
      sql("INSERT INTO other.cached.r VALUES (7)");

      sql("REFRESH TABLE floe.cached.r");

      assertThat(sql("SELECT id FROM floe.cached.r").toString()).isEqualTo("[[7]]");
      String secondId = ((FloeTable) ((io.floe.spark.FloeCatalog) spark.sessionState().catalogManager()
              .catalog("floe")).loadTable(org.apache.spark.sql.connector.catalog.Identifier.of(
                  new String[] {"cached"}, "r"))).id();
      assertThat(secondId).isNotEqualTo(firstId);
    } finally {
      sql("UNCACHE TABLE IF EXISTS floe.cached.r");
    }
  }

  private static long count(String table) {
    return spark.sql("SELECT count(*) FROM " + table).first().getLong(0);
  }

  private static boolean cachedScans(String query) {
    return spark.sql(query).queryExecution().executedPlan().toString().contains("In-memory table");
  }
}
