package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.serialization.Travel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The procedures that run Spark jobs (rewrite_data_files, remove_orphan_files, add_files,
 * compute_table_stats, rewrite_position_delete_files, create_changelog_view, rewrite_table_path) in a
 * session with {@code spark.kryo.registrationRequired=true} and Floe's registrator: everything
 * their tasks ship and return is registered.
 */
class ProceduresUnderStrictKryoTest {
  private static SparkSession spark;
  private static Path warehouse;

  @BeforeAll
  static void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-kryo-procedures");
    spark = Travel.strictKryoFloeSession("floe-strict-kryo-procedures", warehouse.resolve("wh"));
  }

  @AfterAll
  static void stopSpark() throws IOException {
    Travel.stopAndDelete(spark, warehouse);
    spark = null;
  }

  private static List<Row> sql(String text, Object... args) {
    return spark.sql(String.format(text, args)).collectAsList();
  }

  private static long count(String table) {
    return sql("SELECT count(*) FROM %s", table).get(0).getLong(0);
  }

  @Test
  void compactionOrphanCleanupAndImportRunWithRegistrationRequired() {
    sql("CREATE NAMESPACE floe.db");
    sql("CREATE TABLE floe.db.t (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)");
    for (int i = 0; i < 5; i++) {
      sql("INSERT INTO floe.db.t SELECT id, CASE WHEN id %% 2 = 0 THEN 'a' ELSE 'b' END "
          + "FROM range(%d, %d)", i * 10, i * 10 + 10);
    }
    assertThat(sql("CALL floe.system.rewrite_data_files('db.t')").get(0).getInt(0)).isEqualTo(10);
    assertThat(sql("CALL floe.system.rewrite_data_files(table => 'db.t', strategy => 'sort', "
            + "sort_order => 'id DESC', options => map('rewrite-all', 'true'))").get(0).getInt(1))
        .isEqualTo(2);
    assertThat(count("floe.db.t")).isEqualTo(50L);
    assertThat(sql("SELECT sum(id) FROM floe.db.t").get(0).getLong(0)).isEqualTo(1225L);

    assertThat(sql("CALL floe.system.remove_orphan_files(table => 'db.t', dry_run => true)"))
        .isEmpty();

    String dir = warehouse.resolve("src").toUri().toString();
    spark.sql("SELECT id, 'a' AS cat FROM range(100, 110)").coalesce(1).write().parquet(dir);
    sql("CREATE TABLE floe.db.flat (id BIGINT, cat STRING) USING iceberg");
    assertThat(sql("CALL floe.system.add_files('db.flat', '`parquet`.`%s`')", dir).get(0).getLong(0))
        .isEqualTo(1L);
    assertThat(sql("SELECT sum(id) FROM floe.db.flat").get(0).getLong(0)).isEqualTo(1045L);
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    assertThat(catalog.icebergCatalog().loadTable(TableIdentifier.parse("db.flat")).currentSnapshot())
        .isNotNull();

    assertThat(sql("CALL floe.system.compute_table_stats('db.t')").get(0).getString(0))
        .endsWith(".stats");

    sql("CREATE TABLE floe.db.v2 (id BIGINT) USING iceberg TBLPROPERTIES ('format-version' = '2')");
    sql("INSERT INTO floe.db.v2 SELECT /*+ REPARTITION(1) */ id FROM range(0, 10)");
    org.apache.iceberg.Table v2 = io.floe.spark.read.ReadTestSupport.icebergTable(spark, "db.v2");
    org.apache.iceberg.DataFile file = io.floe.spark.read.ReadTestSupport.dataFiles(v2).get(0);
    for (long pos = 0; pos < 2; pos++) {
      v2.newRowDelta()
          .addDeletes(io.floe.spark.read.ReadTestSupport.positionDeletes(v2, file, List.of(pos)))
          .commit();
    }
    assertThat(sql("CALL floe.system.rewrite_position_delete_files(table => 'db.v2', "
            + "options => map('rewrite-all', 'true'))").get(0).getInt(0))
        .isEqualTo(2);
    assertThat(count("floe.db.v2")).isEqualTo(8L);
  }

  @Test
  void theChangelogAndCreateChangelogViewRunWithRegistrationRequired() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.cdc");
    sql("CREATE TABLE floe.cdc.t (id BIGINT, data STRING) USING iceberg");
    sql("INSERT INTO floe.cdc.t SELECT /*+ REPARTITION(1) */ id, CAST(id AS STRING) FROM range(0, 6)");
    sql("UPDATE floe.cdc.t SET data = 'x' WHERE id = 2");
    List<Row> snapshots = sql("SELECT snapshot_id FROM floe.cdc.t.snapshots ORDER BY committed_at");
    long first = snapshots.get(0).getLong(0);
    long second = snapshots.get(1).getLong(0);
    // the copy-on-write UPDATE rewrote the file: all six rows deleted, six inserted
    assertThat(sql("SELECT _change_type, count(*) FROM floe.cdc.t.changes WHERE _change_ordinal = 1 "
            + "GROUP BY _change_type ORDER BY _change_type").toString())
        .isEqualTo("[[DELETE,6], [INSERT,6]]");
    sql("CALL floe.system.create_changelog_view(table => 'cdc.t', identifier_columns => array('id'))");
    List<String> view = new java.util.ArrayList<>();
    sql("SELECT id, data, _change_type FROM t_changes WHERE _change_ordinal = 1")
        .forEach(row -> view.add(row.toString()));
    view.sort(null);
    List<String> expected = new java.util.ArrayList<>();
    sql("SELECT id, data, 'UPDATE_BEFORE' FROM (SELECT * FROM floe.cdc.t VERSION AS OF %d "
            + "EXCEPT ALL SELECT * FROM floe.cdc.t VERSION AS OF %d) UNION ALL "
            + "SELECT id, data, 'UPDATE_AFTER' FROM (SELECT * FROM floe.cdc.t VERSION AS OF %d "
            + "EXCEPT ALL SELECT * FROM floe.cdc.t VERSION AS OF %d)", first, second, second, first)
        .forEach(row -> expected.add(row.toString()));
    expected.sort(null);
    assertThat(view).isEqualTo(expected).hasSize(2);
  }

  @Test
  void rewriteTablePathRunsItsManifestAndDeleteJobsWithRegistrationRequired() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.paths (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat) "
        + "TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')");
    sql("INSERT INTO floe.db.paths SELECT id, CASE WHEN id %% 2 = 0 THEN 'a' ELSE 'b' END "
        + "FROM range(0, 20)");
    sql("DELETE FROM floe.db.paths WHERE id = 4");
    org.apache.iceberg.Table table = io.floe.spark.read.ReadTestSupport.icebergTable(spark, "db.paths");
    String metadata =
        ((org.apache.iceberg.HasTableOperations) table).operations().current().metadataFileLocation();
    String prefix = metadata.substring(0, metadata.lastIndexOf("/metadata/"));

    Row result =
        sql("CALL floe.system.rewrite_table_path('db.paths', '%s', '%s')",
                prefix, warehouse.resolve("copy").toUri())
            .get(0);

    assertThat(result.getInt(2)).isEqualTo(2);
    assertThat(result.getInt(3)).isEqualTo(1);
    assertThat(sql("CALL floe.system.compute_partition_stats('db.paths')").get(0).getString(0))
        .contains("partition-stats");
  }
}
