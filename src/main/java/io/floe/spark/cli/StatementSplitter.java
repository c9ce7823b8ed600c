package io.floe.spark.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Cuts SQL text into statements at each {@code ;} that is outside a quoted literal or identifier
 * ({@code '...'}, {@code "..."}, {@code `...`}) and outside a comment ({@code -- ...} to the end of
 * the line, {@code /* ... *}{@code /}, nested as Spark allows). Text arrives a line at a time, so a
 * statement can run as soon as its {@code ;} is read.
 *
 * <p>Line comments are dropped from the statement text; block comments are kept, since Spark reads
 * hints from them ({@code /*+ BROADCAST(t) *}{@code /}). A piece holding nothing but whitespace and
 * comments is not a statement. Inside {@code '...'} and {@code "..."} a backslash escapes the next
 * character, as in Spark SQL.
 *
 * <p>Not thread-safe: one splitter reads one script.
 */
final class StatementSplitter {
  /**
   * One statement of a script.
   *
   * @param text the statement without its terminating {@code ;}, trimmed
   * @param line the 1-based line of the script where the statement's first code character is
   */
  record Statement(String text, int line) {
    Statement {
      Objects.requireNonNull(text, "text is null");
    }
  }

  private final StringBuilder current = new StringBuilder();
  private int lineNumber = 0;
  private int statementLine = 0;
  private boolean hasCode = false;
  private char quote = 0;
  private int quoteLine = 0;
  private int commentDepth = 0;
  private int commentLine = 0;

  /**
   * Reads the next line of the script (without its line terminator).
   *
   * @return the statements this line completes, in order; often none
   */
  List<Statement> addLine(String line) {
    Objects.requireNonNull(line, "line is null");
    lineNumber += 1;
    String text = line + "\n";
    List<Statement> complete = new ArrayList<>();
    int length = text.length();
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      char next = i + 1 < length ? text.charAt(i + 1) : 0;
      if (quote != 0) {
        current.append(c);
        if (c == '\\' && quote != '`') {
          current.append(next);
          i += 1;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (commentDepth > 0) {
        current.append(c);
        if (c == '/' && next == '*') {
          commentDepth += 1;
          current.append(next);
          i += 1;
        } else if (c == '*' && next == '/') {
          commentDepth -= 1;
          current.append(next);
          i += 1;
        }
      } else if (c == '-' && next == '-') {
        current.append('\n');
        break;
      } else if (c == '/' && next == '*') {
        commentDepth = 1;
        commentLine = lineNumber;
        current.append(c).append(next);
        i += 1;
      } else if (c == ';') {
        finishStatement(complete);
      } else {
        current.append(c);
        if (c == '\'' || c == '"' || c == '`') {
          quote = c;
          quoteLine = lineNumber;
        }
        if (!Character.isWhitespace(c) && !hasCode) {
          hasCode = true;
          statementLine = lineNumber;
        }
      }
    }
    return complete;
  }

  /**
   * Ends the script: returns the last statement when it has no terminating {@code ;}.
   *
   * @throws IllegalArgumentException when a quote or a block comment is still open
   */
  List<Statement> finish() {
    if (quote != 0) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot split the script into statements: the %c opened on line %d is never closed",
              quote, quoteLine));
    }
    if (commentDepth > 0) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot split the script into statements: the comment opened on line %d is never"
                  + " closed",
              commentLine));
    }
    List<Statement> complete = new ArrayList<>();
    finishStatement(complete);
    return complete;
  }

  private void finishStatement(List<Statement> complete) {
    if (hasCode) {
      complete.add(new Statement(current.toString().strip(), statementLine));
    }
    current.setLength(0);
    hasCode = false;
  }
}
