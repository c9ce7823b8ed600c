package io.floe.spark.bench;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The Iceberg schema of the benchmarks' synthetic table ({@code id, k, v1, v2, s1, s2, d, ts}, as
 * {@link BenchMain} generates it), for the harnesses that write its rows through a writer directly
 * rather than through SQL.
 */
public final class SyntheticSchema {
  /** The eight columns, all optional, field ids 1 to 8. */
  public static final Schema COLUMNS =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "k", Types.LongType.get()),
          Types.NestedField.optional(3, "v1", Types.DoubleType.get()),
          Types.NestedField.optional(4, "v2", Types.DoubleType.get()),
          Types.NestedField.optional(5, "s1", Types.StringType.get()),
          Types.NestedField.optional(6, "s2", Types.StringType.get()),
          Types.NestedField.optional(7, "d", Types.DateType.get()),
          Types.NestedField.optional(8, "ts", Types.TimestampType.withZone()));

  private SyntheticSchema() {}

  /** The eight columns followed by {@code extra}. */
  public static Schema with(Types.NestedField extra) {
    List<Types.NestedField> fields = new ArrayList<>(COLUMNS.columns());
    fields.add(extra);
    return new Schema(fields);
  }
}
