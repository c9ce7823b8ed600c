package io.floe.spark.procedures;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Term;

/**
 * A {@code sort_order} argument, parsed by Floe itself (the official runtime needs its SQL
 * extensions for it): a comma-separated list of sort fields, each a column or a transform of one
 * ({@code bucket(16, id)}, {@code truncate(data, 4)}, {@code years(ts)} ... {@code hours(ts)}, or
 * their singular names), optionally followed by {@code ASC}/{@code DESC} and {@code NULLS
 * FIRST}/{@code NULLS LAST}; or a single {@code zorder(c1, c2, ...)}. Keywords are
 * case-insensitive; a column name may be dotted (nested) and back-quoted. As in Iceberg, ascending
 * is the default direction, with nulls first when ascending and last when descending.
 *
 * <p>Carries the parsed fields in order, or the z-order columns.
 */
final class SortOrderText {
  /** One parsed sort field: the term's text parts, direction and null order. */
  record Field(String function, List<String> arguments, SortDirection direction, NullOrder nulls) {}

  private final String text;
  private final List<Field> fields;
  private final List<String> zOrderColumns;

  private SortOrderText(String text, List<Field> fields, List<String> zOrderColumns) {
    this.text = text;
    this.fields = List.copyOf(fields);
    this.zOrderColumns = List.copyOf(zOrderColumns);
  }

  /**
   * Parses the text.
   *
   * @throws IllegalArgumentException naming the text and what is wrong with it
   */
  static SortOrderText parse(String text) {
    Objects.requireNonNull(text, "text is null");
    Tokens tokens = new Tokens(text);
    List<Field> fields = new ArrayList<>();
    List<String> zOrder = new ArrayList<>();
    do {
      String name = tokens.name();
      List<String> arguments = new ArrayList<>();
      String function = null;
      if (tokens.accept("(")) {
        function = name.toLowerCase(Locale.ROOT);
        do {
          arguments.add(tokens.name());
        } while (tokens.accept(","));
        tokens.expect(")");
      } else {
        arguments.add(name);
      }
      SortDirection direction = SortDirection.ASC;
      if (tokens.acceptKeyword("desc")) {
        direction = SortDirection.DESC;
      } else {
        tokens.acceptKeyword("asc");
      }
      NullOrder nulls = direction == SortDirection.ASC ? NullOrder.NULLS_FIRST : NullOrder.NULLS_LAST;
      if (tokens.acceptKeyword("nulls")) {
        if (tokens.acceptKeyword("first")) {
          nulls = NullOrder.NULLS_FIRST;
        } else if (tokens.acceptKeyword("last")) {
          nulls = NullOrder.NULLS_LAST;
        } else {
          throw tokens.error("expected FIRST or LAST after NULLS");
        }
      }
      if ("zorder".equals(function)) {
        zOrder.addAll(arguments);
      } else {
        fields.add(new Field(function, arguments, direction, nulls));
      }
    } while (tokens.accept(","));
    tokens.expectEnd();
    if (!zOrder.isEmpty() && !fields.isEmpty()) {
      throw new IllegalArgumentException(
          "Cannot parse sort order '" + text + "': a zorder(...) cannot be mixed with other sort fields");
    }
    return new SortOrderText(text, fields, zOrder);
  }

  /** Whether the text is a {@code zorder(...)}. */
  boolean isZOrder() {
    return !zOrderColumns.isEmpty();
  }

  List<String> zOrderColumns() {
    return zOrderColumns;
  }

  List<Field> fields() {
    return fields;
  }

  /**
   * The Iceberg sort order of the fields, bound to the schema.
   *
   * @throws IllegalArgumentException naming the text when a column or transform is unknown
   */
  SortOrder toSortOrder(Schema schema, boolean caseSensitive) {
    SortOrder.Builder builder = SortOrder.builderFor(schema).caseSensitive(caseSensitive);
    try {
      for (Field field : fields) {
        builder.sortBy(term(field), field.direction(), field.nulls());
      }
      return builder.build();
    } catch (org.apache.iceberg.exceptions.ValidationException e) {
      throw new IllegalArgumentException(
          "Cannot use sort order '" + text + "': " + e.getMessage(), e);
    }
  }

  private Term term(Field field) {
    List<String> args = field.arguments();
    if (field.function() == null) {
      return Expressions.ref(args.get(0));
    }
    switch (field.function()) {
      case "identity":
        return Expressions.ref(single(field));
      case "bucket":
        return Expressions.bucket(columnOf(field), widthOf(field));
      case "truncate":
        return Expressions.truncate(columnOf(field), widthOf(field));
      case "years":
      case "year":
        return Expressions.year(single(field));
      case "months":
      case "month":
        return Expressions.month(single(field));
      case "days":
      case "day":
      case "date":
        return Expressions.day(single(field));
      case "hours":
      case "hour":
      case "date_hour":
        return Expressions.hour(single(field));
      default:
        throw new IllegalArgumentException(
            "Cannot use sort order '" + text + "': unknown transform " + field.function());
    }
  }

  private String single(Field field) {
    if (field.arguments().size() != 1) {
      throw new IllegalArgumentException(
          "Cannot use sort order '" + text + "': " + field.function() + " takes one column");
    }
    return field.arguments().get(0);
  }

  /** The column of {@code bucket(n, col)} or {@code truncate(col, n)} (either order). */
  private String columnOf(Field field) {
    checkTwo(field);
    return isNumber(field.arguments().get(0)) ? field.arguments().get(1) : field.arguments().get(0);
  }

  private int widthOf(Field field) {
    checkTwo(field);
    String width =
        isNumber(field.arguments().get(0)) ? field.arguments().get(0) : field.arguments().get(1);
    if (!isNumber(width)) {
      throw new IllegalArgumentException(
          "Cannot use sort order '" + text + "': " + field.function() + " needs a number");
    }
    return Integer.parseInt(width);
  }

  private void checkTwo(Field field) {
    if (field.arguments().size() != 2) {
      throw new IllegalArgumentException(
          "Cannot use sort order '"
              + text
              + "': "
              + field.function()
              + " takes a number and a column");
    }
  }

  private static boolean isNumber(String value) {
    return !value.isEmpty() && value.chars().allMatch(Character::isDigit);
  }

  @Override
  public String toString() {
    return text;
  }

  /** The tokens of the text: names (dotted, back-quoted or numbers) and punctuation. */
  private static final class Tokens {
    private final String text;
    private int position;

    Tokens(String text) {
      this.text = text;
    }

    private void skipSpaces() {
      while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
        position++;
      }
    }

    boolean accept(String punctuation) {
      skipSpaces();
      if (text.startsWith(punctuation, position)) {
        position += punctuation.length();
        return true;
      }
      return false;
    }

    void expect(String punctuation) {
      if (!accept(punctuation)) {
        throw error("expected '" + punctuation + "'");
      }
    }

    void expectEnd() {
      skipSpaces();
      if (position < text.length()) {
        throw error("unexpected '" + text.substring(position) + "'");
      }
    }

    boolean acceptKeyword(String keyword) {
      skipSpaces();
      int end = position + keyword.length();
      if (text.regionMatches(true, position, keyword, 0, keyword.length())
          && (end == text.length() || !isNamePart(text.charAt(end)))) {
        position = end;
        return true;
      }
      return false;
    }

    /** A possibly dotted name, each part plain or back-quoted, or a number. */
    String name() {
      StringBuilder name = new StringBuilder();
      do {
        if (name.length() > 0) {
          name.append('.');
        }
        name.append(part());
      } while (acceptDot());
      return name.toString();
    }

    private boolean acceptDot() {
      if (position < text.length() && text.charAt(position) == '.') {
        position++;
        return true;
      }
      return false;
    }

    private String part() {
      skipSpaces();
      if (position < text.length() && text.charAt(position) == '`') {
        StringBuilder part = new StringBuilder();
        position++;
        while (position < text.length()) {
          char c = text.charAt(position++);
          if (c == '`') {
            if (position < text.length() && text.charAt(position) == '`') {
              part.append('`');
              position++;
            } else {
              return part.toString();
            }
          } else {
            part.append(c);
          }
        }
        throw error("unclosed back-quote");
      }
      int start = position;
      while (position < text.length() && isNamePart(text.charAt(position))) {
        position++;
      }
      if (start == position) {
        throw error(
            position < text.length()
                ? "expected a column name at '" + text.substring(position) + "'"
                : "expected a column name at the end");
      }
      return text.substring(start, position);
    }

    private static boolean isNamePart(char c) {
      return Character.isLetterOrDigit(c) || c == '_';
    }

    IllegalArgumentException error(String why) {
      return new IllegalArgumentException("Cannot parse sort order '" + text + "': " + why);
    }
  }
}
