package io.floe.spark.write;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/** What one writer task sends back to the driver: the data files it wrote, ready to commit. */
public final class FloeCommitMessage implements WriterCommitMessage {
  private final List<DataFile> dataFiles;

  public FloeCommitMessage(List<DataFile> dataFiles) {
    this.dataFiles = List.copyOf(Objects.requireNonNull(dataFiles, "dataFiles is null"));
  }

  public List<DataFile> dataFiles() {
    return dataFiles;
  }

  /**
   * The data files of every Floe commit message among the messages, in task order; other messages
   * and a null array (Spark aborts before any task reported) contribute nothing.
   */
  public static List<DataFile> dataFilesOf(WriterCommitMessage[] messages) {
    List<DataFile> files = new ArrayList<>();
    if (messages != null) {
      for (WriterCommitMessage message : messages) {
        if (message instanceof FloeCommitMessage floe) {
          files.addAll(floe.dataFiles());
        }
      }
    }
    return files;
  }

  private List<String> locations() {
    return dataFiles.stream().map(DataFile::location).collect(Collectors.toList());
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeCommitMessage)) {
      return false;
    }
    FloeCommitMessage that = (FloeCommitMessage) other;
    if (!locations().equals(that.locations())) {
      return false;
    }
    for (int i = 0; i < dataFiles.size(); i += 1) {
      DataFile left = dataFiles.get(i);
      DataFile right = that.dataFiles.get(i);
      if (left.recordCount() != right.recordCount()
          || left.fileSizeInBytes() != right.fileSizeInBytes()
          || left.specId() != right.specId()
          || !Objects.equals(String.valueOf(left.partition()), String.valueOf(right.partition()))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return locations().hashCode();
  }

  @Override
  public String toString() {
    return "FloeCommitMessage{files=" + locations() + "}";
  }
}
