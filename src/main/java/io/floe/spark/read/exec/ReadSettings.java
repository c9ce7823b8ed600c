package io.floe.spark.read.exec;

import io.floe.spark.util.PlanValues;
import java.io.Serializable;
import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.mapping.NameMapping;

/**
 * What an executor reader needs to read the tasks of one scan: the FileIO, the schemas the driver
 * planned against and the decoding settings. The reader factory builds one per scan and hands it
 * to every reader it creates; readers never see the factory or the input partition.
 *
 * @param tableName the table's name, for messages
 * @param io the table's FileIO, which opens data and delete files
 * @param tableSchema the schema the tasks were planned with (delete files resolve against it)
 * @param readSchema the projected schema to produce, metadata columns included
 * @param caseSensitive whether residual filters bind case-sensitively
 * @param batchSize the most rows in one columnar batch; positive
 * @param prefetchFiles files a reader opens ahead of the one it reads; 0 disables prefetching
 * @param nameMapping the table's name mapping ({@code schema.name-mapping.default}) for files
 *     written without field ids, or null
 */
public record ReadSettings(
    String tableName,
    FileIO io,
    Schema tableSchema,
    Schema readSchema,
    boolean caseSensitive,
    int batchSize,
    int prefetchFiles,
    NameMapping nameMapping)
    implements Serializable {
  public ReadSettings {
    Objects.requireNonNull(tableName, "tableName is null");
    Objects.requireNonNull(io, "io is null");
    Objects.requireNonNull(tableSchema, "tableSchema is null");
    Objects.requireNonNull(readSchema, "readSchema is null");
    if (batchSize <= 0) {
      throw new IllegalArgumentException(
          "Cannot read " + tableName + ": batch-size must be positive, not " + batchSize);
    }
    if (prefetchFiles < 0) {
      throw new IllegalArgumentException(
          "Cannot read " + tableName + ": prefetch-files must not be negative, not " + prefetchFiles);
    }
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

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ReadSettings)) {
      return false;
    }
    ReadSettings that = (ReadSettings) other;
    return caseSensitive == that.caseSensitive
        && batchSize == that.batchSize
        && prefetchFiles == that.prefetchFiles
        && tableName.equals(that.tableName)
        && PlanValues.sameIo(io, that.io)
        && tableSchema.sameSchema(that.tableSchema)
        && readSchema.sameSchema(that.readSchema)
        && Objects.equals(mappedFields(), that.mappedFields());
  }

  private Object mappedFields() {
    return nameMapping == null ? null : nameMapping.asMappedFields();
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        tableName, PlanValues.ioHash(io), PlanValues.schemaHash(tableSchema),
        PlanValues.schemaHash(readSchema), caseSensitive, batchSize, prefetchFiles);
  }

  @Override
  public String toString() {
    return "ReadSettings{table="
        + tableName
        + ", io="
        + PlanValues.describeIo(io)
        + ", readSchema="
        + readSchema.asStruct()
        + ", caseSensitive="
        + caseSensitive
        + ", batchSize="
        + batchSize
        + ", prefetchFiles="
        + prefetchFiles
        + ", nameMapping="
        + (nameMapping != null)
        + "}";
  }
}
