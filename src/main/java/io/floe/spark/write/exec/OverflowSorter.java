package io.floe.spark.write.exec;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.collection.unsafe.sort.PrefixComparators;
import org.apache.spark.util.collection.unsafe.sort.RecordComparator;
import org.apache.spark.util.collection.unsafe.sort.UnsafeExternalSorter;
import org.apache.spark.util.collection.unsafe.sort.UnsafeSorterIterator;

/**
 * The rows a fanout task could not give an open file: kept in Spark's external sorter by a number
 * that stands for their partition, in the task's execution memory and spilled to local disk as
 * Spark's own sort spills, then handed back grouped by that number, so that each such partition is
 * written in one go, one file at a time. What Spark's file sources do when a task needs more than
 * {@code spark.sql.maxConcurrentOutputFileWriters} writers.
 *
 * <p>Needs a running Spark task ({@link TaskContext}). Its memory is released by {@link #close()},
 * and by Spark when the task ends in any way.
 */
final class OverflowSorter implements Closeable {
  // only the prefix (the partition's number) orders rows; rows of one partition may come in any order
  private static final RecordComparator SAME =
      new RecordComparator() {
        @Override
        public int compare(
            Object leftBase, long leftOffset, int leftLength,
            Object rightBase, long rightOffset, int rightLength) {
          return 0;
        }
      };

  private final int fields;
  private final UnsafeProjection toUnsafe;
  private final UnsafeExternalSorter sorter;

  /** What receives the sorted rows: each with the number its partition was added with. */
  interface Sink {
    void accept(int partition, InternalRow row);
  }

  /**
   * @param rowType the Spark type of the rows written
   * @param context the task the rows are written in
   */
  OverflowSorter(StructType rowType, TaskContext context) {
    Objects.requireNonNull(rowType, "rowType is null");
    Objects.requireNonNull(context, "context is null");
    this.fields = rowType.size();
    this.toUnsafe = UnsafeProjection.create(rowType);
    SparkEnv env = SparkEnv.get();
    this.sorter =
        UnsafeExternalSorter.create(
            context.taskMemoryManager(),
            env.blockManager(),
            env.serializerManager(),
            context,
            () -> SAME,
            PrefixComparators.LONG,
            4096,
            context.taskMemoryManager().pageSizeBytes(),
            Integer.MAX_VALUE,
            Long.MAX_VALUE,
            true);
  }

  /** Keeps a row of the partition numbered {@code partition} (0 or more). */
  void add(int partition, InternalRow row) {
    UnsafeRow unsafe = row instanceof UnsafeRow given ? given : toUnsafe.apply(row);
    try {
      sorter.insertRecord(
          unsafe.getBaseObject(), unsafe.getBaseOffset(), unsafe.getSizeInBytes(), partition, false);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot keep a row for a later data file", e);
    }
  }

  /** Hands every row kept to {@code sink}, all rows of one partition after one another. */
  void drain(Sink sink) throws IOException {
    UnsafeSorterIterator rows = sorter.getSortedIterator();
    UnsafeRow row = new UnsafeRow(fields);
    while (rows.hasNext()) {
      rows.loadNext();
      row.pointTo(rows.getBaseObject(), rows.getBaseOffset(), rows.getRecordLength());
      sink.accept((int) rows.getKeyPrefix(), row);
    }
  }

  @Override
  public void close() {
    sorter.cleanupResources();
  }
}
