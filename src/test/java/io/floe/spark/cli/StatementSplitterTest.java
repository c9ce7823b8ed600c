package io.floe.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.cli.StatementSplitter.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatementSplitterTest {

  private static List<Statement> split(String script) {
    StatementSplitter splitter = new StatementSplitter();
    List<Statement> statements = new ArrayList<>();
    script.lines().forEach(line -> statements.addAll(splitter.addLine(line)));
    statements.addAll(splitter.finish());
    return statements;
  }

  @Test
  void splitsOnSemicolonsAndKeepsTheLineWhereEachStatementStarts() {
    assertThat(split("SELECT 1; SELECT 2;\n\nSELECT\n  3;"))
        .containsExactly(
            new Statement("SELECT 1", 1), new Statement("SELECT 2", 1), new Statement("SELECT\n  3", 3));
  }

  @Test
  void lastStatementNeedsNoSemicolon() {
    assertThat(split("SELECT 1;\nSELECT 2")).extracting(Statement::text).containsExactly("SELECT 1", "SELECT 2");
  }

  @Test
  void semicolonsInsideQuotesDoNotEndAStatement() {
    assertThat(split("SELECT 'a;b', \"c;d\", `e;f` FROM t; SELECT 2"))
        .extracting(Statement::text)
        .containsExactly("SELECT 'a;b', \"c;d\", `e;f` FROM t", "SELECT 2");
  }

  @Test
  void escapedAndDoubledQuotesStayInsideTheLiteral() {
    assertThat(split("SELECT 'it\\'s;', 'x'';y';SELECT 2"))
        .extracting(Statement::text)
        .containsExactly("SELECT 'it\\'s;', 'x'';y'", "SELECT 2");
  }

  @Test
  void quotedTextMaySpanLines() {
    assertThat(split("SELECT 'one;\ntwo';\nSELECT 3;"))
        .containsExactly(new Statement("SELECT 'one;\ntwo'", 1), new Statement("SELECT 3", 3));
  }

  @Test
  void lineCommentsAreDroppedAndTheirSemicolonsIgnored() {
    assertThat(split("-- set up; twice\nSELECT 1 -- the first; really\n;\n-- trailing; comment"))
        .containsExactly(new Statement("SELECT 1", 2));
  }

  @Test
  void dashesInsideQuotesAreNotComments() {
    assertThat(split("SELECT '--not a comment;';"))
        .extracting(Statement::text)
        .containsExactly("SELECT '--not a comment;'");
  }

  @Test
  void blockCommentsMayNestAndAreKeptForHints() {
    assertThat(split("/* a; /* b; */ c; */ SELECT /*+ REPARTITION(2) */ 1; /* only; a comment */;"))
        .containsExactly(new Statement("/* a; /* b; */ c; */ SELECT /*+ REPARTITION(2) */ 1", 1));
  }

  @Test
  void emptyStatementsAreSkipped() {
    assertThat(split(";;\n  ;\nSELECT 1;;")).extracting(Statement::text).containsExactly("SELECT 1");
  }

  @Test
  void anUnclosedQuoteIsReportedWithTheLineItOpensOn() {
    assertThatThrownBy(() -> split("SELECT 1;\nSELECT 'abc;\nSELECT 2;"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot split the script into statements: the ' opened on line 2 is never closed");
  }

  @Test
  void anUnclosedBlockCommentIsReported() {
    assertThatThrownBy(() -> split("SELECT 1;\n\n/* start\nSELECT 2;"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot split the script into statements: the comment opened on line 3 is never closed");
  }
}
