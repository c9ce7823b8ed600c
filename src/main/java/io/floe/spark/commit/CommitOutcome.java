package io.floe.spark.commit;

import java.util.Objects;

/**
 * What a commit did: added a snapshot, or found that a snapshot with the same commit id was already
 * in the table and added nothing.
 *
 * @param commitId the commit id that was checked and recorded
 * @param snapshotId the snapshot that carries the commit id (new or found); null when the commit
 *     succeeded but the table could not be read again to find it
 * @param skipped true when another run had already committed the id and this one added nothing
 * @param writtenFilesUnused true only when the table certainly does not reference the files this
 *     run wrote, so they may be deleted; never true after a commit whose outcome was unknown
 * @param attempts how many commit attempts reached the id check (0 when the id was found before
 *     any attempt)
 */
public record CommitOutcome(
    String commitId, Long snapshotId, boolean skipped, boolean writtenFilesUnused, int attempts) {
  public CommitOutcome {
    Objects.requireNonNull(commitId, "commitId is null");
    if (writtenFilesUnused && !skipped) {
      throw new IllegalArgumentException(
          "Cannot describe commit "
              + commitId
              + ": the files of a commit that was not skipped are in use");
    }
  }
}
