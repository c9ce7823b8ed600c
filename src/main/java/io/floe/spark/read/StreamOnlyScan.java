package io.floe.spark.read;

import java.util.Objects;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;

/**
 * The scan of a read whose incremental batch options ({@code start-snapshot-id}, {@code
 * end-snapshot-id}, ...) do not resolve into a batch range: as a stream it is the scan it wraps (a
 * {@link FloeScan} or a {@link ChangelogScan}), whose source gives those options a stream's
 * meaning and errors (a stream may start after the current snapshot; on a restart its checkpoint
 * decides); as a batch it fails with the options' error. Spark builds the scan before it asks for
 * either, so the builder cannot tell which read it serves. It reports no statistics: the wrapped
 * scan planned no files. Its description names the read and says why it has no batch range, not
 * the wrapped scan's range, which stands for nothing.
 */
final class StreamOnlyScan implements Scan {
  private final Scan scan;
  private final String name;
  private final IllegalArgumentException batchFailure;

  /**
   * @param scan the scan a stream reads through (its schema, options and reader settings)
   * @param name the name of what is read (a table, or a table's changelog)
   * @param batchFailure why the options make no batch read
   */
  StreamOnlyScan(Scan scan, String name, IllegalArgumentException batchFailure) {
    this.scan = Objects.requireNonNull(scan, "scan is null");
    this.name = Objects.requireNonNull(name, "name is null");
    this.batchFailure = Objects.requireNonNull(batchFailure, "batchFailure is null");
  }

  @Override
  public StructType readSchema() {
    return scan.readSchema();
  }

  @Override
  public String description() {
    return "Floe " + name + " [stream only, its start resolved by the stream; no batch read: "
        + batchFailure.getMessage() + "]";
  }

  /**
   * @throws IllegalArgumentException always: the options' batch read error
   */
  @Override
  public Batch toBatch() {
    throw new IllegalArgumentException(batchFailure.getMessage(), batchFailure);
  }

  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    return scan.toMicroBatchStream(checkpointLocation);
  }

  @Override
  public String toString() {
    return "StreamOnlyScan{" + scan + "}";
  }
}
