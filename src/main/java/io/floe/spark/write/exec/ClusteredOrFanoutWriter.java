package io.floe.spark.write.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FileWriter;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.util.StructLikeSet;
import org.apache.iceberg.util.StructLikeUtil;
import org.apache.spark.sql.catalyst.InternalRow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's writer for a partitioned spec when the fanout writer is off: one rolling data file
 * writer at a time (clustered) for as long as rows arrive clustered by partition, then a fanout
 * writer for the rest of the task if a partition it already finished comes back.
 *
 * <p>Rows arrive clustered because the write asks Spark to sort every task's rows by the partition
 * transforms (the write's required ordering). They may still not: a transform Spark cannot
 * compute (see {@code io.floe.spark.write.WriteDistribution}), or values Spark's sort holds equal
 * that are distinct partitions to Iceberg (0.0 and -0.0). Iceberg's clustered writer would then
 * fail the whole write; this one logs a warning and goes on, writing a second file for each
 * partition that comes back. Same rows, more files.
 *
 * <p>It keeps the open file writer itself, rather than behind Iceberg's clustered writer, so that
 * a row its caller knows to be of the previous row's partition ({@link #writeSamePartition}) goes
 * straight to that file without comparing partition keys.
 *
 * <p>Serves one spec. As with Iceberg's writers, {@link #result()} is valid only after {@link
 * #close()}. {@link #fellBack()} tells whether the task's rows did not arrive in the order asked
 * for, so that its files must not claim a sort order.
 */
final class ClusteredOrFanoutWriter implements PartitionRunWriter {
  private static final Logger LOG = LoggerFactory.getLogger(ClusteredOrFanoutWriter.class);

  private final String tableName;
  private final BiFunction<PartitionSpec, StructLike, FileWriter<InternalRow, DataWriteResult>>
      newFile;
  private final Supplier<PartitioningWriter<InternalRow, DataWriteResult>> newFanout;
  private final Comparator<StructLike> comparator;
  private final Set<StructLike> finished;
  private final List<DataFile> files = new ArrayList<>();
  private StructLike current;
  private FileWriter<InternalRow, DataWriteResult> currentFile;
  private PartitioningWriter<InternalRow, DataWriteResult> fanout;
  private boolean closed;

  /**
   * @param tableName the table written, for the warning
   * @param spec the one spec rows are written with
   * @param newFile opens the (rolling) file writer of one partition while rows arrive clustered
   * @param newFanout makes the writer used once they do not
   */
  ClusteredOrFanoutWriter(
      String tableName,
      PartitionSpec spec,
      BiFunction<PartitionSpec, StructLike, FileWriter<InternalRow, DataWriteResult>> newFile,
      Supplier<PartitioningWriter<InternalRow, DataWriteResult>> newFanout) {
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.newFile = Objects.requireNonNull(newFile, "newFile is null");
    this.newFanout = Objects.requireNonNull(newFanout, "newFanout is null");
    this.comparator = Comparators.forType(spec.partitionType());
    this.finished = StructLikeSet.create(spec.partitionType());
  }

  @Override
  public void write(InternalRow row, PartitionSpec spec, StructLike partition) {
    if (fanout != null) {
      fanout.write(row, spec, partition);
      return;
    }
    if (currentFile != null) {
      if (comparator.compare(partition, current) == 0) {
        currentFile.write(row);
        return;
      }
      closeCurrentFile();
      finished.add(current);
      if (finished.contains(partition)) {
        LOG.warn(
            "Rows for {} arrived unclustered (partition {} came back after it was finished); "
                + "writing the rest of this task with a fanout writer",
            tableName,
            spec.partitionToPath(partition));
        fanout = newFanout.get();
        fanout.write(row, spec, partition);
        return;
      }
    }
    current = StructLikeUtil.copy(partition);
    currentFile = newFile.apply(spec, current);
    currentFile.write(row);
  }

  /**
   * Writes a row of the same partition as the row written just before it, without comparing keys;
   * {@code partition} is that key, used only once the fanout writer has taken over.
   */
  @Override
  public void writeSamePartition(InternalRow row, PartitionSpec spec, StructLike partition) {
    if (currentFile != null) {
      currentFile.write(row);
    } else {
      write(row, spec, partition);
    }
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
      closeCurrentFile();
    } finally {
      if (fanout != null) {
        fanout.close();
      }
    }
  }

  @Override
  public DataWriteResult result() {
    List<DataFile> all = new ArrayList<>(files);
    if (fanout != null) {
      all.addAll(fanout.result().dataFiles());
    }
    return new DataWriteResult(all);
  }

  private void closeCurrentFile() {
    if (currentFile == null) {
      return;
    }
    FileWriter<InternalRow, DataWriteResult> closing = currentFile;
    currentFile = null;
    try {
      closing.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    files.addAll(closing.result().dataFiles());
  }
}
