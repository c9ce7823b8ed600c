package io.floe.spark.write.exec;

import io.floe.spark.types.TimeTransforms;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.apache.iceberg.Accessor;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
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
 * they keep it. {@link #partition} also says whether the row's partition differs from the previous
 * row's, so that a clustered writer need not compare keys for every row. For a spec of one time
 * transform of a timestamp column, or one identity of an int, date or long column, of the top
 * level, that answer comes from the row's primitive value without computing the key again.
 */
final class RowPartitionKey implements StructLike {
  private final PartitionSourceRow source;
  private final Accessor<StructLike>[] accessors;
  private final Function<Object, Object>[] transforms;
  private final Object[] values;
  private final PrimitiveKey primitive;
  private boolean first = true;

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
    this.primitive = fields.size() == 1 ? PrimitiveKey.of(fields.get(0), schema) : null;
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

  /**
   * Computes the partition of {@code row}; the source row stays readable through {@link #row()}.
   *
   * @return whether the partition differs from the previous row's (always true for the first row);
   *     false only when every value is equal to the previous one
   */
  boolean partition(InternalRow row) {
    source.wrap(row);
    if (primitive != null) {
      if (!primitive.next(row) && !first) {
        return false;
      }
      first = false;
      values[0] = primitive.value();
      return true;
    }
    boolean changed = first;
    first = false;
    for (int i = 0; i < values.length; i += 1) {
      Object value = transforms[i].apply(accessors[i].get(source));
      changed |= !Objects.equals(value, values[i]);
      values[i] = value;
    }
    return changed;
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

  /**
   * The partition of a one-field spec read as a primitive from the row: a time transform of a
   * timestamp column, or the identity of an int, date or long column, of the top level. Gives the
   * same values as Iceberg's transforms (through {@link TimeTransforms}, as the general path).
   */
  private static final class PrimitiveKey {
    private enum Kind {
      YEAR,
      MONTH,
      DAY,
      HOUR,
      INT,
      LONG
    }

    private final Kind kind;
    private final int ordinal;
    private boolean isNull;
    private long key;

    private PrimitiveKey(Kind kind, int ordinal) {
      this.kind = kind;
      this.ordinal = ordinal;
    }

    /** The primitive key for {@code field}, or null when it has none. */
    static PrimitiveKey of(PartitionField field, Schema schema) {
      List<Types.NestedField> columns = schema.columns();
      int ordinal = -1;
      for (int i = 0; i < columns.size(); i += 1) {
        if (columns.get(i).fieldId() == field.sourceId()) {
          ordinal = i;
        }
      }
      if (ordinal < 0) {
        return null;
      }
      Type.TypeID type = columns.get(ordinal).type().typeId();
      String transform = field.transform().toString();
      Kind kind = null;
      if (type == Type.TypeID.TIMESTAMP) {
        kind =
            switch (transform) {
              case "year" -> Kind.YEAR;
              case "month" -> Kind.MONTH;
              case "day" -> Kind.DAY;
              case "hour" -> Kind.HOUR;
              case "identity" -> Kind.LONG;
              default -> null;
            };
      } else if (transform.equals("identity")) {
        kind =
            switch (type) {
              case INTEGER, DATE -> Kind.INT;
              case LONG -> Kind.LONG;
              default -> null;
            };
      }
      return kind == null ? null : new PrimitiveKey(kind, ordinal);
    }

    /** Reads the key of {@code row}; returns whether it differs from the previous row's. */
    boolean next(InternalRow row) {
      boolean nextNull = row.isNullAt(ordinal);
      long nextKey = nextNull ? 0L : read(row);
      boolean changed = nextNull != isNull || nextKey != key;
      isNull = nextNull;
      key = nextKey;
      return changed;
    }

    private long read(InternalRow row) {
      return switch (kind) {
        case YEAR -> TimeTransforms.yearsFromMicros(row.getLong(ordinal));
        case MONTH -> TimeTransforms.monthsFromMicros(row.getLong(ordinal));
        case DAY -> TimeTransforms.daysFromMicros(row.getLong(ordinal));
        case HOUR -> TimeTransforms.hoursFromMicros(row.getLong(ordinal));
        case INT -> row.getInt(ordinal);
        case LONG -> row.getLong(ordinal);
      };
    }

    /** The current key as Iceberg's partition value. */
    Object value() {
      if (isNull) {
        return null;
      }
      return kind == Kind.LONG ? (Object) key : (Object) (int) key;
    }
  }
}
