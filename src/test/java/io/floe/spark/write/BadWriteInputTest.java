package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.catalog.TestCatalog;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Writes that must fail: each error names the cause, and the table keeps its snapshots, its rows and
 * its data files exactly as before.
 */
class BadWriteInputTest extends CatalogTestBase {

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  @BeforeAll
  void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.target (id BIGINT NOT NULL, n INT, st STRUCT<a: INT NOT NULL>)"
        + " USING iceberg");
    sql("INSERT INTO floe.db.target VALUES (1, 10, named_struct('a', 100))");
  }

  @Test
  void aStringThatIsNotANumberIsRejectedUnderAnsiMode() {
    State before = State.of("db.target");
    assertThat(spark.conf().get("spark.sql.ansi.enabled")).isEqualTo("true");

    assertThatThrownBy(() -> sql("INSERT INTO floe.db.target SELECT 2, CAST('abc' AS INT), NULL"))
        .hasMessageContaining("CAST_INVALID_INPUT")
        .hasMessageContaining("The value 'abc' of the type \"STRING\" cannot be cast to \"INT\"");
    assertThatThrownBy(() -> sql("INSERT INTO floe.db.target SELECT 2, 'abc', NULL"))
        .hasMessageContaining("Cannot safely cast `n` \"STRING\" to \"INT\"");

    assertThat(State.of("db.target")).isEqualTo(before);
  }

  @Test
  void aStructIntoAnIntColumnIsRejectedNamingTheColumn() {
    State before = State.of("db.target");

    assertThatThrownBy(
            () -> sql("INSERT INTO floe.db.target SELECT 2, named_struct('x', 1), NULL"))
        .hasMessageContaining("Cannot safely cast `n` \"STRUCT<X:INT>\" to \"INT\"");

    assertThat(State.of("db.target")).isEqualTo(before);
  }

  @Test
  void anUnknownWriteOptionIsRejectedNamingTheOption() {
    State before = State.of("db.target");

    assertThatThrownBy(
            () ->
                spark.sql("SELECT 2L AS id, 20 AS n, named_struct('a', 200) AS st")
                    .writeTo("floe.db.target")
                    .option("nosuch", "1")
                    .append())
        .hasMessageContaining("floe.db.target")
        .hasMessageContaining("unknown write option(s) [nosuch]");

    assertThat(State.of("db.target")).isEqualTo(before);
  }

  @Test
  void aBadWriteOptionValueIsRejectedNamingTheOption() {
    State before = State.of("db.target");

    assertThatThrownBy(
            () ->
                spark.sql("SELECT 2L AS id, 20 AS n, named_struct('a', 200) AS st")
                    .writeTo("floe.db.target")
                    .option("target-file-size-bytes", "big")
                    .append())
        .hasMessageContaining("target-file-size-bytes")
        .hasMessageContaining("'big'");

    assertThat(State.of("db.target")).isEqualTo(before);
  }

  @Test
  void nullIntoANotNullColumnNamesTheColumnAndLeavesNoFiles() {
    State before = State.of("db.target");

    assertThatThrownBy(() -> sql("INSERT INTO floe.db.target VALUES (NULL, 2, named_struct('a', 2))"))
        .hasMessageContaining("NOT_NULL_ASSERT_VIOLATION")
        .hasMessageContaining("non-nullable field: \nid\n");
    // one task that has rolled two complete files and holds a third open when the NULL comes
    spark.conf().set(WriteOptions.SESSION_PREFIX + WriteOptions.TARGET_FILE_SIZE_BYTES, "1");
    try {
      assertThatThrownBy(
              () -> sql("INSERT INTO floe.db.target SELECT IF(id = 2500, NULL, id), 1,"
                  + " named_struct('a', 1) FROM range(0, 3000, 1, 1)"))
          .hasMessageContaining("NOT_NULL_ASSERT_VIOLATION")
          .hasMessageContaining("non-nullable field: \nid\n");
    } finally {
      spark.conf().unset(WriteOptions.SESSION_PREFIX + WriteOptions.TARGET_FILE_SIZE_BYTES);
    }
    assertThatThrownBy(
            () -> sql("INSERT INTO floe.db.target SELECT id, 1, named_struct('a', IF(id = 10, NULL, 1))"
                + " FROM range(0, 20, 1, 1)"))
        .hasMessageContaining("NOT_NULL_ASSERT_VIOLATION")
        .hasMessageContaining("non-nullable field: \nst\na\n");

    assertThat(State.of("db.target")).isEqualTo(before);
  }

  /** What a user can observe of a table: its snapshots, rows and data files on disk. */
  private record State(int snapshotCount, List<Row> rows, List<Path> files) {
    static State of(String table) {
      return new State(
          snapshots(table).size(),
          sql("SELECT * FROM floe.%s ORDER BY id", table),
          dataFilesOnDisk(icebergTable(table).location()));
    }
  }
}
