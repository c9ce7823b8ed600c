package io.floe.spark.write.exec;

import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * A partitioning writer that can take a row known to be of the previous row's partition without
 * looking its partition up again: rows mostly come in runs of one partition, whether Spark sorted
 * them or a shuffle delivered them block by block.
 */
interface PartitionRunWriter extends PartitioningWriter<InternalRow, DataWriteResult> {
  /**
   * Writes a row of the same partition as the row written just before it; {@code partition} is
   * that key, for a writer that must look it up after all.
   */
  void writeSamePartition(InternalRow row, PartitionSpec spec, StructLike partition);
}
