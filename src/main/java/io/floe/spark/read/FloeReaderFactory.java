package io.floe.spark.read;

import io.floe.spark.util.PlanValues;
import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * What every executor needs to read any partition of a scan: the FileIO, the schemas the driver
 * planned against, and the reader settings. It only picks a reader, columnar when vectorization is
 * enabled and {@link ColumnarSupport} accepts the read schema, else rows; it never plans and never
 * calls a catalog. The choice depends on the schema only, so every partition of a scan agrees, as
 * Spark requires.
 */
public final class FloeReaderFactory implements PartitionReaderFactory {
  /** Rows per columnar batch when the scan does not say. */
  public static final int DEFAULT_BATCH_SIZE = 4096;
  /** Files a reader opens ahead of the one it reads when the scan does not say. */
  public static final int DEFAULT_PREFETCH_FILES = 2;

  private final String tableName;
  private final FileIO io;
  private final Schema tableSchema;
  private final Schema readSchema;
  private final boolean caseSensitive;
  private final boolean vectorizationEnabled;
  private final int batchSize;
  private final int prefetchFiles;
  private final NameMapping nameMapping;

  /**
   * A factory with the default reader settings: vectorization enabled, {@link
   * #DEFAULT_BATCH_SIZE}, {@link #DEFAULT_PREFETCH_FILES} and no name mapping.
   */
  public FloeReaderFactory(
      String tableName, FileIO io, Schema tableSchema, Schema readSchema, boolean caseSensitive) {
    this(
        tableName, io, tableSchema, readSchema, caseSensitive, true, DEFAULT_BATCH_SIZE,
        DEFAULT_PREFETCH_FILES, null);
  }

  /**
   * @param tableName the table's name, for messages
   * @param io the table's FileIO, which opens data and delete files
   * @param tableSchema the schema the tasks were planned with (delete files resolve against it)
   * @param readSchema the projected schema to produce, metadata columns included
   * @param caseSensitive whether residual filters bind case-sensitively
   * @param vectorizationEnabled whether Parquet may be read into columnar batches
   * @param batchSize the most rows in one columnar batch
   * @param prefetchFiles files a reader opens ahead of the one it reads; 0 disables prefetching
   * @param nameMapping the table's name mapping ({@code schema.name-mapping.default}) for files
   *     written without field ids, or null
   */
  public FloeReaderFactory(
      String tableName,
      FileIO io,
      Schema tableSchema,
      Schema readSchema,
      boolean caseSensitive,
      boolean vectorizationEnabled,
      int batchSize,
      int prefetchFiles,
      NameMapping nameMapping) {
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.io = Objects.requireNonNull(io, "io is null");
    this.tableSchema = Objects.requireNonNull(tableSchema, "tableSchema is null");
    this.readSchema = Objects.requireNonNull(readSchema, "readSchema is null");
    if (batchSize <= 0) {
      throw new IllegalArgumentException(
          "Cannot read " + tableName + ": batch-size must be positive, not " + batchSize);
    }
    if (prefetchFiles < 0) {
      throw new IllegalArgumentException(
          "Cannot read " + tableName + ": prefetch-files must not be negative, not " + prefetchFiles);
    }
    this.caseSensitive = caseSensitive;
    this.vectorizationEnabled = vectorizationEnabled;
    this.batchSize = batchSize;
    this.prefetchFiles = prefetchFiles;
    this.nameMapping = nameMapping;
  }

  public String tableName() {
    return tableName;
  }

  /**
   * The failure to open a file of this table for reading. Storage clients report failures (a
   * refused connection, a closed client) unchecked and without the file's name, so the name and
   * the table are added here.
   */
  IllegalStateException openFailure(String location, RuntimeException cause) {
    return new IllegalStateException(
        "Cannot read " + location + " of " + tableName + ": " + cause, cause);
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

  public boolean vectorizationEnabled() {
    return vectorizationEnabled;
  }

  public int batchSize() {
    return batchSize;
  }

  public int prefetchFiles() {
    return prefetchFiles;
  }

  public NameMapping nameMapping() {
    return nameMapping;
  }

  /** This factory with vectorization turned on or off; this same factory when unchanged. */
  public FloeReaderFactory withVectorization(boolean enabled) {
    if (enabled == vectorizationEnabled) {
      return this;
    }
    return new FloeReaderFactory(
        tableName, io, tableSchema, readSchema, caseSensitive, enabled, batchSize, prefetchFiles,
        nameMapping);
  }

  /** Whether this factory's partitions are read as columnar batches. */
  public boolean columnar() {
    return vectorizationEnabled && ColumnarSupport.supportsScan(readSchema);
  }

  /**
   * Whether the partition is read as columnar batches: never for a partition of delete-file tasks
   * (a {@code position_deletes} scan, which {@link FloeBatch} always reads as rows).
   */
  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return columnar() && floePartition(partition).positionDeleteTasks().isEmpty();
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    FloeInputPartition floePartition = floePartition(partition);
    if (!floePartition.positionDeleteTasks().isEmpty()) {
      return new PositionDeletesReader(this, floePartition);
    }
    return new FloeRowReader(this, floePartition);
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    FloeInputPartition floePartition = floePartition(partition);
    if (!columnar() || !floePartition.positionDeleteTasks().isEmpty()) {
      throw new UnsupportedOperationException(
          "Cannot read " + tableName + " as columnar batches: the scan is read as rows");
    }
    return new FloeColumnarReader(this, floePartition);
  }

  private FloeInputPartition floePartition(InputPartition partition) {
    if (!(partition instanceof FloeInputPartition)) {
      throw new IllegalArgumentException(
          "Cannot read " + tableName + ": not a Floe input partition: " + partition);
    }
    return (FloeInputPartition) partition;
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
        && vectorizationEnabled == that.vectorizationEnabled
        && batchSize == that.batchSize
        && prefetchFiles == that.prefetchFiles
        && tableName.equals(that.tableName)
        && PlanValues.sameIo(io, that.io)
        && PlanValues.sameSchema(tableSchema, that.tableSchema)
        && PlanValues.sameSchema(readSchema, that.readSchema)
        && Objects.equals(
            nameMapping == null ? null : nameMapping.asMappedFields(),
            that.nameMapping == null ? null : that.nameMapping.asMappedFields());
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        tableName, PlanValues.ioHash(io), PlanValues.schemaHash(tableSchema),
        PlanValues.schemaHash(readSchema), caseSensitive, vectorizationEnabled, batchSize,
        prefetchFiles);
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
        + ", vectorizationEnabled="
        + vectorizationEnabled
        + ", batchSize="
        + batchSize
        + ", prefetchFiles="
        + prefetchFiles
        + ", nameMapping="
        + (nameMapping != null)
        + "}";
  }
}
