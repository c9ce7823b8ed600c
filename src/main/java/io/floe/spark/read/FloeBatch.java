package io.floe.spark.read;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;

/** A planned scan as Spark runs it: the input partitions and the factory that reads them. */
public final class FloeBatch implements Batch, Serializable {
  /**
   * Session conf that turns columnar reads off for every scan ({@code true} by default); it is
   * resolved with the other read options ({@link ReadOptions#vectorizationEnabled()}).
   */
  public static final String VECTORIZATION_CONF =
      ReadOptions.SESSION_PREFIX + ReadOptions.VECTORIZATION_ENABLED;

  private final List<FloeInputPartition> partitions;
  private final FloeReaderFactory readerFactory;

  public FloeBatch(List<FloeInputPartition> partitions, FloeReaderFactory readerFactory) {
    this.partitions = List.copyOf(Objects.requireNonNull(partitions, "partitions is null"));
    this.readerFactory = Objects.requireNonNull(readerFactory, "readerFactory is null");
  }

  public List<FloeInputPartition> partitions() {
    return partitions;
  }

  public FloeReaderFactory readerFactory() {
    return readerFactory;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return partitions.toArray(new InputPartition[0]);
  }

  /**
   * The planned reader factory, which alone decides per partition whether it is read as columnar
   * batches.
   */
  @Override
  public PartitionReaderFactory createReaderFactory() {
    return readerFactory;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeBatch)) {
      return false;
    }
    FloeBatch that = (FloeBatch) other;
    return partitions.equals(that.partitions) && readerFactory.equals(that.readerFactory);
  }

  @Override
  public int hashCode() {
    return Objects.hash(partitions, readerFactory);
  }

  @Override
  public String toString() {
    return "FloeBatch{partitions=" + partitions.size() + ", readerFactory=" + readerFactory + "}";
  }
}
