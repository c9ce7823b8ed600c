package io.floe.spark.read.exec;

import io.floe.spark.parquet.ReadBuffers;
import io.floe.spark.types.IcebergToSpark;
import io.floe.spark.types.SparkSchemas;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads the Parquet tasks of one input partition, in order, as Spark {@link ColumnarBatch}es of at
 * most the scan's batch size, opening up to {@code prefetch-files} tasks ahead of the one being
 * decoded. Parquet data files are decoded column by column by {@link ParquetFileBatches}, ORC data
 * files are handed over in ORC's own vectors by {@link OrcFileBatches}; other tasks (see {@link
 * ColumnarSupport}) are read as rows and copied into batches. The files share one
 * {@link ReadBuffers}. Residual filters are left to Spark.
 */
public final class FloeColumnarReader implements PartitionReader<ColumnarBatch> {
  private final TaskPrefetcher<TaskBatches> files;
  private final ReaderMetrics metrics = new ReaderMetrics();
  private TaskBatches current;
  private ColumnarBatch batch;

  /**
   * @param settings what the scan's readers share
   * @param tasks the tasks of one input partition, in order
   */
  public FloeColumnarReader(ReadSettings settings, List<FileScanTask> tasks) {
    Configuration conf = ReadConf.shared();
    NameMapping mapping = settings.nameMapping();
    StructType sparkSchema = SparkSchemas.toSpark(settings.readSchema());
    IcebergToSpark converter = new IcebergToSpark(settings.readSchema().asStruct());
    ReadBuffers buffers = ReadBuffers.create();
    this.files =
        new TaskPrefetcher<>(
            tasks,
            settings.prefetchFiles(),
            task -> {
              if (ColumnarSupport.decodesTask(task, settings.tableSchema())) {
                return ParquetFileBatches.open(settings, task, conf, mapping, buffers);
              }
              // Spark's own ORC timestamps (imported files) are only read right on the row path
              if (ColumnarSupport.decodesOrcTask(
                      task, settings.tableSchema(), settings.readSchema())
                  && !OrcSparkTimestamps.presentIn(settings, task)) {
                return OrcFileBatches.open(settings, task);
              }
              return new RowTaskBatches(
                  RowTask.open(settings, task, converter), sparkSchema, settings.batchSize());
            });
  }

  @Override
  public boolean next() throws IOException {
    while (true) {
      if (current != null) {
        batch = current.next();
        if (batch != null) {
          return true;
        }
        closeCurrent();
      }
      if (!files.hasNext()) {
        return false;
      }
      current = files.next();
      if (current.bytes() > 0) {
        metrics.fileOpened(current.bytes());
      }
      metrics.rowGroupsRead(current.rowGroups());
    }
  }

  @Override
  public ColumnarBatch get() {
    return batch;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return metrics.taskValues();
  }

  @Override
  public void close() throws IOException {
    try {
      closeCurrent();
    } finally {
      files.close();
    }
  }

  private void closeCurrent() throws IOException {
    if (current != null) {
      TaskBatches closing = current;
      current = null;
      batch = null;
      closing.close();
    }
  }
}
