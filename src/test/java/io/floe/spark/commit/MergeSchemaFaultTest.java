package io.floe.spark.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code merge-schema} write, whose schema change and snapshot commit in one transaction, under
 * the faults of {@link FaultInjectingCatalog}: a lost answer counts as committed once the id is
 * found, a conflict is retried, a lost request fails as unknown and keeps its files. Expected rows
 * are the same rows in temporary views.
 */
class MergeSchemaFaultTest extends SparkTestBase {
  private static final String CATALOG = "faulty_merge";
  private static final AtomicInteger TABLES = new AtomicInteger();
  private static String table;

  @BeforeAll
  static void configureCatalog() {
    spark.conf().set("spark.sql.catalog." + CATALOG, FloeCatalog.class.getName());
    spark.conf().set("spark.sql.catalog." + CATALOG + ".catalog-impl", FaultInjectingCatalog.class.getName());
    spark.conf().set("spark.sql.catalog." + CATALOG + ".delegate-type", "hadoop");
    spark.conf().set("spark.sql.catalog." + CATALOG + ".warehouse", warehouse.resolve("faulty").toUri().toString());
  }

  @BeforeEach
  void createTable() {
    FaultInjectingCatalog.clear();
    table = "db.m" + TABLES.incrementAndGet();
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
    sql(
        "CREATE TABLE %s.%s (id BIGINT, data STRING) USING iceberg"
            + " TBLPROPERTIES ('write.spark.accept-any-schema' = 'true')",
        CATALOG, table);
    sql("INSERT INTO %s.%s SELECT id, CAST(id AS STRING) AS data FROM range(0, 5)", CATALOG, table);
  }

  private static Table icebergTable() {
    FloeCatalog floe = (FloeCatalog) spark.sessionState().catalogManager().catalog(CATALOG);
    return floe.icebergCatalog().loadTable(TableIdentifier.parse(table));
  }

  private static void mergeWrite(String commitId) throws Exception {
    Dataset<Row> data =
        spark.sql("SELECT id, CAST(id AS STRING) AS data, id * 2 AS twice FROM range(5, 10)");
    data.writeTo(CATALOG + "." + table).option("merge-schema", "true").option("commit-id", commitId).append();
  }

  private static void assertMerged(String commitId) {
    Table merged = icebergTable();
    assertThat(merged.schema().findField("twice")).isNotNull();
    assertThat(TableFiles.snapshotsWithId(merged, commitId)).hasSize(1);
    assertThat(TableFiles.snapshotCount(merged)).isEqualTo(2);
    assertThat(TableFiles.missingDataFiles(merged)).isEmpty();
    assertThat(TableFiles.unreferencedDataFiles(merged)).isEmpty();
    assertThat(sql("SELECT * FROM %s.%s ORDER BY id", CATALOG, table))
        .containsExactlyElementsOf(
            sql("SELECT id, CAST(id AS STRING), IF(id < 5, NULL, id * 2) FROM range(0, 10) ORDER BY id"));
  }

  @Test
  void aLostAnswerCountsAsCommittedAndARerunAddsNothing() throws Exception {
    FaultInjectingCatalog.inject(CATALOG, table, FaultInjectingCatalog.COMMIT_THEN_UNKNOWN);

    mergeWrite("merge-lost");
    mergeWrite("merge-lost");

    assertMerged("merge-lost");
  }

  @Test
  void aConflictIsRetriedAndCommitsOnce() throws Exception {
    FaultInjectingCatalog.inject(CATALOG, table, FaultInjectingCatalog.CONFLICT_BEFORE_COMMIT);

    mergeWrite("merge-retried");

    assertMerged("merge-retried");
  }

  @Test
  void aLostRequestFailsAsUnknownKeepsItsFilesAndARerunCommits() throws Exception {
    FaultInjectingCatalog.inject(CATALOG, table, FaultInjectingCatalog.UNKNOWN_WITHOUT_COMMIT);

    assertThatThrownBy(() -> mergeWrite("merge-unknown")).hasStackTraceContaining("merge-unknown");
    Table after = icebergTable();
    assertThat(after.schema().findField("twice")).isNull();
    assertThat(TableFiles.dataFilesOnDisk(after)).hasSizeGreaterThan(TableFiles.referencedDataFiles(after).size());

    mergeWrite("merge-unknown");
    Table merged = icebergTable();
    assertThat(merged.schema().findField("twice")).isNotNull();
    assertThat(TableFiles.snapshotsWithId(merged, "merge-unknown")).hasSize(1);
    assertThat(sql("SELECT * FROM %s.%s ORDER BY id", CATALOG, table))
        .containsExactlyElementsOf(
            sql("SELECT id, CAST(id AS STRING), IF(id < 5, NULL, id * 2) FROM range(0, 10) ORDER BY id"));
  }
}
