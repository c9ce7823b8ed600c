package io.floe.spark.read.exec;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.ParquetMetricsRowGroupFilter;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;

/**
 * Reads the footer of a Parquet file task as the columnar reader hands it to Spark's decoder: only
 * the row groups of the task's split (those whose midpoint falls in it, Parquet's rule, which
 * Iceberg's readers use too), without those the residual filter rules out by column statistics
 * (never by a column {@link ParquetStatsGuard} finds stored in another unit than Iceberg reads), and
 * with a schema that carries Iceberg field ids, so that Spark matches columns by id. The ids are the
 * file's own, else the table's name mapping applied to the file's names, else Iceberg's positional
 * fallback ids, as Iceberg's own readers choose. Row index offsets stay those of the whole file.
 */
final class ParquetFooters {
  private ParquetFooters() {}

  static ParquetMetadata read(
      ReadSettings settings,
      FileScanTask task,
      InputFile file,
      SeekableInputStream stream,
      NameMapping mapping,
      Configuration conf)
      throws IOException {
    ParquetMetadata footer =
        ParquetFileReader.readFooter(
            file,
            HadoopReadOptions.builder(conf)
                .withRange(task.start(), task.start() + task.length())
                .build(),
            stream);
    MessageType fileSchema = footer.getFileMetaData().getSchema();
    MessageType withIds = ParquetStatsGuard.withIds(fileSchema, mapping);
    return new ParquetMetadata(
        new FileMetaData(
            withIds,
            footer.getFileMetaData().getKeyValueMetaData(),
            footer.getFileMetaData().getCreatedBy()),
        selectRowGroups(settings, task, withIds, footer.getBlocks()));
  }

  private static List<BlockMetaData> selectRowGroups(
      ReadSettings settings, FileScanTask task, MessageType withIds, List<BlockMetaData> blocks) {
    if (task.residual() == null || task.residual().op() == Expression.Operation.TRUE) {
      return blocks;
    }
    Expression residual =
        ParquetStatsGuard.prunable(
            task.residual(), settings.tableSchema(), withIds, settings.caseSensitive());
    if (residual.op() == Expression.Operation.TRUE) {
      return blocks;
    }
    ParquetMetricsRowGroupFilter filter;
    try {
      filter =
          new ParquetMetricsRowGroupFilter(settings.tableSchema(), residual, settings.caseSensitive());
    } catch (RuntimeException e) {
      // a residual that does not bind only loses the pruning: Spark filters every row anyway
      return blocks;
    }
    List<BlockMetaData> selected = new ArrayList<>(blocks.size());
    for (BlockMetaData block : blocks) {
      if (filter.shouldRead(withIds, block)) {
        selected.add(block);
      }
    }
    return selected;
  }
}
