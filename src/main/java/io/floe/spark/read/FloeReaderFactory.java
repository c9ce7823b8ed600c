package io.floe.spark.read;

import io.floe.spark.util.PlanValues;
import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;

/**
 * What every executor needs to read any partition of a scan: the FileIO and the schemas the driver
 * planned against. It only picks a reader; it never plans and never calls a catalog.
 */
public final class FloeReaderFactory implements PartitionReaderFactory {
  private final String tableName;
  private final FileIO io;
  private final Schema tableSchema;
  private final Schema readSchema;
  private final boolean caseSensitive;

  /**
   * @param tableName the table's name, for messages
   * @param io the table's FileIO, which opens data and delete files
   * @param tableSchema the schema the tasks were planned with (delete files resolve against it)
   * @param readSchema the projected schema to produce, metadata columns included
   * @param caseSensitive whether residual filters bind case-sensitively
   */
  public FloeReaderFactory(
      String tableName, FileIO io, Schema tableSchema, Schema readSchema, boolean caseSensitive) {
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.io = Objects.requireNonNull(io, "io is null");
    this.tableSchema = Objects.requireNonNull(tableSchema, "tableSchema is null");
    this.readSchema = Objects.requireNonNull(readSchema, "readSchema is null");
    this.caseSensitive = caseSensitive;
  }

  public String tableName() {
    return tableName;
  }

  public FileIO io() {
    return io;
  }

  public Schema tableSchema() {
    return tableSchema;
  }

  public Schema readSchema() {
    return readSchema;
  }

  public boolean caseSensitive() {
    return caseSensitive;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    if (!(partition instanceof FloeInputPartition)) {
      throw new IllegalArgumentException(
          "Cannot read " + tableName + ": not a Floe input partition: " + partition);
    }
    return new FloeRowReader(this, (FloeInputPartition) partition);
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeReaderFactory)) {
      return false;
    }
    FloeReaderFactory that = (FloeReaderFactory) other;
    return caseSensitive == that.caseSensitive
        && tableName.equals(that.tableName)
        && PlanValues.sameIo(io, that.io)
        && PlanValues.sameSchema(tableSchema, that.tableSchema)
        && PlanValues.sameSchema(readSchema, that.readSchema);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        tableName, PlanValues.ioHash(io), PlanValues.schemaHash(tableSchema),
        PlanValues.schemaHash(readSchema), caseSensitive);
  }

  @Override
  public String toString() {
    return "FloeReaderFactory{table="
        + tableName
        + ", io="
        + PlanValues.describeIo(io)
        + ", readSchema="
        + readSchema.asStruct()
        + ", caseSensitive="
        + caseSensitive
        + "}";
  }
}
