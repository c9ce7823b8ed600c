package io.floe.spark.commit;

/**
 * Thrown when the catalog could not say whether a commit landed and a refreshed look at the table
 * did not find the commit id either. The written files are kept: rerunning the write with the same
 * commit id is safe and adds the data at most once.
 */
public final class CommitStateUnknownError extends RuntimeException {
  private final String commitId;

  CommitStateUnknownError(String tableName, String commitId, Throwable cause) {
    super(
        String.format(
            "Cannot tell whether commit %s to table %s succeeded: the catalog did not answer and the"
                + " table does not show the commit yet. No data file was deleted; rerunning the write"
                + " with write option commit-id=%s is safe and adds the data at most once.",
            commitId, tableName, commitId),
        cause);
    this.commitId = commitId;
  }

  /** The commit id to rerun with. */
  public String commitId() {
    return commitId;
  }
}
