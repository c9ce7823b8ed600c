package io.floe.spark.extensions;

import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/** A view statement's output: a few rows computed on the driver, as the local scan a CALL returns. */
final class CommandRows implements LocalScan {
  private final StructType schema;
  private final InternalRow[] rows;

  CommandRows(StructType schema, List<InternalRow> rows) {
    this.schema = Objects.requireNonNull(schema, "schema is null");
    this.rows = Objects.requireNonNull(rows, "rows is null").toArray(new InternalRow[0]);
  }

  /** A row of strings and booleans, in Spark's internal form. */
  static InternalRow row(Object... values) {
    Object[] converted = new Object[values.length];
    for (int i = 0; i < values.length; i++) {
      converted[i] = values[i] instanceof String s ? UTF8String.fromString(s) : values[i];
    }
    return new GenericInternalRow(converted);
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public InternalRow[] rows() {
    return rows.clone();
  }

  @Override
  public String description() {
    return "CommandRows(" + rows.length + " rows, " + schema.simpleString() + ")";
  }
}
