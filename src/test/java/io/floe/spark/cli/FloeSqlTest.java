package io.floe.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FloeSqlTest extends SparkTestBase {

  /** What one run printed and returned. */
  private record Run(int exitCode, String out, String err) {}

  private static Run run(String script) {
    return run(script, false, CliArguments.DEFAULT_MAX_ROWS);
  }

  private static Run run(String script, boolean silent, int maxRows) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      int code =
          silent || maxRows != CliArguments.DEFAULT_MAX_ROWS
              ? new FloeSql(spark, outStream, errStream, silent, maxRows)
                  .run(new StringReader(script), "test.sql")
              : FloeSql.run(spark, new StringReader(script), outStream, errStream);
      return new Run(
          code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
  }

  @BeforeAll
  static void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.cli");
    sql("CREATE TABLE floe.cli.events (id BIGINT, kind STRING, amount DECIMAL(10, 2)) USING iceberg"
        + " PARTITIONED BY (kind)");
    sql("INSERT INTO floe.cli.events VALUES (1, 'click', 1.50), (2, 'view', NULL), (10, 'click', 20.00)");
  }

  @Test
  void echoesEachStatementAndPrintsItsResultAsATable() {
    Run run = run("SELECT id, kind, amount FROM floe.cli.events ORDER BY id;");

    assertThat(run.exitCode()).isEqualTo(FloeSql.SUCCESS);
    assertThat(run.err()).isEmpty();
    assertThat(run.out())
        .isEqualTo(
            String.join(
                "\n",
                "floe-sql> SELECT id, kind, amount FROM floe.cli.events ORDER BY id;",
                "id | kind  | amount",
                "---+-------+-------",
                " 1 | click |   1.50",
                " 2 | view  |   NULL",
                "10 | click |  20.00",
                "(3 rows)",
                "",
                ""));
  }

  @Test
  void statementsWithoutResultColumnsPrintOkAndTheirEffectIsVisible() {
    Run run =
        run(
            "CREATE TABLE floe.cli.notes (id INT, note STRING) USING iceberg;\n"
                + "INSERT INTO floe.cli.notes VALUES (1, 'first');\n"
                + "SELECT count(*) AS n FROM floe.cli.notes;\n"
                + "DROP TABLE floe.cli.notes PURGE;");

    assertThat(run.exitCode()).isEqualTo(FloeSql.SUCCESS);
    assertThat(run.out())
        .isEqualTo(
            String.join(
                "\n",
                "floe-sql> CREATE TABLE floe.cli.notes (id INT, note STRING) USING iceberg;",
                "OK",
                "",
                "floe-sql> INSERT INTO floe.cli.notes VALUES (1, 'first');",
                "OK",
                "",
                "floe-sql> SELECT count(*) AS n FROM floe.cli.notes;",
                "n",
                "-",
                "1",
                "(1 row)",
                "",
                "floe-sql> DROP TABLE floe.cli.notes PURGE;",
                "OK",
                "",
                ""));
  }

  @Test
  void quotesSemicolonsAndCommentsInsideStatementsReachSparkIntact() {
    Run run =
        run(
            "-- a comment; with a semicolon\n"
                + "SELECT 'a;b' AS semi, 'it\\'s' AS escaped, \"x;y\" AS dq, /* c; */ 'l1\nl2' AS multi;"
                + " SELECT 2 AS `odd;name`");

    assertThat(run.err()).isEmpty();
    assertThat(run.exitCode()).isEqualTo(FloeSql.SUCCESS);
    assertThat(run.out())
        .contains(
            String.join(
                "\n",
                "semi | escaped | dq  | multi",
                "-----+---------+-----+-------",
                "a;b  | it's    | x;y | l1\\nl2",
                "(1 row)"))
        .contains(String.join("\n", "odd;name", "--------", "       2", "(1 row)"))
        .doesNotContain("a comment");
  }

  @Test
  void stopsAtTheFirstFailingStatementWithExitCodeOneAndAOneLineError() {
    Run run =
        run(
            "SELECT 1 AS one;\n"
                + "\n"
                + "SELECT *\n  FROM floe.cli.missing;\n"
                + "CREATE TABLE floe.cli.never_created (id INT) USING iceberg;");

    assertThat(run.exitCode()).isEqualTo(FloeSql.STATEMENT_FAILED);
    assertThat(run.err().lines())
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .startsWith("floe-sql: Cannot run statement 2 (line 3 of the script): ")
                    .contains("TABLE_OR_VIEW_NOT_FOUND")
                    .contains("`floe`.`cli`.`missing`"));
    assertThat(run.out()).contains("(1 row)").doesNotContain("never_created");
    assertThat(sql("SHOW TABLES IN floe.cli").stream().map(row -> row.getString(1)))
        .doesNotContain("never_created");
  }

  @Test
  void aFailureInsideFloeIsReportedWithFloesMessage() {
    Run run = run("SELECT * FROM floe.cli.events WITH ('snapshot-id' = '12345');");

    assertThat(run.exitCode()).isEqualTo(FloeSql.STATEMENT_FAILED);
    assertThat(run.err())
        .isEqualTo(
            "floe-sql: Cannot run statement 1 (line 1 of the script): Cannot read floe.cli.events:"
                + " snapshot 12345 does not exist\n");
  }

  @Test
  void anUnclosedQuoteFailsAfterTheStatementsBeforeIt() {
    Run run = run("SELECT 1 AS one;\nSELECT 'open;\n");

    assertThat(run.exitCode()).isEqualTo(FloeSql.STATEMENT_FAILED);
    assertThat(run.out()).contains("(1 row)");
    assertThat(run.err())
        .isEqualTo(
            "floe-sql: Cannot split the script into statements: the ' opened on line 2 is never"
                + " closed (in the script)\n");
  }

  @Test
  void metadataTablesAndTimeTravelPrintLikeAnyQuery() {
    long snapshotId =
        sql("SELECT snapshot_id FROM floe.cli.events.snapshots").get(0).getLong(0);

    Run run =
        run(
            "SELECT operation FROM floe.cli.events.snapshots;\n"
                + "SELECT count(*) AS n FROM floe.cli.events VERSION AS OF " + snapshotId + ";",
            true,
            CliArguments.DEFAULT_MAX_ROWS);

    assertThat(run.exitCode()).isEqualTo(FloeSql.SUCCESS);
    assertThat(run.out())
        .isEqualTo(
            String.join(
                "\n", "operation", "---------", "append", "(1 row)", "n", "-", "3", "(1 row)", ""));
  }

  @Test
  void longResultsStopAtMaxRowsAndSaySo() {
    Run run = run("SELECT id FROM range(5) ORDER BY id", true, 2);

    assertThat(run.exitCode()).isEqualTo(FloeSql.SUCCESS);
    assertThat(run.out())
        .isEqualTo(
            String.join(
                "\n", "id", "--", " 0", " 1", "(first 2 rows shown; the result has more)", ""));
  }

  @Test
  void binaryValuesShowAsHexAndDuplicateColumnNamesAreKept() {
    Run run = run("SELECT X'CAFE' AS b, 1 AS x, 2 AS x, CAST(NULL AS STRING) AS s", true, 10);

    assertThat(run.out())
        .isEqualTo(String.join("\n", "b    | x | x | s", "-----+---+---+-----", "CAFE | 1 | 2 | NULL", "(1 row)", ""));
  }
}
