package io.floe.spark.write.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FileWriter;
import org.apache.iceberg.util.StructLikeMap;
import org.apache.iceberg.util.StructLikeUtil;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's fanout writer: one open (rolling) data file per partition, so rows may come in any
 * order, but never more than {@code maxOpenFiles} open at once. Rows of the partitions beyond the
 * bound are kept in Spark's external sorter ({@link OverflowSorter}: the task's execution memory,
 * spilled to local disk when short) and written when the task closes, after the open files are
 * closed, one partition and one file at a time. So every partition still gets one file per task
 * (more only when a file rolls at the target size), no row is lost and the bound never fails the
 * task; what it costs is the sort of the rows beyond it. How many partitions and rows went that
 * way is logged when the task closes.
 *
 * <p>Iceberg's {@code FanoutDataWriter} has no such bound: every partition a task meets keeps its
 * Parquet buffers (pages, dictionaries and the row group so far) until the task ends. Outside a
 * Spark task (no memory manager to sort with) the bound is not applied.
 *
 * <p>Serves one spec. As with Iceberg's writers, {@link #result()} is valid only after {@link
 * #close()}. Not thread-safe.
 */
final class BoundedFanoutWriter implements PartitionRunWriter {
  private static final Logger LOG = LoggerFactory.getLogger(BoundedFanoutWriter.class);

  private final String tableName;
  private final PartitionSpec spec;
  private final StructType rowType;
  private final BiFunction<PartitionSpec, StructLike, FileWriter<InternalRow, DataWriteResult>>
      newFile;
  private final int maxOpenFiles;
  private final Map<StructLike, FileWriter<InternalRow, DataWriteResult>> open;
  // the partitions beyond the bound, numbered in the order they came: the sorter's key
  private final Map<StructLike, Integer> overflowNumbers;
  private final List<StructLike> overflowPartitions = new ArrayList<>();
  private final List<DataFile> files = new ArrayList<>();
  private OverflowSorter overflow;
  private long overflowRows;
  // the file or overflow number of the row written last, for runs of one partition
  private FileWriter<InternalRow, DataWriteResult> last;
  private int lastOverflow = -1;
  private boolean closed;

  /**
   * @param tableName the table written, for the log
   * @param spec the one spec rows are written with
   * @param rowType the Spark type of the rows, for the sorter
   * @param newFile opens the (rolling) file writer of one partition
   * @param maxOpenFiles the most files open at once, at least 1
   */
  BoundedFanoutWriter(
      String tableName,
      PartitionSpec spec,
      StructType rowType,
      BiFunction<PartitionSpec, StructLike, FileWriter<InternalRow, DataWriteResult>> newFile,
      int maxOpenFiles) {
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.spec = Objects.requireNonNull(spec, "spec is null");
    this.rowType = Objects.requireNonNull(rowType, "rowType is null");
    this.newFile = Objects.requireNonNull(newFile, "newFile is null");
    if (maxOpenFiles <= 0) {
      throw new IllegalArgumentException(
          "Cannot write to " + tableName + ": the open-file bound must be positive, not "
              + maxOpenFiles);
    }
    this.maxOpenFiles = maxOpenFiles;
    this.open = StructLikeMap.create(spec.partitionType());
    this.overflowNumbers = StructLikeMap.create(spec.partitionType());
  }

  @Override
  public void write(InternalRow row, PartitionSpec rowSpec, StructLike partition) {
    FileWriter<InternalRow, DataWriteResult> writer = open.get(partition);
    if (writer == null) {
      if (open.size() >= maxOpenFiles && sortsOverflow()) {
        keep(partition, row);
        return;
      }
      StructLike copy = StructLikeUtil.copy(partition);
      writer = newFile.apply(spec, copy);
      open.put(copy, writer);
    }
    last = writer;
    lastOverflow = -1;
    writer.write(row);
  }

  @Override
  public void writeSamePartition(InternalRow row, PartitionSpec rowSpec, StructLike partition) {
    if (last != null) {
      last.write(row);
    } else if (lastOverflow >= 0) {
      overflow.add(lastOverflow, row);
      overflowRows += 1;
    } else {
      write(row, rowSpec, partition);
    }
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    last = null;
    try {
      closeAll(open.values());
      open.clear();
      if (overflow != null) {
        writeOverflow();
        LOG.info(
            "A fanout task writing {} met {} partitions beyond its bound of {} open files and "
                + "sorted their {} rows to write them one file at a time",
            tableName, overflowPartitions.size(), maxOpenFiles, overflowRows);
      }
    } finally {
      if (overflow != null) {
        overflow.close();
      }
    }
  }

  @Override
  public DataWriteResult result() {
    return new DataWriteResult(new ArrayList<>(files));
  }

  /** Whether rows beyond the bound can be sorted: only inside a Spark task. */
  private boolean sortsOverflow() {
    if (overflow == null) {
      TaskContext context = TaskContext.get();
      if (context == null) {
        return false;
      }
      LOG.warn(
          "A fanout task writing {} meets more than {} partitions: the rows of the others are "
              + "sorted and written when the task ends (option fanout-max-open-files)",
          tableName, maxOpenFiles);
      overflow = new OverflowSorter(rowType, context);
    }
    return true;
  }

  private void keep(StructLike partition, InternalRow row) {
    Integer number = overflowNumbers.get(partition);
    if (number == null) {
      StructLike copy = StructLikeUtil.copy(partition);
      number = overflowPartitions.size();
      overflowPartitions.add(copy);
      overflowNumbers.put(copy, number);
    }
    last = null;
    lastOverflow = number;
    overflow.add(number, row);
    overflowRows += 1;
  }

  private void writeOverflow() throws IOException {
    FileWriter<InternalRow, DataWriteResult>[] current = newWriterHolder();
    int[] currentNumber = {-1};
    try {
      overflow.drain(
          (number, row) -> {
            if (number != currentNumber[0]) {
              if (current[0] != null) {
                closeAll(List.of(current[0]));
                current[0] = null;
              }
              currentNumber[0] = number;
              current[0] = newFile.apply(spec, overflowPartitions.get(number));
            }
            current[0].write(row);
          });
    } finally {
      if (current[0] != null) {
        closeAll(List.of(current[0]));
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static FileWriter<InternalRow, DataWriteResult>[] newWriterHolder() {
    return new FileWriter[1];
  }

  /** Closes every writer and keeps its files; the first failure is thrown after all were tried. */
  private void closeAll(Iterable<FileWriter<InternalRow, DataWriteResult>> writers) {
    RuntimeException failure = null;
    for (FileWriter<InternalRow, DataWriteResult> writer : writers) {
      try {
        writer.close();
        files.addAll(writer.result().dataFiles());
      } catch (IOException e) {
        failure = first(failure, new UncheckedIOException(e));
      } catch (RuntimeException e) {
        failure = first(failure, e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static RuntimeException first(RuntimeException failure, RuntimeException next) {
    if (failure == null) {
      return next;
    }
    failure.addSuppressed(next);
    return failure;
  }
}
