package io.floe.spark.read.plan;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;

/**
 * One unit of a changelog read, planned on the driver: rows of one data file that changed the same
 * way in one snapshot. It carries everything the executor needs and nothing it must look up:
 *
 * <ul>
 *   <li>a file the snapshot added ({@value #INSERT}): {@code file} carries the delete files live
 *       after the snapshot (those it added with the file), so its rows are the rows it inserted;
 *   <li>a file the snapshot removed ({@value #DELETE}, {@code deletedAfter} empty): {@code file}
 *       carries the delete files live before the snapshot, so its rows are the rows still live
 *       before the file went;
 *   <li>a file the snapshot kept but added position deletes, a deletion vector or equality deletes
 *       for ({@value #DELETE}, {@code deletedAfter} not empty): {@code file} carries the delete files
 *       live before the snapshot, and {@code deletedAfter} the position deletes live after it and
 *       the equality deletes the snapshot added that apply to the file; the changed rows are those
 *       live before that {@code deletedAfter} deletes. A deletion vector that replaces an older one
 *       thus yields only its newly set positions.
 * </ul>
 *
 * @param file the data file to read, with the delete files that give the rows the change starts from
 * @param changeType {@value #INSERT} or {@value #DELETE}
 * @param changeOrdinal the snapshot's position among the changelog's snapshots, oldest first, from 0
 * @param commitSnapshotId the snapshot that made the change
 * @param deletedAfter the delete files (position deletes, deletion vectors, equality deletes) that
 *     delete the changed rows, when only the rows they delete changed; empty when every row read
 *     changed
 */
public record ChangeTask(
    FileScanTask file,
    String changeType,
    int changeOrdinal,
    long commitSnapshotId,
    List<DeleteFile> deletedAfter)
    implements Serializable {
  /** The change type of a row that a snapshot added. */
  public static final String INSERT = "INSERT";
  /** The change type of a row that a snapshot removed. */
  public static final String DELETE = "DELETE";

  public ChangeTask {
    Objects.requireNonNull(file, "file is null");
    Objects.requireNonNull(changeType, "changeType is null");
    deletedAfter = List.copyOf(Objects.requireNonNull(deletedAfter, "deletedAfter is null"));
    if (!INSERT.equals(changeType) && !DELETE.equals(changeType)) {
      throw new IllegalArgumentException("Cannot plan a change of type " + changeType);
    }
    if (changeOrdinal < 0) {
      throw new IllegalArgumentException("Cannot plan a change with negative ordinal " + changeOrdinal);
    }
    if (INSERT.equals(changeType) && !deletedAfter.isEmpty()) {
      throw new IllegalArgumentException(
          "Cannot plan an INSERT of " + file.file().location() + " limited to deleted rows");
    }
    for (DeleteFile delete : deletedAfter) {
      if (delete.content() == FileContent.DATA) {
        throw new IllegalArgumentException(
            "Cannot plan the rows of " + file.file().location() + " deleted by "
                + delete.location() + ": not a delete file");
      }
    }
  }

  /** A change of every row that {@code file} reads. */
  public ChangeTask(FileScanTask file, String changeType, int changeOrdinal, long commitSnapshotId) {
    this(file, changeType, changeOrdinal, commitSnapshotId, List.of());
  }

  /** Bytes the task reads. */
  public long sizeBytes() {
    return file.length();
  }

  /**
   * Equal when they read the same bytes of the same file, under the same spec, with the same delete
   * files and residual, as the same change: Iceberg's file tasks compare by identity.
   */
  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ChangeTask)) {
      return false;
    }
    ChangeTask that = (ChangeTask) other;
    return changeOrdinal == that.changeOrdinal
        && commitSnapshotId == that.commitSnapshotId
        && changeType.equals(that.changeType)
        && key().equals(that.key());
  }

  @Override
  public int hashCode() {
    return Objects.hash(changeType, changeOrdinal, commitSnapshotId, key());
  }

  private String key() {
    return file.file().location() + "@" + file.start() + "+" + file.length() + "#"
        + file.file().specId() + "[" + locations(file.deletes()) + "]" + file.residual()
        + "/[" + locations(deletedAfter) + "]";
  }

  private static String locations(List<DeleteFile> deletes) {
    return deletes.stream()
        .map(delete -> delete.location() + ":" + delete.contentOffset())
        .sorted()
        .collect(Collectors.joining(","));
  }

  @Override
  public String toString() {
    return "ChangeTask{" + changeType + " " + file.file().location() + ", ordinal=" + changeOrdinal
        + ", snapshot=" + commitSnapshotId
        + (deletedAfter.isEmpty() ? "" : ", rows deleted by " + deletedAfter.size() + " delete files")
        + "}";
  }
}
