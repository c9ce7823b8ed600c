package io.floe.spark.read;

import io.floe.spark.read.exec.ReaderMetrics;
import io.floe.spark.read.plan.DriverMetrics;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
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
 */
public final class ChangelogScan implements Scan, Batch, Serializable {
  private final String name;
  private final ChangelogRange range;
  private final StructType readSchema;
  private final List<ChangelogInputPartition> partitions;
  private final ChangelogReaderFactory readerFactory;
  private final DriverMetrics metrics;

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

  public String name() {
    return name;
  }

  public ChangelogRange range() {
    return range;
  }

  public List<ChangelogInputPartition> partitions() {
    return partitions;
  }

  public ChangelogReaderFactory readerFactory() {
    return readerFactory;
  }

  public DriverMetrics metrics() {
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

  /** Streaming reads of a changelog are not offered; the message says what to use instead. */
  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    throw ChangelogScanBuilder.noStreaming(name);
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return partitions.toArray(new InputPartition[0]);
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
    return metrics.values();
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
        && partitions.equals(that.partitions)
        && readerFactory.equals(that.readerFactory);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, range, readSchema, partitions, readerFactory);
  }

  @Override
  public String toString() {
    return "ChangelogScan{" + description() + ", partitions=" + partitions.size() + "}";
  }
}
