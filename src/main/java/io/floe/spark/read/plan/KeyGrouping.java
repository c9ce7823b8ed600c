package io.floe.spark.read.plan;

import io.floe.spark.types.IcebergToSpark;
import io.floe.spark.util.Identifiers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Partitioning;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.transforms.PartitionSpecVisitor;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructProjection;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The partition keys of a scan: the partition fields that every planned task's spec shares (by
 * field id, as Iceberg's {@link Partitioning#groupingKeyType} finds them, so tables whose spec
 * evolved still group by what their specs have in common) over columns the scan reads, as Spark
 * names the transforms, and each task's key as a Spark row. Spark can then treat the scan's groups
 * as already clustered by those keys, which is what lets a storage-partitioned join, or an
 * aggregate grouped by the partition source columns, skip its shuffle.
 *
 * <p>The key fields are the transforms Spark 4.1 can cluster by: identity, bucket, years, months,
 * days and hours. Truncate (whose width Spark sees as a second leaf of the expression) and void
 * fields (a dropped field of a format v1 table) are left out; a key of fewer fields is coarser but
 * still correct, since tasks are grouped by the key they are reported with.
 */
final class KeyGrouping {
  private final Types.StructType keyType;
  private final List<ScanLayout.KeyField> transforms;
  private final IcebergToSpark converter;
  private final Map<Integer, StructProjection> projections = new HashMap<>();

  private KeyGrouping(Types.StructType keyType, List<ScanLayout.KeyField> transforms) {
    this.keyType = keyType;
    this.transforms = List.copyOf(transforms);
    this.converter = new IcebergToSpark(keyType);
  }

  /**
   * The key grouping of these tasks, or empty when they have none: no tasks, a metadata table, or
   * no partition field shared by every task's spec over a column the scan reads.
   *
   * @param reportedSchema the schema the scan reports, whose names Spark resolves
   * @param readSchema the columns the scan produces
   */
  static Optional<KeyGrouping> of(
      List<FileScanTask> tasks, Schema reportedSchema, Schema readSchema) {
    if (tasks.isEmpty()) {
      return Optional.empty();
    }
    Map<Integer, PartitionSpec> specs = new LinkedHashMap<>();
    for (FileScanTask task : tasks) {
      if (task.isDataTask()) {
        return Optional.empty();
      }
      specs.putIfAbsent(task.spec().specId(), task.spec());
    }
    Types.StructType shared = Partitioning.groupingKeyType(readSchema, specs.values());
    Map<Integer, String> quotedNames =
        TypeUtil.indexQuotedNameById(reportedSchema.asStruct(), Identifiers::quote);
    List<Types.NestedField> keyFields = new ArrayList<>();
    List<ScanLayout.KeyField> transforms = new ArrayList<>();
    for (Types.NestedField keyField : shared.fields()) {
      PartitionSpec spec = specOf(keyField.fieldId(), specs.values());
      PartitionField field = fieldOf(keyField.fieldId(), spec);
      String column = quotedNames.get(field.sourceId());
      if (column == null || readSchema.findField(field.sourceId()) == null) {
        continue;
      }
      ScanLayout.KeyField transform =
          PartitionSpecVisitor.visit(spec.schema(), field, new KeyFields(column));
      if (transform != null) {
        keyFields.add(keyField);
        transforms.add(transform);
      }
    }
    if (transforms.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new KeyGrouping(Types.StructType.of(keyFields), transforms));
  }

  private static PartitionSpec specOf(int fieldId, Iterable<PartitionSpec> specs) {
    for (PartitionSpec spec : specs) {
      if (fieldOf(fieldId, spec) != null) {
        return spec;
      }
    }
    throw new IllegalStateException("No spec holds partition field " + fieldId);
  }

  private static PartitionField fieldOf(int fieldId, PartitionSpec spec) {
    for (PartitionField field : spec.fields()) {
      if (field.fieldId() == fieldId) {
        return field;
      }
    }
    return null;
  }

  List<ScanLayout.KeyField> transforms() {
    return transforms;
  }

  /** The task's partition key in Spark's internal representation. */
  InternalRow key(FileScanTask task) {
    return converter.convert(project(task));
  }

  /** A value-equal form of the task's partition key, for grouping tasks by key. */
  List<Object> groupingKey(FileScanTask task) {
    StructLike key = project(task);
    List<Object> values = new ArrayList<>(keyType.fields().size());
    for (int pos = 0; pos < keyType.fields().size(); pos++) {
      Object value = key.get(pos, Object.class);
      values.add(value instanceof CharSequence ? value.toString() : value);
    }
    return values;
  }

  /** The task's partition tuple reduced to the key's fields; valid until the next call. */
  private StructLike project(FileScanTask task) {
    StructProjection projection =
        projections.computeIfAbsent(
            task.spec().specId(),
            id -> StructProjection.create(task.spec().partitionType(), keyType));
    return projection.wrap(task.file().partition());
  }

  /** The transforms a key-grouped partitioning may hold; null for any other. */
  private static final class KeyFields implements PartitionSpecVisitor<ScanLayout.KeyField> {
    private final String column;

    KeyFields(String column) {
      this.column = column;
    }

    @Override
    public ScanLayout.KeyField identity(int fieldId, String sourceName, int sourceId) {
      return new ScanLayout.KeyField(ScanLayout.KeyField.IDENTITY, column, 0);
    }

    @Override
    public ScanLayout.KeyField bucket(
        int fieldId, String sourceName, int sourceId, int numBuckets) {
      return new ScanLayout.KeyField(ScanLayout.KeyField.BUCKET, column, numBuckets);
    }

    @Override
    public ScanLayout.KeyField truncate(int fieldId, String sourceName, int sourceId, int width) {
      // Spark 4.1 clusters only by transforms of one argument (its key-grouped partitioning
      // requires each expression to have a single leaf), so truncate(width, c) is left out
      return null;
    }

    @Override
    public ScanLayout.KeyField year(int fieldId, String sourceName, int sourceId) {
      return new ScanLayout.KeyField(ScanLayout.KeyField.YEARS, column, 0);
    }

    @Override
    public ScanLayout.KeyField month(int fieldId, String sourceName, int sourceId) {
      return new ScanLayout.KeyField(ScanLayout.KeyField.MONTHS, column, 0);
    }

    @Override
    public ScanLayout.KeyField day(int fieldId, String sourceName, int sourceId) {
      return new ScanLayout.KeyField(ScanLayout.KeyField.DAYS, column, 0);
    }

    @Override
    public ScanLayout.KeyField hour(int fieldId, String sourceName, int sourceId) {
      return new ScanLayout.KeyField(ScanLayout.KeyField.HOURS, column, 0);
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
