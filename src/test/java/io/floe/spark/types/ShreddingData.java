package io.floe.spark.types;

import java.util.ArrayList;
import java.util.List;

/**
 * Variant test data with a shape worth shredding: most rows are objects with the same fields
 * ({@code a} an integer of growing width, {@code b} a string, {@code n} a nested object with a
 * double (written with an exponent, so {@code parse_json} makes it a double, not a decimal) and an
 * array of strings, {@code arr} an array of integers), and every kind of value the
 * inferred layout does not fit: fields of another type, missing and extra fields, variant nulls as
 * values and fields, arrays of mixed types, top-level arrays and scalars, an empty object and, if
 * asked, decimals of different scales and sizes. Row {@code NULL_ROW} is a SQL NULL.
 */
final class ShreddingData {
  /** Rows {@code 0..ROWS-1}. */
  static final int ROWS = 60;
  /** The row whose string is NULL, so its variant is a SQL NULL. */
  static final int NULL_ROW = 6;

  /** What both engines print for a variant column {@code v}; no value holds a '|'. */
  static final String SHAPE =
      "id, to_json(v), try_variant_get(v, '$.a', 'bigint'), try_variant_get(v, '$.b', 'string'),"
          + " try_variant_get(v, '$.n.x', 'double'), to_json(try_variant_get(v, '$.n.tags')),"
          + " to_json(try_variant_get(v, '$.arr')), try_variant_get(v, '$.arr[1]', 'int'),"
          + " is_variant_null(v), v IS NULL, schema_of_variant(v)";

  private ShreddingData() {}

  /** The JSON of row {@code i}, or null for {@link #NULL_ROW}. */
  static String json(int i, boolean withDecimals) {
    if (i == NULL_ROW) {
      return null;
    }
    if (i == 5) {
      return "null";
    }
    if (i == 13 || i == 39) {
      return "[1, 2, {\"a\": 3}]";
    }
    if (i == 26) {
      return "\"just a string\"";
    }
    if (i == 52) {
      return "{}";
    }
    long a = i % 4 == 0 ? i : i % 4 == 1 ? 300L * i : i % 4 == 2 ? 70000L * i : 5000000000L * i;
    StringBuilder json = new StringBuilder("{");
    json.append("\"a\": ").append(i % 7 == 0 ? "\"not a number\"" : String.valueOf(a));
    if (i % 11 != 0) {
      json.append(", \"b\": \"s").append(i).append("\"");
    } else {
      json.append(", \"extra").append(i).append("\": [true, null]");
    }
    if (i % 9 == 0) {
      json.append(", \"n\": null");
    } else if (i % 17 == 0) {
      json.append(", \"n\": {\"x\": \"text\", \"deep\": {\"y\": [[1], []]}}");
    } else {
      json.append(", \"n\": {\"x\": ").append(i * 1.5).append("E0")
          .append(", \"tags\": [\"t")
          .append(i % 3).append("\", \"u\"]}");
    }
    json.append(", \"arr\": ")
        .append(i % 5 == 0 ? "[1, \"x\", null]" : "[" + i + ", " + (i + 1) + "]");
    if (withDecimals && i % 3 == 0) {
      json.append(", \"d\": ")
          .append(i % 2 == 0 ? "1.5" : i % 5 == 0 ? "12345678901234567890.123" : "12.250");
    }
    return json.append("}").toString();
  }

  /** The rows as an inline table {@code src(id, s)} both engines parse. */
  static String values(boolean withDecimals) {
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      String json = json(i, withDecimals);
      rows.add("(" + i + ", " + (json == null ? "CAST(NULL AS STRING)" : "'" + json + "'") + ")");
    }
    return "VALUES " + String.join(", ", rows) + " AS src(id, s)";
  }
}
