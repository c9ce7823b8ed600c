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

  private final TokenCursor in;

  private ExtensionParser(TokenCursor in) {
    this.in = in;
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
    ExtensionParser parser = new ExtensionParser(new TokenCursor(sql, tokens.get()));
    if (!parser.isExtensionStatement()) {
      return Optional.empty();
    }
    return Optional.of(parser.statement());
  }

  // recognition: ALTER TABLE <multipart name> <clause head>

  private boolean isExtensionStatement() {
    int at = 0;
    if (!in.isKeyword(at++, "ALTER") || !in.isKeyword(at++, "TABLE") || !in.peek(at++).isIdentifier()) {
      return false;
    }
    while (in.peek(at).isSymbol(".") && in.peek(at + 1).isIdentifier()) {
      at += 2;
    }
    if (in.isKeyword(at, "ADD")) {
      return in.isKeyword(at + 1, "PARTITION") && in.isKeyword(at + 2, "FIELD");
    }
    if (in.isKeyword(at, "REPLACE")) {
      return in.isKeyword(at + 1, "PARTITION") && in.isKeyword(at + 2, "FIELD") || isRefKind(at + 1);
    }
    if (in.isKeyword(at, "DROP")) {
      return in.isKeyword(at + 1, "PARTITION") && in.isKeyword(at + 2, "FIELD")
          || in.isKeyword(at + 1, "IDENTIFIER") && in.isKeyword(at + 2, "FIELDS")
          || isRefKind(at + 1);
    }
    if (in.isKeyword(at, "SET")) {
      return in.isKeyword(at + 1, "IDENTIFIER") && in.isKeyword(at + 2, "FIELDS");
    }
    if (in.isKeyword(at, "CREATE")) {
      return isRefKind(at + 1)
          || in.isKeyword(at + 1, "OR") && in.isKeyword(at + 2, "REPLACE") && isRefKind(at + 3);
    }
    return in.isKeyword(at, "WRITE");
  }

  private boolean isRefKind(int at) {
    return in.isKeyword(at, "BRANCH") || in.isKeyword(at, "TAG");
  }

  // statements

  private ExtensionStatement statement() {
    in.expect("ALTER");
    in.expect("TABLE");
    List<String> table = in.multipartName();
    ExtensionStatement statement;
    if (in.accept("ADD")) {
      in.expect("PARTITION");
      in.expect("FIELD");
      statement = new ExtensionStatement.AddPartitionField(table, transform(), optionalAlias());
    } else if (in.acceptAll("DROP", "PARTITION")) {
      in.expect("FIELD");
      statement = new ExtensionStatement.DropPartitionField(table, transform());
    } else if (in.acceptAll("REPLACE", "PARTITION")) {
      in.expect("FIELD");
      TransformTerm from = transform();
      in.expect("WITH");
      statement = new ExtensionStatement.ReplacePartitionField(table, from, transform(), optionalAlias());
    } else if (in.accept("WRITE")) {
      statement = writeSpec(table);
    } else if (in.acceptAll("SET", "IDENTIFIER")) {
      in.expect("FIELDS");
      statement = new ExtensionStatement.SetIdentifierFields(table, fieldList());
    } else if (in.acceptAll("DROP", "IDENTIFIER")) {
      in.expect("FIELDS");
      statement = new ExtensionStatement.DropIdentifierFields(table, fieldList());
    } else if (in.accept("DROP")) {
      RefKind kind = refKind();
      boolean ifExists = in.acceptAll("IF", "EXISTS");
      statement = new ExtensionStatement.DropRef(table, kind, in.identifier("a " + kindName(kind) + " name"), ifExists);
    } else {
      statement = createOrReplaceRef(table);
    }
    in.endOfStatement();
    return statement;
  }

  private ExtensionStatement createOrReplaceRef(List<String> table) {
    boolean create = in.accept("CREATE");
    boolean replace;
    if (create) {
      replace = in.accept("OR");
      if (replace) {
        in.expect("REPLACE");
      }
    } else {
      in.expect("REPLACE");
      replace = true;
    }
    RefKind kind = refKind();
    boolean ifNotExists = false;
    if (in.isKeyword(0, "IF") && in.isKeyword(1, "NOT")) {
      if (replace) {
        throw in.error(in.peek(), "IF NOT EXISTS cannot be combined with REPLACE");
      }
      in.skip(2);
      in.expect("EXISTS");
      ifNotExists = true;
    }
    String name = in.identifier("a " + kindName(kind) + " name");
    Long snapshotId = null;
    if (in.accept("AS")) {
      in.expect("OF");
      in.expect("VERSION");
      snapshotId = in.number("a snapshot id");
    }
    Long maxRefAgeMs = null;
    if (in.accept("RETAIN")) {
      maxRefAgeMs = duration();
    }
    Integer minSnapshotsToKeep = null;
    Long maxSnapshotAgeMs = null;
    if (kind == RefKind.BRANCH && in.accept("WITH")) {
      in.expect("SNAPSHOT");
      in.expect("RETENTION");
      SqlToken countToken = in.peek();
      long count = in.number("a number of snapshots or an age");
      if (in.accept("SNAPSHOTS")) {
        minSnapshotsToKeep = toInt(countToken, count);
        if (in.peek().isInteger() || in.peek().isSymbol("-")) {
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
    SqlToken start = in.peek();
    SqlToken distribution = null;
    SqlToken ordering = null;
    boolean locally = false;
    boolean unordered = false;
    List<OrderField> order = List.of();
    while (true) {
      SqlToken clause = in.peek();
      if (in.accept("DISTRIBUTED")) {
        if (distribution != null) {
          throw in.error(clause, "ALTER TABLE contains multiple distribution clauses");
        }
        in.expect("BY");
        in.expect("PARTITION");
        distribution = clause;
      } else if (clause.isKeyword("LOCALLY") || clause.isKeyword("ORDERED") || clause.isKeyword("UNORDERED")) {
        if (ordering != null) {
          throw in.error(clause, "ALTER TABLE contains multiple ordering clauses");
        }
        ordering = clause;
        if (in.accept("UNORDERED")) {
          unordered = true;
        } else {
          locally = in.accept("LOCALLY");
          in.expect("ORDERED");
          in.expect("BY");
          order = order();
        }
      } else {
        break;
      }
    }
    if (distribution == null && ordering == null) {
      throw in.error(start, "expected DISTRIBUTED BY PARTITION, ORDERED BY, LOCALLY ORDERED BY or UNORDERED");
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
    boolean parenthesized = in.peek().isSymbol("(");
    if (parenthesized) {
      in.skip(1);
    }
    List<OrderField> fields = new ArrayList<>();
    do {
      fields.add(orderField());
    } while (in.acceptSymbol(","));
    if (parenthesized) {
      in.expectSymbol(")");
    }
    return List.copyOf(fields);
  }

  private OrderField orderField() {
    TransformTerm term = transform();
    SortDirection direction = SortDirection.ASC;
    if (in.accept("DESC")) {
      direction = SortDirection.DESC;
    } else {
      in.accept("ASC");
    }
    NullOrder nullOrder = direction == SortDirection.ASC ? NullOrder.NULLS_FIRST : NullOrder.NULLS_LAST;
    if (in.accept("NULLS")) {
      if (in.accept("FIRST")) {
        nullOrder = NullOrder.NULLS_FIRST;
      } else {
        in.expect("LAST");
        nullOrder = NullOrder.NULLS_LAST;
      }
    }
    return new OrderField(term, direction, nullOrder);
  }

  /** {@code column} or {@code name(argument, ...)}, each argument a column or an integer. */
  private TransformTerm transform() {
    SqlToken head = in.peek();
    if (!head.isIdentifier()) {
      throw in.error(head, "expected a column or a transform (" + TRANSFORMS + ")");
    }
    if (head.kind() != SqlToken.Kind.WORD || !in.peek(1).isSymbol("(")) {
      return new TransformTerm(TransformTerm.IDENTITY, in.multipartName(), null, true);
    }
    in.skip(2);
    String function = TransformTerm.canonical(head.text());
    if (function == null) {
      throw in.error(head, head.text().equalsIgnoreCase("zorder")
          ? "zorder is no partition transform nor write order; it is a sort order of rewrite_data_files"
          : "unknown transform " + head.text() + ", expected one of " + TRANSFORMS);
    }
    List<String> column = null;
    Integer width = null;
    do {
      SqlToken argument = in.peek();
      if (argument.isInteger() || argument.isSymbol("-")) {
        long value = in.number("a width");
        if (width != null) {
          throw in.error(argument, "transform " + head.text() + " takes one width");
        }
        if (value <= 0 || value > Integer.MAX_VALUE) {
          throw in.error(argument, "the width of " + head.text() + " must be a positive integer");
        }
        width = (int) value;
      } else if (argument.isIdentifier()) {
        if (column != null) {
          throw in.error(argument, "transform " + head.text() + " takes one column");
        }
        column = in.multipartName();
      } else {
        throw in.error(argument, "expected a column or an integer as argument of " + head.text());
      }
    } while (in.acceptSymbol(","));
    SqlToken close = in.peek();
    in.expectSymbol(")");
    boolean needsWidth = function.equals(TransformTerm.BUCKET) || function.equals(TransformTerm.TRUNCATE);
    if (column == null) {
      throw in.error(close, "transform " + head.text() + " needs a column");
    }
    if (needsWidth && width == null) {
      throw in.error(close, "transform " + head.text() + " needs a width: " + head.text() + "(n, column)");
    }
    if (!needsWidth && width != null) {
      throw in.error(close, "transform " + head.text() + " takes a column only");
    }
    return new TransformTerm(function, column, width, false);
  }

  private List<String> fieldList() {
    List<String> fields = new ArrayList<>();
    do {
      fields.add(String.join(".", in.multipartName()));
    } while (in.acceptSymbol(","));
    return List.copyOf(fields);
  }

  private String optionalAlias() {
    return in.accept("AS") ? in.identifier("a partition field name") : null;
  }

  private RefKind refKind() {
    if (in.accept("BRANCH")) {
      return RefKind.BRANCH;
    }
    if (in.accept("TAG")) {
      return RefKind.TAG;
    }
    throw in.error(in.peek(), "expected BRANCH or TAG");
  }

  private static String kindName(RefKind kind) {
    return kind.name().toLowerCase(Locale.ROOT);
  }

  /** {@code <n> DAYS|HOURS|MINUTES}, in milliseconds. */
  private long duration() {
    long amount = in.number("a number of days, hours or minutes");
    return timeUnit().toMillis(amount);
  }

  private TimeUnit timeUnit() {
    for (String unit : List.of("DAYS", "HOURS", "MINUTES")) {
      if (in.accept(unit)) {
        return TimeUnit.valueOf(unit);
      }
    }
    throw in.error(in.peek(), "expected DAYS, HOURS or MINUTES");
  }

  private int toInt(SqlToken token, long value) {
    if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
      throw in.error(token, value + " is out of range for a number of snapshots");
    }
    return (int) value;
  }


}
