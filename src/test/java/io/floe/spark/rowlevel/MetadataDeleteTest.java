package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DELETEs that remove whole files without a job (one DeleteFiles), and DELETEs that look as if
 * they might but hold a row whose condition is NULL, which Spark keeps: those must be rewritten
 * row by row. Every outcome is compared with Spark's answer over a view of the same rows.
 */
class MetadataDeleteTest extends RowLevelTestBase {

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(strings = {"2", "3"})
  void deletingWholePartitionsRunsNoJobAndWritesNoFile(String version) {
    create(
        "id BIGINT, data STRING, p INT",
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version'='" + version + "')",
        "(1, 'a', 1), (2, NULL, 1), (3, 'c', 2)",
        "(4, 'd', 2), (5, NULL, NULL), (6, 'f', 3)");
    Snapshot before = current();
    Set<String> kept =
        liveDataFiles().stream()
            .filter(file -> !Integer.valueOf(2).equals(file.partition().get(0, Integer.class)))
            .map(DataFile::location)
            .collect(Collectors.toSet());
    int jobsBefore = jobs();

    sql("DELETE FROM " + TABLE + " WHERE p = 2");

    assertThat(jobs()).as("Spark jobs run by the DELETE").isEqualTo(jobsBefore);
    assertTableIs("SELECT * FROM v WHERE (p = 2) IS NOT TRUE");
    Snapshot snapshot = current();
    assertThat(snapshot.parentId()).isEqualTo(before.snapshotId());
    assertThat(snapshot.operation()).isEqualTo(DataOperations.DELETE);
    assertThat(snapshot.summary())
        .containsKey("floe.commit-id")
        .doesNotContainKey(SnapshotSummary.ADDED_FILES_PROP)
        .containsEntry(SnapshotSummary.DELETED_RECORDS_PROP, "2");
    assertThat(liveDataFiles().stream().map(DataFile::location).collect(Collectors.toSet()))
        .isEqualTo(kept);
  }

  @Test
  void deletingFilesWhoseBoundsAllMatchRunsNoJob() {
    create(
        "id BIGINT, data STRING",
        "TBLPROPERTIES ('format-version'='2')",
        "(1, 'a'), (2, 'b'), (3, NULL)",
        "(10, 'x'), (11, 'y'), (12, 'z')");
    int jobsBefore = jobs();

    sql("DELETE FROM " + TABLE + " WHERE id < 5");

    assertThat(jobs()).isEqualTo(jobsBefore);
    assertTableIs("SELECT * FROM v WHERE (id < 5) IS NOT TRUE");
    assertThat(current().operation()).isEqualTo(DataOperations.DELETE);
  }

  @Test
  void boundsOfColumnsWhoseMetricsAreIgnoredDecideNothing() {
    create(
        "id BIGINT, data STRING",
        "TBLPROPERTIES ('format-version'='2', 'read.metrics.ignore-columns'='id')",
        "(1, 'a'), (2, 'b'), (3, NULL)",
        "(10, 'x'), (11, 'y'), (12, 'z')");
    int jobsBefore = jobs();

    sql("DELETE FROM " + TABLE + " WHERE id < 5");

    assertThat(jobs()).as("the rows are rewritten by a job").isGreaterThan(jobsBefore);
    assertTableIs("SELECT * FROM v WHERE (id < 5) IS NOT TRUE");
  }

  @Test
  void aConditionThatSelectsNoFileCommitsNothing() {
    create("id BIGINT, p INT", "PARTITIONED BY (p)", "(1, 1), (2, 2)");
    long before = current().snapshotId();

    sql("DELETE FROM " + TABLE + " WHERE p = 7");

    assertThat(current().snapshotId()).isEqualTo(before);
    assertTableIs("SELECT * FROM v");
  }

  @Test
  void aSessionCommitIdMakesARerunANoOp() {
    create("id BIGINT, p INT", "PARTITIONED BY (p)", "(1, 1), (2, 2), (3, 3)");
    spark.conf().set("spark.floe.write.commit-id", "gdpr-request-17");
    try {
      sql("DELETE FROM " + TABLE + " WHERE p = 1");
      long afterFirst = current().snapshotId();
      // the session's commit id applies to every write: the insert runs without it
      spark.conf().unset("spark.floe.write.commit-id");
      sql("INSERT INTO " + TABLE + " VALUES (4, 1)");
      long afterInsert = current().snapshotId();
      spark.conf().set("spark.floe.write.commit-id", "gdpr-request-17");

      sql("DELETE FROM " + TABLE + " WHERE p = 1");

      assertThat(current().snapshotId()).isEqualTo(afterInsert);
      assertThat(icebergTable("db.t").snapshot(afterFirst).summary())
          .containsEntry("floe.commit-id", "gdpr-request-17");
      assertThat(tableRows()).containsExactly("[2, 2]", "[3, 3]", "[4, 1]");
    } finally {
      spark.conf().unset("spark.floe.write.commit-id");
    }
  }

  /**
   * One column kind, a value of it, another value, and a literal of the first: each file holds the
   * value and NULL, so a condition that is NULL on the NULL row must keep that row.
   */
  static List<Arguments> columnKinds() {
    return List.of(
        Arguments.of("INT", "7", "8"),
        Arguments.of("BIGINT", "7L", "8L"),
        Arguments.of("STRING", "'x'", "'y'"),
        Arguments.of("DOUBLE", "CAST(1.5 AS DOUBLE)", "CAST(2.5 AS DOUBLE)"),
        Arguments.of("DATE", "DATE'2024-01-01'", "DATE'2024-02-01'"),
        Arguments.of("DECIMAL(10,2)", "CAST(1.25 AS DECIMAL(10,2))", "CAST(3.50 AS DECIMAL(10,2))"),
        Arguments.of("BOOLEAN", "true", "false"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("columnKinds")
  void conditionsThatAreNullOnSomeRowsKeepThoseRows(String type, String value, String other) {
    create(
        "id INT, c " + type + ", p INT",
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version'='2')",
        "(1, " + value + ", 1), (2, NULL, 1)",
        "(3, " + other + ", 2), (4, NULL, 2)",
        "(5, " + value + ", 3), (6, " + value + ", 3)");
    List<String> conditions =
        List.of(
            "c <> " + other,
            "NOT (c = " + other + ")",
            "c NOT IN (" + other + ")",
            "c IN (" + value + ", NULL)",
            "NOT (c IN (" + other + ", NULL))",
            "c = " + value + " OR c = " + other,
            "c IS NULL OR c <> " + other,
            "c IS NOT NULL AND c = " + value);
    List<String> expectedQueries = new ArrayList<>();
    conditions.forEach(
        condition -> expectedQueries.add("SELECT * FROM v WHERE (" + condition + ") IS NOT TRUE"));
    List<List<String>> expectedRows = rowsOfEach(expectedQueries);
    // each DELETE starts from the three files create() wrote (a value and a NULL in one file):
    // a rollback restores them without a job, where a rewrite would run one per condition
    long created = current().snapshotId();
    for (int i = 0; i < conditions.size(); i += 1) {
      String condition = conditions.get(i);
      sql("CALL floe.system.rollback_to_snapshot('db.t', " + created + ")");
      assertThat(current().snapshotId()).isEqualTo(created);

      sql("DELETE FROM " + TABLE + " WHERE " + condition);

      List<String> expected = expectedRows.get(i);
      assertThat(tableRows()).as("rows after DELETE WHERE %s", condition).isEqualTo(expected);
      assertThat(icebergRows()).as("Iceberg's rows after DELETE WHERE %s", condition)
          .isEqualTo(expected);
    }
  }

  @Test
  void deletingByATimestampRangeRemovesFilesOnlyThroughTheirPartition() {
    create(
        "id INT, ts TIMESTAMP",
        "PARTITIONED BY (days(ts))",
        "(1, TIMESTAMP'2024-01-01 10:00:00'), (2, TIMESTAMP'2024-01-01 11:00:00')",
        "(3, TIMESTAMP'2024-01-02 10:00:00'), (4, NULL)");
    int jobsBefore = jobs();

    sql("DELETE FROM " + TABLE + " WHERE ts >= TIMESTAMP'2024-01-02 00:00:00'");

    assertThat(jobs()).as("a whole day partition needs no job").isEqualTo(jobsBefore);
    assertTableIs("SELECT * FROM v WHERE (ts >= TIMESTAMP'2024-01-02 00:00:00') IS NOT TRUE");

    // the same condition within a day is decided by the file's bounds, which are not trusted for
    // timestamps: the rows are rewritten instead
    sql("DELETE FROM " + TABLE + " WHERE ts < TIMESTAMP'2024-01-01 12:00:00'");
    assertTableIs("SELECT * FROM v WHERE (ts >= TIMESTAMP'2024-01-02 00:00:00') IS NOT TRUE"
        + " AND (ts < TIMESTAMP'2024-01-01 12:00:00') IS NOT TRUE");
  }
}
