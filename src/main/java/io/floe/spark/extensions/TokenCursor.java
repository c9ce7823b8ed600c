package io.floe.spark.extensions;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The tokens of one statement and the parser's position in them, with the small steps a
 * recursive-descent parser is made of: look ahead, accept or expect a keyword or symbol, read a
 * name or a number. Every failure is a {@code ParseException} at the token in question ({@link
 * ParseErrors}).
 */
final class TokenCursor {
  private final String sql;
  private final List<SqlToken> tokens;
  private int next;

  /** @param tokens the statement's tokens, ending with its {@link SqlToken.Kind#END} token */
  TokenCursor(String sql, List<SqlToken> tokens) {
    this.sql = Objects.requireNonNull(sql, "sql is null");
    this.tokens = List.copyOf(tokens);
    if (this.tokens.isEmpty() || this.tokens.get(this.tokens.size() - 1).kind() != SqlToken.Kind.END) {
      throw new IllegalArgumentException("tokens do not end with the end of the statement");
    }
  }

  /** The token at the position. */
  SqlToken peek() {
    return peek(0);
  }

  /** The token {@code ahead} places after the position; the end token past the end. */
  SqlToken peek(int ahead) {
    return tokens.get(Math.min(next + ahead, tokens.size() - 1));
  }

  /** Whether the token {@code ahead} places after the position is this keyword. */
  boolean isKeyword(int ahead, String keyword) {
    return peek(ahead).isKeyword(keyword);
  }

  void skip(int count) {
    next = Math.min(next + count, tokens.size() - 1);
  }

  boolean accept(String keyword) {
    if (peek().isKeyword(keyword)) {
      next++;
      return true;
    }
    return false;
  }

  /** Accepts a sequence of keywords only when all of them follow. */
  boolean acceptAll(String... keywords) {
    for (int i = 0; i < keywords.length; i++) {
      if (!isKeyword(i, keywords[i])) {
        return false;
      }
    }
    skip(keywords.length);
    return true;
  }

  void expect(String keyword) {
    if (!accept(keyword)) {
      throw error(peek(), "expected " + keyword);
    }
  }

  boolean acceptSymbol(String symbol) {
    if (peek().isSymbol(symbol)) {
      next++;
      return true;
    }
    return false;
  }

  void expectSymbol(String symbol) {
    if (!acceptSymbol(symbol)) {
      throw error(peek(), "expected '" + symbol + "'");
    }
  }

  /** One name: a word or a backquoted identifier. */
  String identifier(String what) {
    SqlToken token = peek();
    if (!token.isIdentifier()) {
      throw error(token, "expected " + what);
    }
    next++;
    return token.text();
  }

  /** {@code a.b.c}: names joined by dots. */
  List<String> multipartName() {
    List<String> parts = new ArrayList<>();
    parts.add(identifier("a name"));
    while (acceptSymbol(".")) {
      parts.add(identifier("a name"));
    }
    return List.copyOf(parts);
  }

  /** An integer, optionally negative, optionally with Spark's {@code L} suffix. */
  long number(String what) {
    SqlToken first = peek();
    boolean negative = acceptSymbol("-");
    SqlToken digits = peek();
    if (!digits.isInteger()) {
      throw error(digits, "expected " + what);
    }
    next++;
    try {
      long value = Long.parseLong(digits.text().replaceFirst("[Ll]$", ""));
      return negative ? -value : value;
    } catch (NumberFormatException e) {
      throw error(first, digits.text() + " is out of range for " + what);
    }
  }

  /** The end of the statement, after any semicolons (Spark's parser allows them too). */
  void endOfStatement() {
    while (acceptSymbol(";")) {
      // nothing but semicolons may follow
    }
    if (peek().kind() != SqlToken.Kind.END) {
      throw error(peek(), "expected end of the statement");
    }
  }

  /** Throws a parse error at {@code token}; declared to return for {@code throw in.error(...)}. */
  RuntimeException error(SqlToken token, String reason) {
    return ParseErrors.at(sql, token, reason);
  }
}
