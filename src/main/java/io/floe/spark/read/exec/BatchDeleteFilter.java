package io.floe.spark.read.exec;

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.io.InputFile;

/** Iceberg's delete filter over batch rows: it loads the delete files and tests rows. */
final class BatchDeleteFilter extends DeleteFilter<BatchRow> {
  private final ReadSettings settings;

  BatchDeleteFilter(ReadSettings settings, FileScanTask task, Schema readSchema) {
    super(task.file().location(), task.deletes(), settings.tableSchema(), readSchema);
    this.settings = settings;
  }

  @Override
  protected StructLike asStructLike(BatchRow record) {
    return record;
  }

  @Override
  protected InputFile getInputFile(String location) {
    return settings.io().newInputFile(location);
  }
}
