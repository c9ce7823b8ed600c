package io.floe.spark.differential;

import java.util.HexFormat;
import org.apache.spark.sql.Row;

/** A row as text that shows its exact values: byte arrays in hex, floats with their sign of zero. */
final class RowText {
  private RowText() {}

  static String of(Row row) {
    StringBuilder text = new StringBuilder("[");
    for (int k = 0; k < row.length(); k += 1) {
      if (k > 0) {
        text.append(", ");
      }
      text.append((row.schema() == null ? EdgeRows.SCHEMA : row.schema()).fields()[k].name())
          .append('=');
      text.append(value(row.get(k)));
    }
    return text.append(']').toString();
  }

  private static String value(Object value) {
    if (value instanceof byte[] bytes) {
      return "X'" + HexFormat.of().withUpperCase().formatHex(bytes) + "'";
    } else if (value instanceof String string) {
      StringBuilder quoted = new StringBuilder("'");
      string.codePoints().forEach(
          c -> quoted.append(c < 0x20 || c > 0x7E ? String.format("\\u{%x}", c) : Character.toString(c)));
      return quoted.append('\'').toString();
    } else if (value instanceof java.math.BigDecimal decimal) {
      return decimal.toPlainString();
    }
    return String.valueOf(value);
  }
}
