package io.floe.spark.write;

import java.util.Objects;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;

/**
 * A planned write: what it writes, how Spark must distribute and order its rows ({@link
 * WriteDistribution}) and how it will commit, fixed on the driver.
 */
public final class FloeWrite extends DistributedWrite {
  private final WriteContext context;

  // null when the table offers no streaming writes
  private final StreamingWriteFactory streaming;
  private final String queryId;

  public FloeWrite(WriteContext context) {
    this(context, null, null);
  }

  /**
   * @param streaming builds the stream sink of {@link #toStreaming()}, or null for a batch-only
   *     write
   * @param queryId Spark's id of the query that writes (for a stream, the same across restarts)
   */
  public FloeWrite(WriteContext context, StreamingWriteFactory streaming, String queryId) {
    super(WriteDistribution.of(Objects.requireNonNull(context, "context is null")));
    this.context = context;
    this.streaming = streaming;
    this.queryId = queryId;
  }

  public WriteContext context() {
    return context;
  }

  @Override
  public String description() {
    return "Floe " + context.mode() + " into " + context.tableName() + " [commit id " + context.commitId() + "]";
  }

  @Override
  public BatchWrite toBatch() {
    return new FloeBatchWrite(context, commitStats());
  }

  /** The stream sink: one snapshot per epoch, replayed epochs skipped. */
  @Override
  public StreamingWrite toStreaming() {
    if (streaming == null || queryId == null) {
      throw new UnsupportedOperationException(
          "Cannot write a stream to " + context.tableName() + ": the table takes batch writes only");
    }
    return streaming.create(context, queryId);
  }

  @Override
  public boolean equals(Object other) {
    return this == other
        || (other instanceof FloeWrite && context.equals(((FloeWrite) other).context));
  }

  @Override
  public int hashCode() {
    return context.hashCode();
  }

  @Override
  public String toString() {
    return "FloeWrite{" + context + "}";
  }
}
