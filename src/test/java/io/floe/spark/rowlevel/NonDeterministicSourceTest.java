package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A MERGE whose source is not deterministic: which rows it holds and the values it gives change
 * with every evaluation, so a plan that evaluated it twice and let the evaluations disagree would
 * lose or duplicate rows. The outcome cannot be computed in advance; what must hold under
 * merge-on-read is that every target row is there exactly once, each either unchanged or updated
 * from one source row, that inserted rows are new ids, and that the commit's MERGE metrics count
 * exactly the rows the table shows. Copy-on-write refuses such a source.
 */
class NonDeterministicSourceTest extends RowLevelTestBase {
  private static final int TARGET_ROWS = 300;

  private static final String MERGE =
      "MERGE INTO " + TABLE + " t USING (SELECT id, 1000 + CAST(rand() * 1000 AS INT) AS data,"
          + " CAST(id % 3 AS INT) AS p FROM range(0, 600) WHERE rand() < 0.3) s ON t.id = s.id"
          + " WHEN MATCHED THEN UPDATE SET t.data = s.data"
          + " WHEN NOT MATCHED THEN INSERT *";

  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void mergeOnReadFromARandomSourceKeepsEveryRowOnceAndCountsWhatItDid(int version) {
    createTable("merge-on-read", version);

    sql(MERGE);

    Row counts =
        spark.sql("SELECT count(*), count(DISTINCT id),"
                + " count_if(id < " + TARGET_ROWS + "),"
                + " count_if(id < " + TARGET_ROWS + " AND data = CAST(id AS INT)),"
                + " count_if(id < " + TARGET_ROWS + " AND data BETWEEN 1000 AND 1999),"
                + " count_if(id >= " + TARGET_ROWS + " AND data BETWEEN 1000 AND 1999),"
                + " count_if(p <> CAST(id % 3 AS INT))"
                + " FROM " + TABLE)
            .first();
    long rows = counts.getLong(0);
    long unchanged = counts.getLong(3);
    long updated = counts.getLong(4);
    long inserted = counts.getLong(5);
    assertThat(counts.getLong(1)).as("distinct ids").isEqualTo(rows);
    assertThat(counts.getLong(2)).as("target rows present").isEqualTo(TARGET_ROWS);
    assertThat(unchanged + updated).as("target rows unchanged or updated").isEqualTo(TARGET_ROWS);
    assertThat(inserted).as("inserted rows").isEqualTo(rows - TARGET_ROWS);
    assertThat(counts.getLong(6)).as("rows in the wrong partition").isZero();
    // a 30% sample of 300 target and 300 new ids: none of these is plausibly zero
    assertThat(updated).isPositive();
    assertThat(inserted).isPositive();

    Snapshot merge = current();
    Map<String, String> summary = merge.summary();
    assertThat(summary)
        .containsEntry("spark.merge-into.num-target-rows-matched-updated", String.valueOf(updated))
        .containsEntry("spark.merge-into.num-target-rows-inserted", String.valueOf(inserted));
    List<String> floeRows = tableRows();
    assertThat(icebergRows()).as("Iceberg's generic reader sees the same rows").isEqualTo(floeRows);
  }

  /**
   * Copy-on-write plans the MERGE as Spark's ReplaceData, whose target filter evaluates the source
   * a second time; Spark's analyzer refuses that plan for a source that is not deterministic, so
   * the statement fails before anything is written (docs/row-level.md gives the ways around it).
   */
  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void copyOnWriteRefusesARandomSourceAndChangesNothing(int version) {
    createTable("copy-on-write", version);
    List<String> before = tableRows();
    long snapshot = current().snapshotId();

    assertThatThrownBy(() -> sql(MERGE))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("INVALID_NON_DETERMINISTIC_EXPRESSIONS");

    assertThat(current().snapshotId()).isEqualTo(snapshot);
    assertThat(tableRows()).isEqualTo(before);
  }

  private static void createTable(String mode, int version) {
    create(
        "id BIGINT, data INT, p INT",
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version' = '" + version
            + "', 'write.merge.mode' = '" + mode + "')");
    for (int batch = 0; batch < 3; batch += 1) {
      sql("INSERT INTO " + TABLE + " SELECT id, CAST(id AS INT), CAST(id % 3 AS INT) FROM range("
          + batch * 100 + ", " + (batch + 1) * 100 + ")");
    }
  }
}
