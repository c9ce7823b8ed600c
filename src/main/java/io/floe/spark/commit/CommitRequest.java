package io.floe.spark.commit;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * Everything a commit needs besides the table: the data files, how they change the table, and the
 * commit id that makes the commit idempotent.
 *
 * @param mode how the files change the table
 * @param dataFiles the files written by the executors
 * @param overwriteFilter rows to delete first, for {@link WriteMode#OVERWRITE_BY_FILTER}
 * @param commitId the id recorded under {@code floe.commit-id}
 * @param searchWholeAncestry true for a caller-chosen id: the whole retained ancestry is searched;
 *     otherwise only snapshots after {@code startingSnapshotId}
 * @param startingSnapshotId the branch head the write started from; null for an empty table
 * @param branch the target branch; null for the main branch
 * @param wapId the write-audit-publish id to stage the snapshot under (recorded as {@code wap.id},
 *     not made current); null for a commit that moves the branch
 * @param snapshotProperties extra entries for the snapshot summary; {@code floe.commit-id} is not
 *     one of them (the commit id always wins)
 * @param isolationLevel for an overwrite or a dynamic overwrite: serializable fails on any data or
 *     deletes committed meanwhile that the write's filter or partitions touch, snapshot only on
 *     deletes; null validates nothing
 * @param validateFromSnapshotId the snapshot after which commits are validated, or null for {@code
 *     startingSnapshotId}
 * @param changes for {@link WriteMode#COPY_ON_WRITE}, {@link WriteMode#ROW_DELTA} and {@link
 *     WriteMode#REWRITE}: the files removed, the delete files added and what to validate; {@link
 *     FileChanges#NONE} otherwise
 */
public record CommitRequest(
    WriteMode mode,
    List<DataFile> dataFiles,
    Expression overwriteFilter,
    String commitId,
    boolean searchWholeAncestry,
    Long startingSnapshotId,
    String branch,
    String wapId,
    Map<String, String> snapshotProperties,
    IsolationLevel isolationLevel,
    Long validateFromSnapshotId,
    FileChanges changes)
    implements Serializable {

  /** A request that adds or overwrites data files and changes nothing else. */
  public CommitRequest(
      WriteMode mode,
      List<DataFile> dataFiles,
      Expression overwriteFilter,
      String commitId,
      boolean searchWholeAncestry,
      Long startingSnapshotId,
      String branch,
      String wapId,
      Map<String, String> snapshotProperties,
      IsolationLevel isolationLevel,
      Long validateFromSnapshotId) {
    this(mode, dataFiles, overwriteFilter, commitId, searchWholeAncestry, startingSnapshotId,
        branch, wapId, snapshotProperties, isolationLevel, validateFromSnapshotId, FileChanges.NONE);
  }

  public CommitRequest {
    Objects.requireNonNull(mode, "mode is null");
    dataFiles = List.copyOf(Objects.requireNonNull(dataFiles, "dataFiles is null"));
    Objects.requireNonNull(commitId, "commitId is null");
    snapshotProperties =
        Map.copyOf(Objects.requireNonNull(snapshotProperties, "snapshotProperties is null"));
    if (snapshotProperties.containsKey(Committer.COMMIT_ID_KEY)) {
      throw new IllegalArgumentException(
          "Cannot commit " + commitId + ": snapshot property " + Committer.COMMIT_ID_KEY
              + " is the commit id and cannot be set");
    }
    changes = changes == null ? FileChanges.NONE : changes;
    if (mode == WriteMode.OVERWRITE_BY_FILTER) {
      overwriteFilter = overwriteFilter == null ? Expressions.alwaysTrue() : overwriteFilter;
    }
  }
}
