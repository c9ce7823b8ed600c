package io.floe.spark.extensions;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Splits an extension statement into {@link SqlToken}s the way Spark's lexer reads the same text:
 * words of letters, digits and underscores, backquoted identifiers ({@code ``} is a backtick),
 * single- or double-quoted strings with backslash escapes, one-character symbols, and {@code --}
 * and {@code /* *}{@code /} comments, which are skipped.
 */
final class SqlLexer {
  private final String sql;
  private final List<SqlToken> tokens = new ArrayList<>();
  private int position;

  private SqlLexer(String sql) {
    this.sql = sql;
  }

  /**
   * The tokens of {@code sql}, ending with one {@link SqlToken.Kind#END} token; empty when a quote
   * or comment is not closed (Spark's parser then reports it in its own words).
   */
  static Optional<List<SqlToken>> tokenize(String sql) {
    SqlLexer lexer = new SqlLexer(sql);
    return lexer.run() ? Optional.of(List.copyOf(lexer.tokens)) : Optional.empty();
  }

  /** Reads all tokens; false at a quote or comment that is not closed. */
  private boolean run() {
    while (true) {
      if (!skipBlanksAndComments()) {
        return false;
      }
      if (position >= sql.length()) {
        tokens.add(
            new SqlToken(SqlToken.Kind.END, "", position, position - 1, lineOf(position), columnOf(position)));
        return true;
      }
      char c = sql.charAt(position);
      if (isWordChar(c)) {
        word();
      } else if (c == '`') {
        if (!quoted()) {
          return false;
        }
      } else if (c == '\'' || c == '"') {
        if (!string(c)) {
          return false;
        }
      } else {
        // any other character is a symbol of its own; the parser decides whether it fits
        add(SqlToken.Kind.SYMBOL, String.valueOf(c), position, position);
        position++;
      }
    }
  }

  private boolean skipBlanksAndComments() {
    while (position < sql.length()) {
      char c = sql.charAt(position);
      if (Character.isWhitespace(c)) {
        position++;
      } else if (sql.startsWith("--", position)) {
        while (position < sql.length() && sql.charAt(position) != '\n') {
          position++;
        }
      } else if (sql.startsWith("/*", position)) {
        if (!blockComment()) {
          return false;
        }
      } else {
        return true;
      }
    }
    return true;
  }

  /** A bracketed comment; like Spark's, it may nest. False when it is not closed. */
  private boolean blockComment() {
    int depth = 0;
    while (position < sql.length()) {
      if (sql.startsWith("/*", position)) {
        depth++;
        position += 2;
      } else if (sql.startsWith("*/", position)) {
        depth--;
        position += 2;
        if (depth == 0) {
          return true;
        }
      } else {
        position++;
      }
    }
    return false;
  }

  private void word() {
    int start = position;
    while (position < sql.length() && isWordChar(sql.charAt(position))) {
      position++;
    }
    add(SqlToken.Kind.WORD, sql.substring(start, position), start, position - 1);
  }

  private boolean quoted() {
    int start = position;
    StringBuilder text = new StringBuilder();
    position++;
    while (position < sql.length()) {
      char c = sql.charAt(position);
      if (c == '`') {
        if (position + 1 < sql.length() && sql.charAt(position + 1) == '`') {
          text.append('`');
          position += 2;
          continue;
        }
        position++;
        add(SqlToken.Kind.QUOTED, text.toString(), start, position - 1);
        return true;
      }
      text.append(c);
      position++;
    }
    return false;
  }

  private boolean string(char quote) {
    int start = position;
    StringBuilder text = new StringBuilder();
    position++;
    while (position < sql.length()) {
      char c = sql.charAt(position);
      if (c == '\\' && position + 1 < sql.length()) {
        text.append(sql.charAt(position + 1));
        position += 2;
        continue;
      }
      if (c == quote) {
        position++;
        add(SqlToken.Kind.STRING, text.toString(), start, position - 1);
        return true;
      }
      text.append(c);
      position++;
    }
    return false;
  }

  private void add(SqlToken.Kind kind, String text, int start, int stop) {
    tokens.add(token(kind, text, start, stop));
  }

  private SqlToken token(SqlToken.Kind kind, String text, int start, int stop) {
    return new SqlToken(kind, text, start, stop, lineOf(start), columnOf(start));
  }

  /** The line of an offset, from 1; a token spanning lines reports where it starts. */
  private int lineOf(int offset) {
    int count = 1;
    for (int i = 0; i < offset && i < sql.length(); i++) {
      if (sql.charAt(i) == '\n') {
        count++;
      }
    }
    return count;
  }

  private int columnOf(int offset) {
    int lastNewLine = sql.lastIndexOf('\n', offset - 1);
    return offset - (lastNewLine + 1);
  }

  private static boolean isWordChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }
}
