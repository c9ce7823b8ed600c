package io.floe.spark.commit;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;

/**
 * One epoch of a streaming query, as a snapshot summary records it: under the official Iceberg
 * runtime's keys {@value #QUERY_ID_KEY} and {@value #EPOCH_ID_KEY}, so that a stream can move
 * between that runtime and Floe on the same checkpoint, and as the commit id {@link #commitId()}.
 *
 * <p>A streaming query commits its epochs in increasing order, so in a branch's ancestry (newest
 * first) the first snapshot of the query tells whether an epoch is committed: it is when that
 * snapshot's epoch is the same or later; it is not when that epoch is earlier, and nothing older
 * needs to be read. {@link Committer} searches this way for a commit request whose commit id is an
 * epoch's; the search of an epoch therefore ends at the query's previous commit.
 *
 * @param queryId the streaming query's id, which stays the same across restarts from a checkpoint
 * @param epochId the epoch (micro-batch) id
 */
public record StreamEpoch(String queryId, long epochId) implements Serializable {
  /** The official runtime's snapshot summary key of a streaming query's id. */
  public static final String QUERY_ID_KEY = "spark.sql.streaming.queryId";
  /** The official runtime's snapshot summary key of a streaming query's epoch id. */
  public static final String EPOCH_ID_KEY = "spark.sql.streaming.epochId";

  public StreamEpoch {
    Objects.requireNonNull(queryId, "queryId is null");
    if (queryId.isBlank()) {
      throw new IllegalArgumentException("Cannot describe a stream epoch: the query id is blank");
    }
    if (epochId < 0) {
      throw new IllegalArgumentException(
          "Cannot describe epoch " + epochId + " of query " + queryId + ": negative epoch id");
    }
  }

  /** The commit id ({@value Committer#COMMIT_ID_KEY}) of this epoch's snapshot. */
  public String commitId() {
    return "stream-" + queryId + "-" + epochId;
  }

  /** The summary entries this epoch's snapshot carries besides the commit id. */
  public Map<String, String> summaryProperties() {
    return Map.of(QUERY_ID_KEY, queryId, EPOCH_ID_KEY, Long.toString(epochId));
  }

  /**
   * The epoch a snapshot summary records, or null when it records none (or an epoch id that is
   * not a number, which no writer of these keys produces).
   */
  public static StreamEpoch fromSummary(Map<String, String> summary) {
    if (summary == null) {
      return null;
    }
    String queryId = summary.get(QUERY_ID_KEY);
    String epochId = summary.get(EPOCH_ID_KEY);
    if (queryId == null || queryId.isBlank() || epochId == null) {
      return null;
    }
    try {
      long epoch = Long.parseLong(epochId.trim());
      return epoch < 0 ? null : new StreamEpoch(queryId, epoch);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** The epoch a commit request commits: one whose properties record it and whose id is its own. */
  static StreamEpoch of(CommitRequest request) {
    StreamEpoch epoch = fromSummary(request.snapshotProperties());
    return epoch != null && epoch.commitId().equals(request.commitId()) ? epoch : null;
  }
}
