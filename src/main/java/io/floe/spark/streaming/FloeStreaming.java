package io.floe.spark.streaming;

import io.floe.spark.write.StreamingWriteFactory;

/**
 * What a table hands the write and read plan pieces so that they can run as a stream's sink and
 * source without importing this package, which builds on them.
 */
public final class FloeStreaming {
  private FloeStreaming() {}

  /** The stream sink of a planned write: {@link FloeStreamingWrite}. */
  public static StreamingWriteFactory sink() {
    return FloeStreamingWrite::new;
  }
}
