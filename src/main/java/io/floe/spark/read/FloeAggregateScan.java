package io.floe.spark.read;

import io.floe.spark.read.plan.MetadataAggregates;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.StructType;

/**
 * The answer of an aggregation that file metadata gave exactly ({@link MetadataAggregates}): one
 * row, computed on the driver, that Spark returns without reading any data file.
 */
public final class FloeAggregateScan implements LocalScan, Serializable {
  private final String tableName;
  private final Long snapshotId;
  private final StructType schema;
  private final InternalRow row;
  private final List<String> functions;

  /**
   * @param tableName the table's name
   * @param snapshotId the snapshot the answer is of, or null for a table without snapshots
   * @param schema one column per aggregate function, in Spark's order
   * @param row the answer
   * @param functions the aggregate functions, as EXPLAIN shows them
   */
  public FloeAggregateScan(
      String tableName, Long snapshotId, StructType schema, InternalRow row, List<String> functions) {
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.snapshotId = snapshotId;
    this.schema = Objects.requireNonNull(schema, "schema is null");
    this.row = Objects.requireNonNull(row, "row is null").copy();
    this.functions = List.copyOf(Objects.requireNonNull(functions, "functions is null"));
    if (schema.fields().length != row.numFields() || functions.size() != row.numFields()) {
      throw new IllegalArgumentException(
          "Cannot answer aggregation of " + tableName + ": " + functions.size() + " functions, "
              + schema.fields().length + " columns and " + row.numFields() + " values");
    }
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

  public InternalRow row() {
    return row;
  }

  public List<String> functions() {
    return functions;
  }

  @Override
  public InternalRow[] rows() {
    return new InternalRow[] {row};
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    return String.format(
        "Floe %s [snapshot=%s, aggregates from file metadata=%s]",
        tableName, snapshotId == null ? "none" : snapshotId, functions);
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
        && row.equals(that.row)
        && functions.equals(that.functions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tableName, snapshotId, schema, row, functions);
  }

  @Override
  public String toString() {
    return description();
  }
}
