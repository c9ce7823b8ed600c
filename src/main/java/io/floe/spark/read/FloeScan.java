package io.floe.spark.read;

import io.floe.spark.types.SparkSchemas;
import io.floe.spark.util.PlanValues;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.FileIO;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.types.StructType;

/**
 * A scan pinned to one snapshot and schema, with its file tasks planned once on the driver and
 * grouped into input partitions. A commit by someone else after planning does not change what it
 * reads. An empty scan (no snapshot, or everything pruned) is valid and returns no rows.
 */
public final class FloeScan implements Scan, SupportsReportStatistics, Serializable {
  private final String tableName;
  private final String metadataLocation;
  private final Long snapshotId;
  private final FileIO io;
  private final Schema tableSchema;
  private final Schema readSchema;
  private final Expression filter;
  private final List<FloeInputPartition> partitions;
  private final ReadOptions options;

  /**
   * @param tableName the table's name
   * @param metadataLocation the metadata file the plan was made from, or null when unknown
   * @param snapshotId the snapshot read, or null for a table without snapshots
   * @param io the table's FileIO
   * @param tableSchema the schema of the snapshot read
   * @param readSchema the projected schema, metadata columns included
   * @param filter the converted filter used for planning
   * @param partitions the planned task groups
   * @param options the resolved read options
   */
  public FloeScan(
      String tableName,
      String metadataLocation,
      Long snapshotId,
      FileIO io,
      Schema tableSchema,
      Schema readSchema,
      Expression filter,
      List<FloeInputPartition> partitions,
      ReadOptions options) {
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.metadataLocation = metadataLocation;
    this.snapshotId = snapshotId;
    this.io = Objects.requireNonNull(io, "io is null");
    this.tableSchema = Objects.requireNonNull(tableSchema, "tableSchema is null");
    this.readSchema = Objects.requireNonNull(readSchema, "readSchema is null");
    this.filter = Objects.requireNonNull(filter, "filter is null");
    this.partitions = List.copyOf(Objects.requireNonNull(partitions, "partitions is null"));
    this.options = Objects.requireNonNull(options, "options is null");
  }

  public String tableName() {
    return tableName;
  }

  public String metadataLocation() {
    return metadataLocation;
  }

  public Long snapshotId() {
    return snapshotId;
  }

  public FileIO io() {
    return io;
  }

  public Schema tableSchema() {
    return tableSchema;
  }

  public Schema projectedSchema() {
    return readSchema;
  }

  public Expression filter() {
    return filter;
  }

  public List<FloeInputPartition> partitions() {
    return partitions;
  }

  public ReadOptions options() {
    return options;
  }

  @Override
  public StructType readSchema() {
    return SparkSchemas.toSpark(readSchema);
  }

  @Override
  public Batch toBatch() {
    return new FloeBatch(
        partitions,
        new FloeReaderFactory(tableName, io, tableSchema, readSchema, options.caseSensitive()));
  }

  @Override
  public Statistics estimateStatistics() {
    long bytes = 0;
    long rows = 0;
    for (FloeInputPartition partition : partitions) {
      for (FileScanTask task : partition.tasks()) {
        bytes += task.length();
        rows += estimatedRows(task);
      }
    }
    long sizeInBytes = bytes;
    long numRows = rows;
    return new Statistics() {
      @Override
      public OptionalLong sizeInBytes() {
        return OptionalLong.of(sizeInBytes);
      }

      @Override
      public OptionalLong numRows() {
        return OptionalLong.of(numRows);
      }
    };
  }

  /** Rows in a task before deletes, so that deletes never make the estimate too low. */
  private static long estimatedRows(FileScanTask task) {
    long fileSize = task.file().fileSizeInBytes();
    long fileRows = task.file().recordCount();
    if (task.isDataTask() || fileSize <= 0 || task.length() >= fileSize) {
      return Math.max(fileRows, 0);
    }
    return (long) Math.ceil(fileRows * ((double) task.length() / fileSize));
  }

  @Override
  public String description() {
    return String.format(
        "Floe %s [snapshot=%s, filter=%s, groups=%d]",
        tableName, snapshotId == null ? "none" : snapshotId, filter, partitions.size());
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeScan)) {
      return false;
    }
    FloeScan that = (FloeScan) other;
    return tableName.equals(that.tableName)
        && Objects.equals(metadataLocation, that.metadataLocation)
        && Objects.equals(snapshotId, that.snapshotId)
        && PlanValues.sameIo(io, that.io)
        && PlanValues.sameSchema(tableSchema, that.tableSchema)
        && PlanValues.sameSchema(readSchema, that.readSchema)
        && filter.toString().equals(that.filter.toString())
        && partitions.equals(that.partitions)
        && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        tableName, metadataLocation, snapshotId, PlanValues.schemaHash(readSchema),
        filter.toString(), partitions);
  }

  @Override
  public String toString() {
    return description();
  }
}
