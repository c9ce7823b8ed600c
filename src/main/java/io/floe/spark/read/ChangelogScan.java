package io.floe.spark.read;

import io.floe.spark.read.exec.ReaderMetrics;
import io.floe.spark.read.plan.ChangelogPlanner;
import io.floe.spark.read.plan.DriverMetrics;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;

/**
 * A changelog read planned once on the driver: the input partitions of change tasks, the factory
 * that reads them, and the schema of its rows (the projected table columns, then the selected
 * change columns). An empty range is a valid scan with no partitions. It is its own batch.
 *
 * <p>A scan built for a query that may stream carries, on the driver only, how to start its stream
 * source; a stream never plans the scan's own batch, which is planned when first asked for.
 */
public final class ChangelogScan implements Scan, Batch, Serializable {
  private final String name;
  private final ChangelogRange range;
  private final StructType readSchema;
  private final ChangelogReaderFactory readerFactory;
  private transient Supplier<ChangelogPlanner.Plan> planning;
  private transient Function<String, MicroBatchStream> streams;
  private List<ChangelogInputPartition> partitions;
  private DriverMetrics metrics;

  /**
   * @param name the changelog's name ({@code <table>.changes})
   * @param range the snapshots read
   * @param readSchema the schema of the rows the reader factory produces
   * @param partitions the planned input partitions
   * @param readerFactory reads every partition
   * @param metrics what planning measured
   */
  public ChangelogScan(
      String name,
      ChangelogRange range,
      StructType readSchema,
      List<ChangelogInputPartition> partitions,
      ChangelogReaderFactory readerFactory,
      DriverMetrics metrics) {
    this.name = Objects.requireNonNull(name, "name is null");
    this.range = Objects.requireNonNull(range, "range is null");
    this.readSchema = Objects.requireNonNull(readSchema, "readSchema is null");
    this.partitions = List.copyOf(Objects.requireNonNull(partitions, "partitions is null"));
    this.readerFactory = Objects.requireNonNull(readerFactory, "readerFactory is null");
    this.metrics = Objects.requireNonNull(metrics, "metrics is null");
  }

  /**
   * A scan whose batch is planned when first asked for, and that starts a stream source with
   * {@code streams} (the checkpoint location to the stream).
   */
  ChangelogScan(
      String name,
      ChangelogRange range,
      StructType readSchema,
      Supplier<ChangelogPlanner.Plan> planning,
      ChangelogReaderFactory readerFactory,
      Function<String, MicroBatchStream> streams) {
    this.name = Objects.requireNonNull(name, "name is null");
    this.range = Objects.requireNonNull(range, "range is null");
    this.readSchema = Objects.requireNonNull(readSchema, "readSchema is null");
    this.planning = Objects.requireNonNull(planning, "planning is null");
    this.readerFactory = Objects.requireNonNull(readerFactory, "readerFactory is null");
    this.streams = streams;
  }

  /** Plans the batch once, when first needed (before Java serialization, which writes it). */
  private synchronized void planned() {
    if (partitions == null) {
      ChangelogPlanner.Plan plan = planning.get();
      partitions = ChangelogInputPartition.of(plan.groups());
      metrics = plan.metrics();
      planning = null;
    }
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    planned();
    out.defaultWriteObject();
  }

  public String name() {
    return name;
  }

  public ChangelogRange range() {
    return range;
  }

  public List<ChangelogInputPartition> partitions() {
    planned();
    return partitions;
  }

  public ChangelogReaderFactory readerFactory() {
    return readerFactory;
  }

  public DriverMetrics metrics() {
    planned();
    return metrics;
  }

  @Override
  public StructType readSchema() {
    return readSchema;
  }

  @Override
  public String description() {
    return name + " [start=" + range.startSnapshotId() + " (exclusive), end="
        + (range.endSnapshotId() == null ? "current" : range.endSnapshotId())
        + (range.empty() ? ", empty" : "") + "]";
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  /**
   * The stream source over the changelog, when the scan was built with one; otherwise the error
   * says what to use instead.
   */
  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    if (streams == null) {
      throw ChangelogScanBuilder.noStreaming(name);
    }
    return streams.apply(checkpointLocation);
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return partitions().toArray(new InputPartition[0]);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return readerFactory;
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    CustomMetric[] readers = ReaderMetrics.all();
    CustomMetric[] driver = DriverMetrics.all();
    CustomMetric[] all = new CustomMetric[readers.length + driver.length];
    System.arraycopy(readers, 0, all, 0, readers.length);
    System.arraycopy(driver, 0, all, readers.length, driver.length);
    return all;
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    return metrics().values();
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ChangelogScan)) {
      return false;
    }
    ChangelogScan that = (ChangelogScan) other;
    return name.equals(that.name)
        && range.equals(that.range)
        && readSchema.equals(that.readSchema)
        && partitions().equals(that.partitions())
        && readerFactory.equals(that.readerFactory);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, range, readSchema, partitions(), readerFactory);
  }

  @Override
  public String toString() {
    // never plans: a scan is described before Spark asks for its batch, and a stream never does
    List<ChangelogInputPartition> planned = partitions;
    return "ChangelogScan{" + description() + ", partitions="
        + (planned == null ? "not planned" : String.valueOf(planned.size())) + "}";
  }
}
