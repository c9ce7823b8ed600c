package io.floe.spark.write;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.util.StructLikeSet;
import org.apache.iceberg.util.StructLikeUtil;
import org.apache.spark.sql.catalyst.InternalRow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's writer for a partitioned spec when the fanout writer is off: a clustered writer (one
 * open file at a time) for as long as rows arrive clustered by partition, then a fanout writer for
 * the rest of the task if a partition it already finished comes back.
 *
 * <p>Rows arrive clustered because the write asks Spark to sort every task's rows by the partition
 * transforms ({@link WriteDistribution}). They may still not: a transform Spark cannot compute
 * (see there), or values Spark's sort holds equal that are distinct partitions to Iceberg (0.0 and
 * -0.0). Iceberg's clustered writer would then fail the whole write; this one logs a warning and
 * goes on, writing a second file for each partition that comes back. Same rows, more files.
 *
 * <p>Serves one spec. As with Iceberg's writers, {@link #result()} is valid only after {@link
 * #close()}. {@link #fellBack()} tells whether the task's rows did not arrive in the order asked
 * for, so that its files must not claim a sort order.
 */
final class ClusteredOrFanoutWriter implements PartitioningWriter<InternalRow, DataWriteResult> {
  private static final Logger LOG = LoggerFactory.getLogger(ClusteredOrFanoutWriter.class);

  private final String tableName;
  private final PartitioningWriter<InternalRow, DataWriteResult> clustered;
  private final Supplier<PartitioningWriter<InternalRow, DataWriteResult>> newFanout;
  private final Comparator<StructLike> comparator;
  private final Set<StructLike> finished;
  private StructLike current;
  private PartitioningWriter<InternalRow, DataWriteResult> fanout;
  private boolean closed;

  /**
   * @param tableName the table written, for the warning
   * @param spec the one spec rows are written with
   * @param clustered the writer used while rows arrive clustered
   * @param newFanout makes the writer used once they do not
   */
  ClusteredOrFanoutWriter(
      String tableName,
      PartitionSpec spec,
      PartitioningWriter<InternalRow, DataWriteResult> clustered,
      Supplier<PartitioningWriter<InternalRow, DataWriteResult>> newFanout) {
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.clustered = Objects.requireNonNull(clustered, "clustered is null");
    this.newFanout = Objects.requireNonNull(newFanout, "newFanout is null");
    this.comparator = Comparators.forType(spec.partitionType());
    this.finished = StructLikeSet.create(spec.partitionType());
  }

  @Override
  public void write(InternalRow row, PartitionSpec spec, StructLike partition) {
    if (fanout == null && current != null && comparator.compare(partition, current) != 0) {
      finished.add(current);
      if (finished.contains(partition)) {
        LOG.warn(
            "Rows for {} arrived unclustered (partition {} came back after it was finished); "
                + "writing the rest of this task with a fanout writer",
            tableName,
            spec.partitionToPath(partition));
        fanout = newFanout.get();
      } else {
        current = StructLikeUtil.copy(partition);
      }
    } else if (current == null) {
      current = StructLikeUtil.copy(partition);
    }
    (fanout == null ? clustered : fanout).write(row, spec, partition);
  }

  /** Whether rows arrived unclustered and a fanout writer took over. */
  boolean fellBack() {
    return fanout != null;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      clustered.close();
    } finally {
      if (fanout != null) {
        fanout.close();
      }
    }
  }

  @Override
  public DataWriteResult result() {
    List<DataFile> files = new ArrayList<>(clustered.result().dataFiles());
    if (fanout != null) {
      files.addAll(fanout.result().dataFiles());
    }
    return new DataWriteResult(files);
  }
}
