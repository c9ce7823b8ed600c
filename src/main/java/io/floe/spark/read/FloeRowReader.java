package io.floe.spark.read;

import io.floe.spark.types.IcebergToSpark;
import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.iceberg.util.StructProjection;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * Reads the tasks of one input partition, in order, as Spark rows: projects by field id, fills
 * identity-partition and metadata columns from task metadata, and drops rows removed by position and
 * equality delete files. Residual filters are left to Spark, which evaluates every pushed filter
 * again after the scan.
 */
final class FloeRowReader implements PartitionReader<InternalRow> {
  private final FloeReaderFactory factory;
  private final Iterator<FileScanTask> tasks;
  private final IcebergToSpark converter;
  private final Types.StructType partitionType;
  private final Map<Integer, Integer> parents;
  private CloseableIterable<? extends StructLike> currentIterable;
  private CloseableIterator<? extends StructLike> current;
  private InternalRow row;

  FloeRowReader(FloeReaderFactory factory, FloeInputPartition partition) {
    this.factory = factory;
    this.tasks = partition.tasks().iterator();
    this.converter = new IcebergToSpark(factory.readSchema().asStruct());
    Types.NestedField partitionField =
        factory.readSchema().findField(MetadataColumns.PARTITION_COLUMN_ID);
    this.partitionType = partitionField == null ? null : partitionField.type().asStructType();
    this.parents = TypeUtil.indexParents(factory.tableSchema().asStruct());
  }

  @Override
  public boolean next() throws IOException {
    while (current == null || !current.hasNext()) {
      closeCurrent();
      if (!tasks.hasNext()) {
        return false;
      }
      currentIterable = open(tasks.next());
      current = currentIterable.iterator();
    }
    row = converter.convert(current.next());
    return true;
  }

  @Override
  public InternalRow get() {
    return row;
  }

  @Override
  public void close() throws IOException {
    closeCurrent();
  }

  private void closeCurrent() throws IOException {
    if (current != null) {
      current.close();
      current = null;
    }
    if (currentIterable != null) {
      currentIterable.close();
      currentIterable = null;
    }
  }

  private CloseableIterable<? extends StructLike> open(FileScanTask task) {
    if (task.isDataTask()) {
      StructProjection projection =
          StructProjection.create(factory.tableSchema(), factory.readSchema());
      return CloseableIterable.transform(task.asDataTask().rows(), projection::wrap);
    }

    GenericDeleteFilter deletes =
        new GenericDeleteFilter(factory.io(), task, factory.tableSchema(), factory.readSchema());
    Schema fileProjection = deletes.requiredSchema();
    Map<Integer, Object> constants =
        new HashMap<>(
            PartitionUtil.constantsMap(
                task, partitionType, IdentityPartitionConverters::convertConstant));
    // a constant for a field inside a struct would make the reader build that struct even in rows
    // where it is NULL; such fields are read from the file, which always holds them
    constants.keySet().removeIf(parents::containsKey);
    InputFile input = factory.io().newInputFile(task.file());
    CloseableIterable<Record> records =
        FormatModelRegistry.<Record, Schema>readBuilder(task.file().format(), Record.class, input)
            .project(fileProjection)
            .idToConstant(constants)
            .split(task.start(), task.length())
            .caseSensitive(factory.caseSensitive())
            .filter(task.residual())
            .build();
    return deletes.filter(records);
  }
}
