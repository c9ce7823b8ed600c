package io.floe.spark.write;

import io.floe.spark.util.PlanValues;
import java.util.Objects;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;

/**
 * What every writer task needs: a read-only copy of the table's metadata (FileIO, location
 * provider, properties, sort order), the schema and spec to write, the file settings, and whether
 * the rows come sorted by the table's sort order, so that the files may record it. It never calls
 * a catalog.
 */
public final class FloeDataWriterFactory implements DataWriterFactory {
  private final Table table;
  private final Schema schema;
  private final PartitionSpec spec;
  private final long targetFileSizeBytes;
  private final boolean fanoutEnabled;
  private final String commitId;
  private final boolean recordSortOrder;

  /**
   * @param table a serializable, read-only copy of the table
   * @param schema the schema rows are written with
   * @param spec the partition spec files are written with
   * @param targetFileSizeBytes data files roll over at this size
   * @param fanoutEnabled whether one file per partition stays open (any input order)
   * @param commitId the write's commit id (shown in plans; file names carry their own random id)
   * @param recordSortOrder whether Spark sorts every task's rows by the partition transforms and
   *     then the table's sort order ({@link WriteDistribution#sortsBySortOrder()}), so that files
   *     written one at a time carry the table's sort order id
   */
  public FloeDataWriterFactory(
      Table table,
      Schema schema,
      PartitionSpec spec,
      long targetFileSizeBytes,
      boolean fanoutEnabled,
      String commitId,
      boolean recordSortOrder) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.schema = Objects.requireNonNull(schema, "schema is null");
    this.spec = Objects.requireNonNull(spec, "spec is null");
    this.targetFileSizeBytes = targetFileSizeBytes;
    this.fanoutEnabled = fanoutEnabled;
    this.commitId = Objects.requireNonNull(commitId, "commitId is null");
    this.recordSortOrder = recordSortOrder;
  }

  public Table table() {
    return table;
  }

  public Schema schema() {
    return schema;
  }

  public PartitionSpec spec() {
    return spec;
  }

  public long targetFileSizeBytes() {
    return targetFileSizeBytes;
  }

  public boolean fanoutEnabled() {
    return fanoutEnabled;
  }

  public String commitId() {
    return commitId;
  }

  public boolean recordSortOrder() {
    return recordSortOrder;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return new FloeDataWriter(this, partitionId, taskId);
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeDataWriterFactory)) {
      return false;
    }
    FloeDataWriterFactory that = (FloeDataWriterFactory) other;
    return table.name().equals(that.table.name())
        && table.location().equals(that.table.location())
        && PlanValues.sameIo(table.io(), that.table.io())
        && PlanValues.sameSchema(schema, that.schema)
        && PlanValues.sameSpec(spec, that.spec)
        && targetFileSizeBytes == that.targetFileSizeBytes
        && fanoutEnabled == that.fanoutEnabled
        && commitId.equals(that.commitId)
        && recordSortOrder == that.recordSortOrder;
  }

  @Override
  public int hashCode() {
    return Objects.hash(table.name(), commitId, spec.specId(), targetFileSizeBytes, fanoutEnabled);
  }

  @Override
  public String toString() {
    return "FloeDataWriterFactory{table="
        + table.name()
        + ", io="
        + PlanValues.describeIo(table.io())
        + ", spec="
        + spec
        + ", targetFileSizeBytes="
        + targetFileSizeBytes
        + ", fanout="
        + fanoutEnabled
        + ", commitId="
        + commitId
        + (recordSortOrder ? ", sortOrderId=" + table.sortOrder().orderId() : "")
        + "}";
  }
}
