package io.floe.spark.commit;

import java.io.Serializable;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Running totals of one write's commit, for the metrics Spark shows in its UI: how many commits
 * were skipped because their id was already in the table, how many commit attempts ran, how long
 * committing took, and how many data files and bytes were handed to the commit.
 *
 * <p>Safe to update from several threads. It lives on the driver; it is serializable only so that
 * the write that holds it stays serializable, and a copy starts from the values it was copied with.
 */
public final class CommitStats implements Serializable {
  private final AtomicLong skipped = new AtomicLong();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong durationMs = new AtomicLong();
  private final AtomicLong files = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  /** Commits that added nothing because a snapshot already carried their id. */
  public long commitsSkipped() {
    return skipped.get();
  }

  /** Commit attempts that reached the id check inside Iceberg's retry loop. */
  public long commitAttempts() {
    return attempts.get();
  }

  /** Wall-clock time spent committing, in milliseconds. */
  public long commitDurationMs() {
    return durationMs.get();
  }

  /** Data files handed to the commit. */
  public long filesWritten() {
    return files.get();
  }

  /** Bytes of the data files handed to the commit. */
  public long bytesWritten() {
    return bytes.get();
  }

  void recordSkip() {
    skipped.incrementAndGet();
  }

  void recordAttempt() {
    attempts.incrementAndGet();
  }

  void recordDuration(long millis) {
    durationMs.addAndGet(millis);
  }

  /** Records the data files a write produced, before they are committed. */
  public void recordWritten(long fileCount, long byteCount) {
    files.addAndGet(fileCount);
    bytes.addAndGet(byteCount);
  }

  @Override
  public String toString() {
    return "CommitStats{skipped="
        + skipped
        + ", attempts="
        + attempts
        + ", durationMs="
        + durationMs
        + ", files="
        + files
        + ", bytes="
        + bytes
        + "}";
  }
}
