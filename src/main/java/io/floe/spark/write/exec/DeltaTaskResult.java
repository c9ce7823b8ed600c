package io.floe.spark.write.exec;

import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What one merge-on-read writer task sends back to the driver, ready to commit in a row delta.
 *
 * @param dataFiles the data files of inserted and updated rows
 * @param deleteFiles the position-delete files or deletion vectors written
 * @param rewrittenDeleteFiles earlier deletion vectors and file-scoped position deletes that the
 *     new delete files replace, to be removed by the commit
 * @param referencedDataFiles the locations of the data files the new deletes point at
 */
public record DeltaTaskResult(
    List<DataFile> dataFiles,
    List<DeleteFile> deleteFiles,
    List<DeleteFile> rewrittenDeleteFiles,
    List<String> referencedDataFiles)
    implements WriterCommitMessage {

  public DeltaTaskResult {
    dataFiles = List.copyOf(Objects.requireNonNull(dataFiles, "dataFiles is null"));
    deleteFiles = List.copyOf(Objects.requireNonNull(deleteFiles, "deleteFiles is null"));
    rewrittenDeleteFiles =
        List.copyOf(Objects.requireNonNull(rewrittenDeleteFiles, "rewrittenDeleteFiles is null"));
    referencedDataFiles =
        List.copyOf(Objects.requireNonNull(referencedDataFiles, "referencedDataFiles is null"));
  }

  @Override
  public String toString() {
    return "DeltaTaskResult{dataFiles="
        + dataFiles.stream().map(DataFile::location).toList()
        + ", deleteFiles="
        + deleteFiles.stream().map(DeleteFile::location).distinct().toList()
        + ", rewrittenDeleteFiles="
        + rewrittenDeleteFiles.size()
        + ", referencedDataFiles="
        + referencedDataFiles.size()
        + "}";
  }
}
