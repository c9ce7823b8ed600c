package io.floe.spark.extensions;

import io.floe.spark.extensions.ExtensionStatement.RefKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.SortDirection;
import org.apache.spark.sql.catalyst.parser.ParseException;

/**
 * A recursive-descent parser for the statements of the official runtime's {@code
 * IcebergSqlExtensions} grammar, and nothing else:
 *
 * <pre>
 * ALTER TABLE t ADD PARTITION FIELD transform [AS name]
 * ALTER TABLE t DROP PARTITION FIELD transform
 * ALTER TABLE t REPLACE PARTITION FIELD transform WITH transform [AS name]
 * ALTER TABLE t WRITE { DISTRIBUTED BY PARTITION | [LOCALLY] ORDERED BY order | UNORDERED } ...
 * ALTER TABLE t SET IDENTIFIER FIELDS a, b
 * ALTER TABLE t DROP IDENTIFIER FIELDS a, b
 * ALTER TABLE t { CREATE [OR REPLACE] | REPLACE } BRANCH|TAG ... ; CREATE BRANCH|TAG IF NOT EXISTS ...
 * ALTER TABLE t DROP BRANCH|TAG [IF EXISTS] name
 * </pre>
 *
 * <p>{@link #parse} first looks only at the statement's head ({@code ALTER TABLE <name>} and the
 * keywords that start one of these clauses); anything else is not an extension statement and is
 * left to Spark's parser, untouched. Once the head matched, every error is a {@link
 * ParseException} pointing at the token where the statement stops fitting the grammar.
 */
final class ExtensionParser {
  private static final String TRANSFORMS =
      "identity, bucket, truncate, years, months, days, hours (or year, month, day, date, hour, date_hour)";

  private final String sql;
  private final List<SqlToken> tokens;
  private int next;

  private ExtensionParser(String sql, List<SqlToken> tokens) {
    this.sql = sql;
    this.tokens = tokens;
  }

  /**
   * The extension statement {@code sql} is, or empty when it is not one (Spark's parser decides).
   *
   * @throws ParseException when the statement starts like an extension statement but does not fit
   *     its grammar
   */
  static Optional<ExtensionStatement> parse(String sql) {
    Optional<List<SqlToken>> tokens = SqlLexer.tokenize(sql);
    if (tokens.isEmpty()) {
      return Optional.empty();
    }
    ExtensionParser parser = new ExtensionParser(sql, tokens.get());
    if (!parser.isExtensionStatement()) {
      return Optional.empty();
    }
    return Optional.of(parser.statement());
  }

  // recognition: ALTER TABLE <multipart name> <clause head>

  private boolean isExtensionStatement() {
    int at = 0;
    if (!keywordAt(at++, "ALTER") || !keywordAt(at++, "TABLE") || !tokens.get(at++).isIdentifier()) {
      return false;
    }
    while (tokens.get(at).isSymbol(".") && tokens.get(at + 1).isIdentifier()) {
      at += 2;
    }
    if (keywordAt(at, "ADD")) {
      return keywordAt(at + 1, "PARTITION") && keywordAt(at + 2, "FIELD");
    }
    if (keywordAt(at, "REPLACE")) {
      return keywordAt(at + 1, "PARTITION") && keywordAt(at + 2, "FIELD") || isRefKind(at + 1);
    }
    if (keywordAt(at, "DROP")) {
      return keywordAt(at + 1, "PARTITION") && keywordAt(at + 2, "FIELD")
          || keywordAt(at + 1, "IDENTIFIER") && keywordAt(at + 2, "FIELDS")
          || isRefKind(at + 1);
    }
    if (keywordAt(at, "SET")) {
      return keywordAt(at + 1, "IDENTIFIER") && keywordAt(at + 2, "FIELDS");
    }
    if (keywordAt(at, "CREATE")) {
      return isRefKind(at + 1) || keywordAt(at + 1, "OR") && keywordAt(at + 2, "REPLACE") && isRefKind(at + 3);
    }
    return keywordAt(at, "WRITE");
  }

  private boolean isRefKind(int at) {
    return keywordAt(at, "BRANCH") || keywordAt(at, "TAG");
  }

  private boolean keywordAt(int at, String keyword) {
    return at < tokens.size() && tokens.get(at).isKeyword(keyword);
  }

  // statements

  private ExtensionStatement statement() {
    expect("ALTER");
    expect("TABLE");
    List<String> table = multipartName();
    ExtensionStatement statement;
    if (accept("ADD")) {
      expect("PARTITION");
      expect("FIELD");
      statement = new ExtensionStatement.AddPartitionField(table, transform(), optionalAlias());
    } else if (acceptAll("DROP", "PARTITION")) {
      expect("FIELD");
      statement = new ExtensionStatement.DropPartitionField(table, transform());
    } else if (acceptAll("REPLACE", "PARTITION")) {
      expect("FIELD");
      TransformTerm from = transform();
      expect("WITH");
      statement = new ExtensionStatement.ReplacePartitionField(table, from, transform(), optionalAlias());
    } else if (accept("WRITE")) {
      statement = writeSpec(table);
    } else if (acceptAll("SET", "IDENTIFIER")) {
      expect("FIELDS");
      statement = new ExtensionStatement.SetIdentifierFields(table, fieldList());
    } else if (acceptAll("DROP", "IDENTIFIER")) {
      expect("FIELDS");
      statement = new ExtensionStatement.DropIdentifierFields(table, fieldList());
    } else if (accept("DROP")) {
      RefKind kind = refKind();
      boolean ifExists = acceptAll("IF", "EXISTS");
      statement = new ExtensionStatement.DropRef(table, kind, identifier("a " + kindName(kind) + " name"), ifExists);
    } else {
      statement = createOrReplaceRef(table);
    }
    endOfStatement();
    return statement;
  }

  private ExtensionStatement createOrReplaceRef(List<String> table) {
    boolean create = accept("CREATE");
    boolean replace;
    if (create) {
      replace = accept("OR");
      if (replace) {
        expect("REPLACE");
      }
    } else {
      expect("REPLACE");
      replace = true;
    }
    RefKind kind = refKind();
    boolean ifNotExists = false;
    if (keywordAt(next, "IF") && keywordAt(next + 1, "NOT")) {
      if (replace) {
        throw error(peek(), "IF NOT EXISTS cannot be combined with REPLACE");
      }
      next += 2;
      expect("EXISTS");
      ifNotExists = true;
    }
    String name = identifier("a " + kindName(kind) + " name");
    Long snapshotId = null;
    if (accept("AS")) {
      expect("OF");
      expect("VERSION");
      snapshotId = number("a snapshot id");
    }
    Long maxRefAgeMs = null;
    if (accept("RETAIN")) {
      maxRefAgeMs = duration();
    }
    Integer minSnapshotsToKeep = null;
    Long maxSnapshotAgeMs = null;
    if (kind == RefKind.BRANCH && accept("WITH")) {
      expect("SNAPSHOT");
      expect("RETENTION");
      SqlToken countToken = peek();
      long count = number("a number of snapshots or an age");
      if (accept("SNAPSHOTS")) {
        minSnapshotsToKeep = toInt(countToken, count);
        if (peek().isInteger() || peek().isSymbol("-")) {
          maxSnapshotAgeMs = duration();
        }
      } else {
        maxSnapshotAgeMs = timeUnit().toMillis(count);
      }
    }
    return new ExtensionStatement.CreateOrReplaceRef(
        table, kind, name, create, replace, ifNotExists, snapshotId, minSnapshotsToKeep,
        maxSnapshotAgeMs, maxRefAgeMs);
  }

  private ExtensionStatement writeSpec(List<String> table) {
    SqlToken start = peek();
    SqlToken distribution = null;
    SqlToken ordering = null;
    boolean locally = false;
    boolean unordered = false;
    List<OrderField> order = List.of();
    while (true) {
      SqlToken clause = peek();
      if (accept("DISTRIBUTED")) {
        if (distribution != null) {
          throw error(clause, "ALTER TABLE contains multiple distribution clauses");
        }
        expect("BY");
        expect("PARTITION");
        distribution = clause;
      } else if (clause.isKeyword("LOCALLY") || clause.isKeyword("ORDERED") || clause.isKeyword("UNORDERED")) {
        if (ordering != null) {
          throw error(clause, "ALTER TABLE contains multiple ordering clauses");
        }
        ordering = clause;
        if (accept("UNORDERED")) {
          unordered = true;
        } else {
          locally = accept("LOCALLY");
          expect("ORDERED");
          expect("BY");
          order = order();
        }
      } else {
        break;
      }
    }
    if (distribution == null && ordering == null) {
      throw error(start, "expected DISTRIBUTED BY PARTITION, ORDERED BY, LOCALLY ORDERED BY or UNORDERED");
    }
    DistributionMode mode;
    if (distribution != null) {
      mode = DistributionMode.HASH;
    } else if (unordered) {
      mode = DistributionMode.NONE;
    } else if (locally) {
      // LOCALLY ORDERED BY alone leaves the distribution as it is
      mode = null;
    } else {
      mode = DistributionMode.RANGE;
    }
    return new ExtensionStatement.SetWriteOrder(table, mode, order);
  }

  private List<OrderField> order() {
    boolean parenthesized = peek().isSymbol("(");
    if (parenthesized) {
      next++;
    }
    List<OrderField> fields = new ArrayList<>();
    do {
      fields.add(orderField());
    } while (acceptSymbol(","));
    if (parenthesized) {
      expectSymbol(")");
    }
    return List.copyOf(fields);
  }

  private OrderField orderField() {
    TransformTerm term = transform();
    SortDirection direction = SortDirection.ASC;
    if (accept("DESC")) {
      direction = SortDirection.DESC;
    } else {
      accept("ASC");
    }
    NullOrder nullOrder = direction == SortDirection.ASC ? NullOrder.NULLS_FIRST : NullOrder.NULLS_LAST;
    if (accept("NULLS")) {
      if (accept("FIRST")) {
        nullOrder = NullOrder.NULLS_FIRST;
      } else {
        expect("LAST");
        nullOrder = NullOrder.NULLS_LAST;
      }
    }
    return new OrderField(term, direction, nullOrder);
  }

  /** {@code column} or {@code name(argument, ...)}, each argument a column or an integer. */
  private TransformTerm transform() {
    SqlToken head = peek();
    if (!head.isIdentifier()) {
      throw error(head, "expected a column or a transform (" + TRANSFORMS + ")");
    }
    if (head.kind() != SqlToken.Kind.WORD || !tokens.get(next + 1).isSymbol("(")) {
      return new TransformTerm(TransformTerm.IDENTITY, multipartName(), null, true);
    }
    next += 2;
    String function = TransformTerm.canonical(head.text());
    if (function == null) {
      throw error(head, head.text().equalsIgnoreCase("zorder")
          ? "zorder is no partition transform nor write order; it is a sort order of rewrite_data_files"
          : "unknown transform " + head.text() + ", expected one of " + TRANSFORMS);
    }
    List<String> column = null;
    Integer width = null;
    do {
      SqlToken argument = peek();
      if (argument.isInteger() || argument.isSymbol("-")) {
        long value = number("a width");
        if (width != null) {
          throw error(argument, "transform " + head.text() + " takes one width");
        }
        if (value <= 0 || value > Integer.MAX_VALUE) {
          throw error(argument, "the width of " + head.text() + " must be a positive integer");
        }
        width = (int) value;
      } else if (argument.isIdentifier()) {
        if (column != null) {
          throw error(argument, "transform " + head.text() + " takes one column");
        }
        column = multipartName();
      } else {
        throw error(argument, "expected a column or an integer as argument of " + head.text());
      }
    } while (acceptSymbol(","));
    SqlToken close = peek();
    expectSymbol(")");
    boolean needsWidth = function.equals(TransformTerm.BUCKET) || function.equals(TransformTerm.TRUNCATE);
    if (column == null) {
      throw error(close, "transform " + head.text() + " needs a column");
    }
    if (needsWidth && width == null) {
      throw error(close, "transform " + head.text() + " needs a width: " + head.text() + "(n, column)");
    }
    if (!needsWidth && width != null) {
      throw error(close, "transform " + head.text() + " takes a column only");
    }
    return new TransformTerm(function, column, width, false);
  }

  private List<String> fieldList() {
    List<String> fields = new ArrayList<>();
    do {
      fields.add(String.join(".", multipartName()));
    } while (acceptSymbol(","));
    return List.copyOf(fields);
  }

  private String optionalAlias() {
    return accept("AS") ? identifier("a partition field name") : null;
  }

  private RefKind refKind() {
    if (accept("BRANCH")) {
      return RefKind.BRANCH;
    }
    if (accept("TAG")) {
      return RefKind.TAG;
    }
    throw error(peek(), "expected BRANCH or TAG");
  }

  private static String kindName(RefKind kind) {
    return kind.name().toLowerCase(Locale.ROOT);
  }

  /** {@code <n> DAYS|HOURS|MINUTES}, in milliseconds. */
  private long duration() {
    long amount = number("a number of days, hours or minutes");
    return timeUnit().toMillis(amount);
  }

  private TimeUnit timeUnit() {
    for (String unit : List.of("DAYS", "HOURS", "MINUTES")) {
      if (accept(unit)) {
        return TimeUnit.valueOf(unit);
      }
    }
    throw error(peek(), "expected DAYS, HOURS or MINUTES");
  }

  /** An integer, optionally negative. */
  private long number(String what) {
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

  private int toInt(SqlToken token, long value) {
    if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
      throw error(token, value + " is out of range for a number of snapshots");
    }
    return (int) value;
  }

  private List<String> multipartName() {
    List<String> parts = new ArrayList<>();
    parts.add(identifier("a name"));
    while (acceptSymbol(".")) {
      parts.add(identifier("a name"));
    }
    return List.copyOf(parts);
  }

  private String identifier(String what) {
    SqlToken token = peek();
    if (!token.isIdentifier()) {
      throw error(token, "expected " + what);
    }
    next++;
    return token.text();
  }

  private void endOfStatement() {
    while (acceptSymbol(";")) {
      // Spark's parser allows trailing semicolons too
    }
    if (peek().kind() != SqlToken.Kind.END) {
      throw error(peek(), "expected end of the statement");
    }
  }

  // token helpers

  private SqlToken peek() {
    return tokens.get(next);
  }

  private boolean accept(String keyword) {
    if (peek().isKeyword(keyword)) {
      next++;
      return true;
    }
    return false;
  }

  /** Accepts a sequence of keywords only when all of them follow. */
  private boolean acceptAll(String... keywords) {
    for (int i = 0; i < keywords.length; i++) {
      if (!keywordAt(next + i, keywords[i])) {
        return false;
      }
    }
    next += keywords.length;
    return true;
  }

  private void expect(String keyword) {
    if (!accept(keyword)) {
      throw error(peek(), "expected " + keyword);
    }
  }

  private boolean acceptSymbol(String symbol) {
    if (peek().isSymbol(symbol)) {
      next++;
      return true;
    }
    return false;
  }

  private void expectSymbol(String symbol) {
    if (!acceptSymbol(symbol)) {
      throw error(peek(), "expected '" + symbol + "'");
    }
  }

  private RuntimeException error(SqlToken token, String reason) {
    return ParseErrors.at(sql, token, reason);
  }
}
