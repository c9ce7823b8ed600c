package io.floe.spark.write.exec;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.DeleteGranularity;

/**
 * What one merge-on-read writer task needs ({@link FloeDeltaWriter}), and nothing else: how to
 * write new rows, how to write deletes, where the row id and metadata values sit in the rows Spark
 * hands over, and the delete files each data file already has.
 *
 * @param data how inserted and updated rows are written: the same settings as an append's
 * @param deletionVectors true for a format v3 table: one deletion vector per data file, in Puffin
 *     files, merged with the file's previous deletes; false for position-delete Parquet files
 * @param granularity for position-delete files: one per data file ({@code file}) or one per
 *     partition ({@code partition}); deletion vectors are always per data file
 * @param targetDeleteFileSizeBytes position-delete files roll at this size
 * @param fileOrdinal where {@code _file} sits in the row id Spark hands over
 * @param positionOrdinal where {@code _pos} sits in the row id
 * @param specIdOrdinal where {@code _spec_id} sits in the metadata row
 * @param partitionOrdinal where {@code _partition} sits in the metadata row
 * @param previousDeletes for each data file the scan read (by location), the delete files that a
 *     new delete file for it replaces: for deletion vectors every position delete and vector of the
 *     file (all are merged into the new vector), for file-scoped position deletes the earlier
 *     file-scoped ones; absent when there are none
 */
public record DeltaWriterSettings(
    DataWriterSettings data,
    boolean deletionVectors,
    DeleteGranularity granularity,
    long targetDeleteFileSizeBytes,
    int fileOrdinal,
    int positionOrdinal,
    int specIdOrdinal,
    int partitionOrdinal,
    Map<String, List<DeleteFile>> previousDeletes)
    implements Serializable {

  public DeltaWriterSettings {
    Objects.requireNonNull(data, "data is null");
    Objects.requireNonNull(granularity, "granularity is null");
    Objects.requireNonNull(previousDeletes, "previousDeletes is null");
    previousDeletes = Map.copyOf(previousDeletes);
    if (targetDeleteFileSizeBytes <= 0) {
      throw new IllegalArgumentException(
          "Cannot write deletes to " + data.table().name()
              + ": the target delete file size must be positive, not " + targetDeleteFileSizeBytes);
    }
  }

  /** The read-only table copy the task writes with. */
  public Table table() {
    return data.table();
  }

  @Override
  public String toString() {
    return "DeltaWriterSettings{data="
        + data
        + ", deletes="
        + (deletionVectors ? "deletion vectors" : "position deletes by " + granularity)
        + ", targetDeleteFileSizeBytes="
        + targetDeleteFileSizeBytes
        + ", dataFilesWithPreviousDeletes="
        + previousDeletes.size()
        + "}";
  }
}
