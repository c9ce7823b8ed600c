package io.floe.spark.procedures;

import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.StructType;

/** A procedure's output: a few rows computed on the driver, returned as a local scan. */
final class ProcedureResult implements LocalScan {
  private final StructType schema;
  private final InternalRow[] rows;

  ProcedureResult(StructType schema, InternalRow[] rows) {
    this.schema = Objects.requireNonNull(schema, "schema is null");
    this.rows = Objects.requireNonNull(rows, "rows is null").clone();
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
    return "ProcedureResult(" + rows.length + " rows, " + schema.simpleString() + ")";
  }
}
