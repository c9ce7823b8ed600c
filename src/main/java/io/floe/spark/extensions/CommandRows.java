package io.floe.spark.extensions;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rows of a view statement's output, in Spark's internal form; {@link ViewCommand} returns them
 * as a {@link io.floe.spark.util.LocalRows} scan.
 */
final class CommandRows {
  private CommandRows() {}

  /** A row of strings and booleans, in Spark's internal form. */
  static InternalRow row(Object... values) {
    Object[] converted = new Object[values.length];
    for (int i = 0; i < values.length; i++) {
      converted[i] = values[i] instanceof String s ? UTF8String.fromString(s) : values[i];
    }
    return new GenericInternalRow(converted);
  }
}
