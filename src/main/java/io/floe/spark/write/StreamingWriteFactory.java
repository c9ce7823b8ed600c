package io.floe.spark.write;

import java.io.Serializable;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;

/**
 * Builds the streaming side of a planned write ({@link FloeWrite#toStreaming()}). The {@code
 * streaming} package provides it and the table hands it to the {@link FloeWriteBuilder}, so that
 * {@code write} never imports {@code streaming}, which builds on it.
 */
@FunctionalInterface
public interface StreamingWriteFactory extends Serializable {

  /**
   * @param context what the write was planned from (its commit id is not used: every epoch gets
   *     its own)
   * @param queryId the streaming query's id, the same across restarts from one checkpoint
   */
  StreamingWrite create(WriteContext context, String queryId);
}
