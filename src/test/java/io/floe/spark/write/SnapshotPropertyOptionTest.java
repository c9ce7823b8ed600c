package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.catalog.TestCatalog;
import io.floe.spark.commit.Committer;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The official runtime's {@code snapshot-property.<key>} write option and its session confs: the
 * entries land in the commit's snapshot summary, and {@code floe.commit-id} cannot be overridden.
 */
class SnapshotPropertyOptionTest extends CatalogTestBase {

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  @BeforeEach
  void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.props (id BIGINT, data STRING) USING iceberg");
  }

  @AfterEach
  void dropTable() {
    sql("DROP TABLE IF EXISTS floe.db.props");
    spark.conf().unset("spark.sql.iceberg.snapshot-property.source");
    spark.conf().unset("spark.floe.write.snapshot-property.source");
    spark.conf().unset("spark.sql.iceberg.snapshot-property.team");
  }

  @Test
  void snapshotPropertyOptionsGoIntoTheSummaryBesideTheCommitId() throws Exception {
    spark.sql("SELECT 1L AS id, 'a' AS data")
        .writeTo("floe.db.props")
        .option("snapshot-property.job", "nightly-load")
        .option("snapshot-property.run.attempt", "3")
        .option("commit-id", "props-1")
        .append();

    Map<String, String> summary = latest().summary();
    assertThat(summary)
        .containsEntry("job", "nightly-load")
        .containsEntry("run.attempt", "3")
        .containsEntry(Committer.COMMIT_ID_KEY, "props-1");
  }

  @Test
  void sessionConfsOfBothRuntimesSetPropertiesAndTheWriteOptionWins() throws Exception {
    spark.conf().set("spark.sql.iceberg.snapshot-property.source", "iceberg-conf");
    spark.conf().set("spark.sql.iceberg.snapshot-property.team", "data");
    spark.conf().set("spark.floe.write.snapshot-property.source", "floe-conf");

    sql("INSERT INTO floe.db.props VALUES (1, 'a')");
    assertThat(latest().summary()).containsEntry("source", "floe-conf").containsEntry("team", "data");

    spark.sql("SELECT 2L AS id, 'b' AS data")
        .writeTo("floe.db.props")
        .option("snapshot-property.source", "option")
        .append();
    assertThat(latest().summary()).containsEntry("source", "option").containsEntry("team", "data");
  }

  @Test
  void aSnapshotPropertyNamingTheCommitIdKeyIsRefusedAndNothingIsCommitted() {
    assertThatThrownBy(
            () ->
                spark.sql("SELECT 1L AS id, 'a' AS data")
                    .writeTo("floe.db.props")
                    .option("snapshot-property.floe.commit-id", "mine")
                    .append())
        .hasMessageContaining("floe.db.props")
        .hasMessageContaining("'snapshot-property.floe.commit-id' cannot set floe.commit-id");
    assertThat(snapshots("db.props")).isEmpty();
    assertThat(dataFilesOnDisk(icebergTable("db.props").location())).isEmpty();
  }

  @Test
  void aSnapshotPropertyNamingAKeyIcebergRecordsIsRefusedAndNothingIsCommitted() {
    assertThatThrownBy(
            () ->
                spark.sql("SELECT 1L AS id, 'a' AS data")
                    .writeTo("floe.db.props")
                    .option("snapshot-property.added-records", "5")
                    .append())
        .hasMessageContaining(
            "option 'snapshot-property.added-records' cannot set added-records, which Iceberg itself"
                + " records in the snapshot summary");
    assertThatThrownBy(
            () ->
                spark.sql("SELECT 1L AS id, 'a' AS data")
                    .writeTo("floe.db.props")
                    .option("snapshot-property.partitions.p=1", "x")
                    .append())
        .hasMessageContaining("cannot set partitions.p=1");
    assertThat(snapshots("db.props")).isEmpty();
    assertThat(dataFilesOnDisk(icebergTable("db.props").location())).isEmpty();
  }

  @Test
  void otherUnknownWriteOptionsAreStillRejected() {
    assertThatThrownBy(
            () ->
                spark.sql("SELECT 1L AS id, 'a' AS data")
                    .writeTo("floe.db.props")
                    .option("snapshot-propertyx", "1")
                    .append())
        .hasMessageContaining("unknown write option(s) [snapshot-propertyx]")
        .hasMessageContaining("those starting with [snapshot-property.]");
    assertThat(snapshots("db.props")).isEmpty();
  }

  private static Snapshot latest() {
    return icebergTable("db.props").currentSnapshot();
  }
}
