package io.floe.spark.extensions;

import java.util.Objects;

/**
 * One token of an extension statement, with where it starts in the statement text (for error
 * messages that point at it).
 *
 * @param kind what the token is
 * @param text the token as an identifier or keyword reads it: a backquoted identifier without its
 *     quotes (doubled backticks undone), a string without its quotes, otherwise as written
 * @param start the offset of its first character in the statement text
 * @param stop the offset of its last character (for the end of input, {@code start - 1})
 * @param line its line, from 1
 * @param column its column within the line, from 0 (Spark's "pos")
 */
record SqlToken(Kind kind, String text, int start, int stop, int line, int column) {
  /** The kinds of token the extension grammar knows. */
  enum Kind {
    /** Letters, digits and underscores: a keyword, an identifier or a number. */
    WORD,
    /** A backquoted identifier: never a keyword. */
    QUOTED,
    /** A quoted string literal. */
    STRING,
    /** Any other single character, such as {@code . , ( ) - ;}. */
    SYMBOL,
    /** The end of the statement. */
    END
  }

  SqlToken {
    Objects.requireNonNull(kind, "kind is null");
    Objects.requireNonNull(text, "text is null");
  }

  /** Whether this is the keyword {@code keyword} (an unquoted word, in any case). */
  boolean isKeyword(String keyword) {
    return kind == Kind.WORD && text.equalsIgnoreCase(keyword);
  }

  boolean isSymbol(String symbol) {
    return kind == Kind.SYMBOL && text.equals(symbol);
  }

  /** Whether this token can be an identifier: any word, or a backquoted name. */
  boolean isIdentifier() {
    return kind == Kind.WORD || kind == Kind.QUOTED;
  }

  /** Whether this is an unsigned integer literal: digits, optionally with Spark's {@code L} suffix. */
  boolean isInteger() {
    return kind == Kind.WORD && text.matches("[0-9]+[Ll]?");
  }

  /** The token as error messages quote it: {@code 'FIELD'}, or {@code end of input}. */
  String quoted() {
    switch (kind) {
      case END:
        return "end of input";
      case QUOTED:
        return "'`" + text.replace("`", "``") + "`'";
      case STRING:
        return "''" + text + "''";
      default:
        return "'" + text + "'";
    }
  }
}
