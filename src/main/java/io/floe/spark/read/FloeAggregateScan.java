package io.floe.spark.read;

import io.floe.spark.read.plan.MetadataAggregates;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.StructType;

/**
 * The answer of an aggregation that file metadata gave exactly ({@link MetadataAggregates}): one
 * row, or one per group of a GROUP BY over identity partition columns, computed on the driver,
 * that Spark returns without reading any data file.
 */
public final class FloeAggregateScan implements LocalScan, Serializable {
  private final String tableName;
  private final Long snapshotId;
  private final StructType schema;
  private final List<InternalRow> rows;
  private final List<String> groupBy;
  private final List<String> functions;

  /**
   * @param tableName the table's name
   * @param snapshotId the snapshot the answer is of, or null for a table without snapshots
   * @param schema one column per GROUP BY column, then one per aggregate function, in Spark's
   *     order
   * @param rows the answer, one row per group
   * @param groupBy the GROUP BY columns, as EXPLAIN shows them
   * @param functions the aggregate functions, as EXPLAIN shows them
   */
  public FloeAggregateScan(
      String tableName,
      Long snapshotId,
      StructType schema,
      List<InternalRow> rows,
      List<String> groupBy,
      List<String> functions) {
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.snapshotId = snapshotId;
    this.schema = Objects.requireNonNull(schema, "schema is null");
    this.groupBy = List.copyOf(Objects.requireNonNull(groupBy, "groupBy is null"));
    this.functions = List.copyOf(Objects.requireNonNull(functions, "functions is null"));
    List<InternalRow> copies = new ArrayList<>();
    for (InternalRow row : Objects.requireNonNull(rows, "rows is null")) {
      int columns = groupBy.size() + functions.size();
      if (schema.fields().length != columns || row.numFields() != columns) {
        throw new IllegalArgumentException(
            "Cannot answer aggregation of " + tableName + ": " + groupBy.size() + " groups by, "
                + functions.size() + " functions, " + schema.fields().length + " columns and "
                + row.numFields() + " values");
      }
      copies.add(row.copy());
    }
    this.rows = List.copyOf(copies);
  }

  public String tableName() {
    return tableName;
  }

  public Long snapshotId() {
    return snapshotId;
  }

  public StructType schema() {
    return schema;
  }

  /** The answer rows, one per group. */
  public List<InternalRow> answerRows() {
    return rows;
  }

  public List<String> groupBy() {
    return groupBy;
  }

  public List<String> functions() {
    return functions;
  }

  @Override
  public InternalRow[] rows() {
    return rows.toArray(new InternalRow[0]);
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    return String.format(
        "Floe %s [snapshot=%s, aggregates from file metadata=%s%s]",
        tableName, snapshotId == null ? "none" : snapshotId, functions,
        groupBy.isEmpty() ? "" : ", group by partition columns=" + groupBy);
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeAggregateScan)) {
      return false;
    }
    FloeAggregateScan that = (FloeAggregateScan) other;
    return tableName.equals(that.tableName)
        && Objects.equals(snapshotId, that.snapshotId)
        && schema.equals(that.schema)
        && rows.equals(that.rows)
        && groupBy.equals(that.groupBy)
        && functions.equals(that.functions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tableName, snapshotId, schema, rows, groupBy, functions);
  }

  @Override
  public String toString() {
    return description();
  }
}
