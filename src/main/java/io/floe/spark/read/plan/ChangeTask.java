package io.floe.spark.read.plan;

import java.io.Serializable;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;

/**
 * One unit of a changelog read, planned on the driver: a data file whose rows all changed the same
 * way in one snapshot. An executor reads the file's rows (less {@code file}'s delete files) and
 * gives each the three change columns carried here.
 *
 * @param file the data file to read, with the delete files to apply to it
 * @param changeType {@value #INSERT} for a file the snapshot added, {@value #DELETE} for one it
 *     removed
 * @param changeOrdinal the snapshot's position among the changelog's snapshots, oldest first, from 0
 * @param commitSnapshotId the snapshot that added or removed the file
 */
public record ChangeTask(
    FileScanTask file, String changeType, int changeOrdinal, long commitSnapshotId)
    implements Serializable {
  /** The change type of a row that a snapshot added. */
  public static final String INSERT = "INSERT";
  /** The change type of a row that a snapshot removed. */
  public static final String DELETE = "DELETE";

  public ChangeTask {
    Objects.requireNonNull(file, "file is null");
    Objects.requireNonNull(changeType, "changeType is null");
    if (!INSERT.equals(changeType) && !DELETE.equals(changeType)) {
      throw new IllegalArgumentException("Cannot plan a change of type " + changeType);
    }
    if (changeOrdinal < 0) {
      throw new IllegalArgumentException("Cannot plan a change with negative ordinal " + changeOrdinal);
    }
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
    String deletes =
        file.deletes().stream()
            .map(delete -> delete.location())
            .sorted()
            .collect(Collectors.joining(","));
    return file.file().location() + "@" + file.start() + "+" + file.length() + "#"
        + file.file().specId() + "[" + deletes + "]" + file.residual();
  }

  @Override
  public String toString() {
    return "ChangeTask{" + changeType + " " + file.file().location() + ", ordinal=" + changeOrdinal
        + ", snapshot=" + commitSnapshotId + "}";
  }
}
