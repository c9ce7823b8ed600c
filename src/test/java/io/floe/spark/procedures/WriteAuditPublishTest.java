package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Write-audit-publish: with {@code write.wap.enabled=true}, a write under the session conf {@code
 * spark.wap.id} is staged (not made current) and {@code publish_changes} publishes it; {@code
 * spark.wap.branch} sends writes to a branch.
 */
class WriteAuditPublishTest extends ProcedureTestBase {

  @AfterEach
  void resetSession() {
    spark.conf().unset("spark.wap.id");
    spark.conf().unset("spark.wap.branch");
  }

  private static void createWapTable(String name) {
    createTable(name);
    sql("ALTER TABLE floe.%s SET TBLPROPERTIES ('write.wap.enabled' = 'true')", name);
  }

  private static List<Snapshot> staged(Table table, String wapId) {
    return StreamSupport.stream(table.snapshots().spliterator(), false)
        .filter(snapshot -> wapId.equals(snapshot.summary().get("wap.id")))
        .collect(Collectors.toList());
  }

  @Test
  void aWriteUnderAWapIdIsStagedThenPublished() {
    createWapTable("wap.staged");
    long main = append("wap.staged", 1);

    spark.conf().set("spark.wap.id", "audit-1");
    sql("INSERT INTO floe.wap.staged VALUES (2, 'v2')");

    Table table = icebergTable("wap.staged");
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(main);
    assertThat(ids("wap.staged")).containsExactly(1L);
    List<Snapshot> staged = staged(table, "audit-1");
    assertThat(staged).hasSize(1);
    assertThat(staged.get(0).summary()).containsKey("floe.commit-id");

    spark.conf().unset("spark.wap.id");
    call("publish_changes('wap.staged', 'audit-1')").collectAsList();

    assertThat(ids("wap.staged")).containsExactly(1L, 2L);
  }

  @Test
  void aRerunWithTheSameCommitIdStagesOnce() throws Exception {
    createWapTable("wap.rerun");
    append("wap.rerun", 1);
    spark.conf().set("spark.wap.id", "audit-2");

    for (int run = 0; run < 2; run++) {
      spark.sql("SELECT CAST(2 AS BIGINT) AS id, 'v2' AS data")
          .writeTo("floe.wap.rerun")
          .option("commit-id", "load-2")
          .append();
    }

    assertThat(staged(icebergTable("wap.rerun"), "audit-2")).hasSize(1);
    assertThat(ids("wap.rerun")).containsExactly(1L);
  }

  @Test
  void aWapBranchReceivesTheWrites() {
    createWapTable("wap.branch");
    long main = append("wap.branch", 1);

    spark.conf().set("spark.wap.branch", "audit");
    sql("INSERT INTO floe.wap.branch VALUES (2, 'v2')");

    Table table = icebergTable("wap.branch");
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(main);
    assertThat(table.snapshot("audit").parentId()).isEqualTo(main);
    assertThat(sql("SELECT id FROM floe.wap.branch VERSION AS OF 'audit' ORDER BY id"))
        .containsExactly(row(1L), row(2L));
    // the session's reads see its WAP branch, other sessions' reads see main
    assertThat(ids("wap.branch")).containsExactly(1L, 2L);
    spark.conf().unset("spark.wap.branch");
    assertThat(ids("wap.branch")).containsExactly(1L);
  }

  @Test
  void bothAWapIdAndAWapBranchAreRefused() {
    createWapTable("wap.both");
    long main = append("wap.both", 1);
    spark.conf().set("spark.wap.id", "audit-3");
    spark.conf().set("spark.wap.branch", "audit");

    assertThatThrownBy(() -> sql("INSERT INTO floe.wap.both VALUES (2, 'v2')"))
        .hasMessageContaining("Cannot set both WAP ID and branch, but got ID [audit-3] and branch [audit]");
    assertThat(icebergTable("wap.both").currentSnapshot().snapshotId()).isEqualTo(main);
  }

  @Test
  void withoutWriteWapEnabledTheWapIdIsIgnored() {
    createTable("wap.plain");
    append("wap.plain", 1);
    spark.conf().set("spark.wap.id", "audit-4");

    sql("INSERT INTO floe.wap.plain VALUES (2, 'v2')");

    assertThat(ids("wap.plain")).containsExactly(1L, 2L);
    assertThat(staged(icebergTable("wap.plain"), "audit-4")).isEmpty();
  }
}
