package io.floe.spark.extensions;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Term;

/**
 * A column transform as the extension statements write it: a bare column ({@code identity}), or
 * {@code bucket(n, c)}, {@code truncate(w, c)}, {@code years(c)}, {@code months(c)}, {@code
 * days(c)}, {@code hours(c)}, with the official runtime's aliases ({@code year}, {@code month},
 * {@code day}, {@code date}, {@code hour}, {@code date_hour}, {@code identity(c)}).
 *
 * @param function the canonical transform name: one of {@link #FUNCTIONS}' values
 * @param column the column's name parts (a nested column has several)
 * @param width the bucket count or truncation width, or null for the other transforms
 * @param bare whether the transform was written as a bare name, without a function
 */
record TransformTerm(String function, List<String> column, Integer width, boolean bare) {
  static final String IDENTITY = "identity";
  static final String BUCKET = "bucket";
  static final String TRUNCATE = "truncate";

  /** Every name the grammar accepts, with the canonical name it stands for. */
  static final Map<String, String> FUNCTIONS =
      Map.ofEntries(
          Map.entry(IDENTITY, IDENTITY),
          Map.entry(BUCKET, BUCKET),
          Map.entry(TRUNCATE, TRUNCATE),
          Map.entry("years", "years"),
          Map.entry("year", "years"),
          Map.entry("months", "months"),
          Map.entry("month", "months"),
          Map.entry("days", "days"),
          Map.entry("day", "days"),
          Map.entry("date", "days"),
          Map.entry("hours", "hours"),
          Map.entry("hour", "hours"),
          Map.entry("date_hour", "hours"));

  TransformTerm {
    Objects.requireNonNull(function, "function is null");
    column = List.copyOf(Objects.requireNonNull(column, "column is null"));
    if (column.isEmpty()) {
      throw new IllegalArgumentException("column is empty");
    }
    if ((width != null) != (function.equals(BUCKET) || function.equals(TRUNCATE))) {
      throw new IllegalArgumentException("Cannot build " + function + ": width " + width);
    }
  }

  /** The canonical name a written transform name stands for, or null when there is none. */
  static String canonical(String written) {
    return FUNCTIONS.get(written.toLowerCase(Locale.ROOT));
  }

  /** The column as Iceberg names it: parts joined by dots. */
  String columnName() {
    return String.join(".", column);
  }

  /** Whether this is a bare single name, which DROP PARTITION FIELD may read as a field name. */
  boolean isBareName() {
    return bare && column.size() == 1;
  }

  /** The Iceberg term of this transform. */
  Term toTerm() {
    String name = columnName();
    switch (function) {
      case IDENTITY:
        return Expressions.ref(name);
      case BUCKET:
        return Expressions.bucket(name, width);
      case TRUNCATE:
        return Expressions.truncate(name, width);
      case "years":
        return Expressions.year(name);
      case "months":
        return Expressions.month(name);
      case "days":
        return Expressions.day(name);
      case "hours":
        return Expressions.hour(name);
      default:
        throw new IllegalStateException("Unknown transform: " + function);
    }
  }

  @Override
  public String toString() {
    String quoted = Names.quoted(column);
    if (function.equals(IDENTITY)) {
      return quoted;
    }
    return function + "(" + (width == null ? "" : width + ", ") + quoted + ")";
  }
}
