package io.floe.spark.read.plan;

import io.floe.spark.types.IcebergToSpark;
import io.floe.spark.util.Identifiers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.transforms.PartitionSpecVisitor;
import org.apache.iceberg.types.TypeUtil;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The partition keys of a scan whose tasks all share one partition spec made only of identity and
 * bucket transforms of columns the scan reads: the transforms as Spark names them, and each task's
 * key as a Spark row. Spark can then treat the scan's groups as already clustered by those keys,
 * which is what lets a storage-partitioned join skip its shuffle.
 */
final class KeyGrouping {
  private final PartitionSpec spec;
  private final List<ScanLayout.KeyField> transforms;
  private final IcebergToSpark converter;

  private KeyGrouping(PartitionSpec spec, List<ScanLayout.KeyField> transforms) {
    this.spec = spec;
    this.transforms = List.copyOf(transforms);
    this.converter = new IcebergToSpark(spec.partitionType());
  }

  /**
   * The key grouping of these tasks, or empty when they have none: no tasks, a metadata table, more
   * than one spec, an unpartitioned spec, a transform other than identity and bucket, or a source
   * column the scan does not read.
   *
   * @param reportedSchema the schema the scan reports, whose names Spark resolves
   * @param readSchema the columns the scan produces
   */
  static Optional<KeyGrouping> of(
      List<FileScanTask> tasks, Schema reportedSchema, Schema readSchema) {
    if (tasks.isEmpty() || tasks.get(0).isDataTask()) {
      return Optional.empty();
    }
    PartitionSpec spec = tasks.get(0).spec();
    for (FileScanTask task : tasks) {
      if (task.isDataTask() || task.spec().specId() != spec.specId()) {
        return Optional.empty();
      }
    }
    if (spec.isUnpartitioned()) {
      return Optional.empty();
    }
    Map<Integer, String> quotedNames =
        TypeUtil.indexQuotedNameById(reportedSchema.asStruct(), Identifiers::quote);
    List<ScanLayout.KeyField> transforms = new ArrayList<>();
    for (PartitionField field : spec.fields()) {
      String column = quotedNames.get(field.sourceId());
      if (column == null || readSchema.findField(field.sourceId()) == null) {
        return Optional.empty();
      }
      ScanLayout.KeyField transform =
          PartitionSpecVisitor.visit(spec.schema(), field, new KeyFields(column));
      if (transform == null) {
        return Optional.empty();
      }
      transforms.add(transform);
    }
    return Optional.of(new KeyGrouping(spec, transforms));
  }

  List<ScanLayout.KeyField> transforms() {
    return transforms;
  }

  /** The task's partition key in Spark's internal representation. */
  InternalRow key(FileScanTask task) {
    return converter.convert(task.file().partition());
  }

  /** A value-equal form of the task's partition tuple, for grouping tasks by key. */
  List<Object> groupingKey(FileScanTask task) {
    StructLike partition = task.file().partition();
    List<Object> values = new ArrayList<>(spec.fields().size());
    for (int pos = 0; pos < spec.fields().size(); pos++) {
      Object value = partition.get(pos, Object.class);
      values.add(value instanceof CharSequence ? value.toString() : value);
    }
    return values;
  }


  /** The transforms a key-grouped partitioning may hold; null for any other. */
  private static final class KeyFields implements PartitionSpecVisitor<ScanLayout.KeyField> {
    private final String column;

    KeyFields(String column) {
      this.column = column;
    }

    @Override
    public ScanLayout.KeyField identity(int fieldId, String sourceName, int sourceId) {
      return new ScanLayout.KeyField(column, 0);
    }

    @Override
    public ScanLayout.KeyField bucket(
        int fieldId, String sourceName, int sourceId, int numBuckets) {
      return new ScanLayout.KeyField(column, numBuckets);
    }

    @Override
    public ScanLayout.KeyField truncate(int fieldId, String sourceName, int sourceId, int width) {
      return null;
    }

    @Override
    public ScanLayout.KeyField year(int fieldId, String sourceName, int sourceId) {
      return null;
    }

    @Override
    public ScanLayout.KeyField month(int fieldId, String sourceName, int sourceId) {
      return null;
    }

    @Override
    public ScanLayout.KeyField day(int fieldId, String sourceName, int sourceId) {
      return null;
    }

    @Override
    public ScanLayout.KeyField hour(int fieldId, String sourceName, int sourceId) {
      return null;
    }

    @Override
    public ScanLayout.KeyField alwaysNull(int fieldId, String sourceName, int sourceId) {
      return null;
    }

    @Override
    public ScanLayout.KeyField unknown(int fieldId, String sourceName, int sourceId, String transform) {
      return null;
    }
  }
}
