package io.floe.spark.write;

import io.floe.spark.types.TimeTransforms;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.Accessor;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.types.Type;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The partition of a Spark row under one spec, as a {@link StructLike} of the spec's partition
 * type holding exactly the values Iceberg's {@link org.apache.iceberg.PartitionKey} would.
 *
 * <p>Source values are read through {@link PartitionSourceRow}. Each field applies Iceberg's own
 * bound transform, except the year, month, day and hour of a timestamp: Iceberg computes those
 * through an {@code OffsetDateTime} per value, which dominated the cost of a write partitioned by
 * day; here they come from {@link TimeTransforms}, which gives the same numbers.
 *
 * <p>One instance is reused for every row of a task ({@link #partition}); the writers copy it when
 * they keep it.
 */
final class RowPartitionKey implements StructLike {
  private final PartitionSourceRow source;
  private final Accessor<StructLike>[] accessors;
  private final Function<Object, Object>[] transforms;
  private final Object[] values;

  @SuppressWarnings("unchecked")
  RowPartitionKey(PartitionSpec spec, Schema schema) {
    this.source = PartitionSourceRow.forSpec(schema, spec);
    List<PartitionField> fields = spec.fields();
    this.accessors = new Accessor[fields.size()];
    this.transforms = new Function[fields.size()];
    this.values = new Object[fields.size()];
    for (int i = 0; i < fields.size(); i += 1) {
      PartitionField field = fields.get(i);
      Accessor<StructLike> accessor = schema.accessorForField(field.sourceId());
      if (accessor == null) {
        throw new IllegalArgumentException(
            "Cannot partition by field " + field.name() + ": source column "
                + field.sourceId() + " is not in the schema");
      }
      accessors[i] = accessor;
      transforms[i] = transform(field, accessor.type());
    }
  }

  private static Function<Object, Object> transform(PartitionField field, Type sourceType) {
    String name = field.transform().toString();
    if (sourceType.typeId() == Type.TypeID.TIMESTAMP) {
      switch (name) {
        case "year":
          return micros -> micros == null ? null : TimeTransforms.yearsFromMicros((Long) micros);
        case "month":
          return micros -> micros == null ? null : TimeTransforms.monthsFromMicros((Long) micros);
        case "day":
          return micros -> micros == null ? null : TimeTransforms.daysFromMicros((Long) micros);
        case "hour":
          return micros -> micros == null ? null : TimeTransforms.hoursFromMicros((Long) micros);
        default:
          break;
      }
    }
    @SuppressWarnings("unchecked")
    Transform<Object, Object> transform = (Transform<Object, Object>) field.transform();
    return transform.bind(sourceType)::apply;
  }

  /** Computes the partition of {@code row}; the source row stays readable through {@link #row()}. */
  void partition(InternalRow row) {
    source.wrap(row);
    for (int i = 0; i < values.length; i += 1) {
      values[i] = transforms[i].apply(accessors[i].get(source));
    }
  }

  /** The current row as Iceberg reads its source columns. */
  StructLike row() {
    return source;
  }

  @Override
  public int size() {
    return values.length;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    return javaClass.cast(values[pos]);
  }

  @Override
  public <T> void set(int pos, T value) {
    throw new UnsupportedOperationException("Cannot set a partition value: the key is computed");
  }
}
