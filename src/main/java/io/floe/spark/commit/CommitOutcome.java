package io.floe.spark.commit;

import java.util.Objects;

/**
 * What a commit did: added a snapshot, or found that a snapshot with the same commit id was already
 * in the table and added nothing.
 *
 * @param commitId the commit id that was checked and recorded
 * @param snapshotId the snapshot that carries the commit id (new or found)
 * @param skipped true when the id was already committed and nothing was added
 * @param attempts how many times the commit was tried
 */
public record CommitOutcome(String commitId, Long snapshotId, boolean skipped, int attempts) {
  public CommitOutcome {
    Objects.requireNonNull(commitId, "commitId is null");
  }
}
