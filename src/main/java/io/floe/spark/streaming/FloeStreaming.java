package io.floe.spark.streaming;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.read.ChangelogStreamFactory;
import io.floe.spark.read.MicroBatchStreamFactory;
import io.floe.spark.write.StreamingWriteFactory;
import java.util.Objects;

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

  /** The stream source of a planned scan: {@link FloeMicroBatchStream} over the loaded table. */
  public static MicroBatchStreamFactory source(TableLoader loader) {
    Objects.requireNonNull(loader, "loader is null");
    return (scan, options, checkpoint) -> new FloeMicroBatchStream(loader, scan, options, checkpoint);
  }

  /** The stream source of a changelog scan: {@link ChangelogMicroBatchStream} over the loaded table. */
  public static ChangelogStreamFactory changelogSource(TableLoader loader) {
    Objects.requireNonNull(loader, "loader is null");
    return (scan, planner, options, checkpoint) ->
        new ChangelogMicroBatchStream(loader, scan, planner, options, checkpoint);
  }
}
