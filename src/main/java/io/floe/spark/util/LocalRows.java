package io.floe.spark.util;

import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.StructType;

/**
 * A statement's output computed on the driver (a procedure's result, a view command's rows), as the
 * local scan a {@code CALL} returns. It carries the output schema, the rows and the name the plan
 * shows for it.
 */
public final class LocalRows implements LocalScan {
  private final String name;
  private final StructType schema;
  private final InternalRow[] rows;

  /**
   * @param name what the plan calls this output, e.g. {@code ProcedureResult}
   * @param schema the output columns
   * @param rows the output rows, copied
   */
  public LocalRows(String name, StructType schema, InternalRow[] rows) {
    this.name = Objects.requireNonNull(name, "name is null");
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
    return name + "(" + rows.length + " rows, " + schema.simpleString() + ")";
  }
}
