package io.floe.spark.write.exec;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
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
 * @param fileOrdinal where {@code _file} (or, with {@code fileKeys}, the file's key) sits in the row
 *     id Spark hands over
 * @param positionOrdinal where {@code _pos} sits in the row id
 * @param specIdOrdinal where {@code _spec_id} sits in the metadata row
 * @param partitionOrdinal where {@code _partition} sits in the metadata row
 * @param previousDeletes for each data file the scan read (by location), the delete files that a
 *     new delete file for it replaces: for deletion vectors every position delete and vector of the
 *     file (all are merged into the new vector), for file-scoped position deletes the earlier
 *     file-scoped ones; absent when there are none
 * @param fileKeys when the row id names the data file by its 64-bit key (a MERGE: see {@code
 *     io.floe.spark.read.exec.FileKeyColumn}) rather than its location, the location of each key
 *     of the files the scan planned; null when the row id holds {@code _file}
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
    Map<String, List<DeleteFile>> previousDeletes,
    Map<Long, String> fileKeys)
    implements Serializable {

  public DeltaWriterSettings {
    Objects.requireNonNull(data, "data is null");
    Objects.requireNonNull(granularity, "granularity is null");
    Objects.requireNonNull(previousDeletes, "previousDeletes is null");
    previousDeletes = Map.copyOf(previousDeletes);
    fileKeys = fileKeys == null ? null : Map.copyOf(fileKeys);
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

  /** Equal settings: the same data settings and delete layout, and the same previous deletes. */
  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof DeltaWriterSettings that)) {
      return false;
    }
    return data.equals(that.data)
        && deletionVectors == that.deletionVectors
        && granularity == that.granularity
        && targetDeleteFileSizeBytes == that.targetDeleteFileSizeBytes
        && fileOrdinal == that.fileOrdinal
        && positionOrdinal == that.positionOrdinal
        && specIdOrdinal == that.specIdOrdinal
        && partitionOrdinal == that.partitionOrdinal
        && describe(previousDeletes).equals(describe(that.previousDeletes))
        && Objects.equals(fileKeys, that.fileKeys);
  }

  @Override
  public int hashCode() {
    return Objects.hash(data, deletionVectors, granularity, previousDeletes.keySet());
  }

  // delete files have no equality of their own: compare what names them
  private static Map<String, List<String>> describe(Map<String, List<DeleteFile>> deletes) {
    Map<String, List<String>> described = new TreeMap<>();
    deletes.forEach(
        (dataFile, files) ->
            described.put(
                dataFile,
                files.stream()
                    .map(file -> file.location() + "@" + file.contentOffset() + "#" + file.recordCount())
                    .toList()));
    return described;
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
        + ", rowIdFile="
        + (fileKeys == null ? "location" : "key of " + fileKeys.size() + " files")
        + "}";
  }
}
