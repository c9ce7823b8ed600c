package io.floe.spark.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A query result as plain text: a header line with the column names, a rule, one line per row and
 * a row count such as {@code (3 rows)}. Values are shown as Spark casts them to strings (timestamps
 * in the session time zone), binary values as hex, nulls as {@code NULL}; numbers are aligned
 * right, everything else left. Line breaks and tabs inside values are shown as {@code \n} and
 * {@code \t} so that each row stays on one line.
 *
 * <p>At most {@code maxRows} rows are collected to the driver; a longer result says so under the
 * table.
 */
final class ResultTable {
  private static final String NULL = "NULL";
  private static final String SEPARATOR = " | ";

  private final List<String> headers;
  private final List<Boolean> rightAligned;
  private final List<List<String>> rows;
  private final boolean truncated;

  private ResultTable(
      List<String> headers, List<Boolean> rightAligned, List<List<String>> rows, boolean truncated) {
    this.headers = headers;
    this.rightAligned = rightAligned;
    this.rows = rows;
    this.truncated = truncated;
  }

  /**
   * Runs the result and collects up to {@code maxRows} rows as text.
   *
   * @throws RuntimeException whatever Spark throws while running the query
   */
  static ResultTable collect(Dataset<Row> result, int maxRows) {
    Objects.requireNonNull(result, "result is null");
    if (maxRows <= 0) {
      throw new IllegalArgumentException("Cannot show a result: max rows must be positive, not " + maxRows);
    }
    StructType schema = result.schema();
    StructField[] fields = schema.fields();
    List<String> headers = new ArrayList<>(fields.length);
    List<Boolean> rightAligned = new ArrayList<>(fields.length);
    String[] positional = new String[fields.length];
    Column[] asText = new Column[fields.length];
    for (int i = 0; i < fields.length; i++) {
      headers.add(fields[i].name());
      rightAligned.add(fields[i].dataType() instanceof NumericType);
      // positional names: a result may repeat a column name (SELECT a.id, b.id)
      positional[i] = "c" + i;
      Column column = functions.col(positional[i]);
      asText[i] = fields[i].dataType() instanceof BinaryType ? functions.hex(column) : column.cast("string");
    }

    List<Row> collected =
        result.toDF(positional).select(asText).limit(maxRows + 1).collectAsList();
    boolean truncated = collected.size() > maxRows;
    List<List<String>> rows = new ArrayList<>(Math.min(collected.size(), maxRows));
    for (Row row : collected.subList(0, Math.min(collected.size(), maxRows))) {
      List<String> cells = new ArrayList<>(fields.length);
      for (int i = 0; i < fields.length; i++) {
        cells.add(row.isNullAt(i) ? NULL : printable(row.getString(i)));
      }
      rows.add(cells);
    }
    return new ResultTable(List.copyOf(headers), List.copyOf(rightAligned), rows, truncated);
  }

  /** Whether the result has no columns, as DDL and DML statements return. */
  boolean hasNoColumns() {
    return headers.isEmpty();
  }

  /** The lines to print, without line terminators. */
  List<String> lines() {
    int[] widths = new int[headers.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = width(headers.get(i));
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], width(row.get(i)));
      }
    }
    List<String> lines = new ArrayList<>(rows.size() + 3);
    lines.add(line(headers, widths, false));
    StringBuilder rule = new StringBuilder();
    for (int i = 0; i < widths.length; i++) {
      rule.append(i == 0 ? "" : "-+-").append("-".repeat(widths[i]));
    }
    lines.add(rule.toString());
    for (List<String> row : rows) {
      lines.add(line(row, widths, true));
    }
    if (truncated) {
      lines.add(String.format("(first %d rows shown; the result has more)", rows.size()));
    } else {
      lines.add(rows.size() == 1 ? "(1 row)" : "(" + rows.size() + " rows)");
    }
    return lines;
  }

  private String line(List<String> cells, int[] widths, boolean align) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      String cell = cells.get(i);
      String padding = " ".repeat(widths[i] - width(cell));
      line.append(i == 0 ? "" : SEPARATOR);
      if (align && rightAligned.get(i)) {
        line.append(padding).append(cell);
      } else {
        line.append(cell).append(padding);
      }
    }
    return line.toString().stripTrailing();
  }

  private static int width(String text) {
    return text.codePointCount(0, text.length());
  }

  private static String printable(String value) {
    return value.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t");
  }
}
