package io.floe.spark.read.plan;

import io.floe.spark.read.plan.manifest.DataManifestPlanner;
import io.floe.spark.types.IcebergToSpark;
import io.floe.spark.types.SparkSchemas;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Answers {@code COUNT(*)}, {@code COUNT(col)}, {@code MIN(col)} and {@code MAX(col)} without a
 * GROUP BY from the data files' metadata, when that metadata is exact for every file of the
 * snapshot; otherwise there is no answer and Spark scans the rows.
 *
 * <p>Exact means: no file has delete files (deletes hide rows the counts include); every file
 * records the value and null counts of a counted column; every file with a non-null value records
 * both bounds of a column whose minimum or maximum is asked; the column is of a type whose bounds
 * are never truncated (not a string, binary or fixed column, whose bounds Iceberg may shorten);
 * and for float and double columns every file records that it holds no NaN, which has no bound.
 */
public final class MetadataAggregates {
  private MetadataAggregates() {}

  /**
   * The one-row answer of an aggregation over a snapshot, or empty when the metadata cannot give it
   * exactly.
   *
   * @param schema the schema the aggregation's columns resolve in
   * @param filter selects whole partitions (every row of every file it plans is aggregated)
   * @param snapshotId the snapshot to read, or null for a table without snapshots
   */
  public static Optional<Answer> answer(
      Table table,
      Long snapshotId,
      Schema schema,
      Expression filter,
      Aggregation aggregation,
      boolean caseSensitive) {
    if (aggregation.groupByExpressions().length > 0) {
      return Optional.empty();
    }
    List<Function> functions = new ArrayList<>();
    for (AggregateFunc func : aggregation.aggregateExpressions()) {
      Optional<Function> function = Function.of(func, schema, caseSensitive);
      if (function.isEmpty()) {
        return Optional.empty();
      }
      functions.add(function.get());
    }
    List<DataFile> files = new ArrayList<>();
    if (snapshotId != null) {
      Set<String> statsColumns = new LinkedHashSet<>();
      for (Function function : functions) {
        // stats are selected by the names of the table's current schema; a column it lacks gets
        // none, and a function without its stats gives no answer
        function.fieldId()
            .map(id -> table.schema().findColumnName(id))
            .ifPresent(statsColumns::add);
      }
      List<FileScanTask> tasks = new ArrayList<>();
      DataManifestPlanner.planFiles(
          table, snapshotId, filter, caseSensitive, List.copyOf(statsColumns), tasks::add);
      for (FileScanTask task : tasks) {
        if (!task.deletes().isEmpty()) {
          return Optional.empty();
        }
        files.add(task.file());
      }
    }

    Object[] values = new Object[functions.size()];
    StructType sparkSchema = new StructType();
    for (int pos = 0; pos < functions.size(); pos++) {
      Function function = functions.get(pos);
      Optional<Object> value = function.evaluate(files);
      if (value == null) {
        return Optional.empty();
      }
      values[pos] = value.orElse(null);
      sparkSchema = sparkSchema.add("agg_func_" + pos, function.sparkType(), true);
    }
    List<String> described = functions.stream().map(Function::describe).toList();
    return Optional.of(new Answer(sparkSchema, new GenericInternalRow(values), described));
  }

  /**
   * An aggregation's answer.
   *
   * @param schema one column per aggregate function, in order
   * @param row the values, in Spark's internal representation
   * @param functions the aggregate functions, for EXPLAIN
   */
  public record Answer(StructType schema, InternalRow row, List<String> functions) {}

  /** One aggregate function over the files' metadata. */
  private abstract static class Function {
    static Optional<Function> of(AggregateFunc func, Schema schema, boolean caseSensitive) {
      if (func instanceof CountStar) {
        return Optional.of(new CountRows());
      }
      if (func instanceof Count count && !count.isDistinct()) {
        return column(count.column(), schema, caseSensitive).map(ValueCount::new);
      }
      if (func instanceof Min min) {
        return column(min.column(), schema, caseSensitive)
            .filter(MetadataAggregates::exactBounds)
            .map(field -> new Bound(field, true));
      }
      if (func instanceof Max max) {
        return column(max.column(), schema, caseSensitive)
            .filter(MetadataAggregates::exactBounds)
            .map(field -> new Bound(field, false));
      }
      return Optional.empty();
    }

    /** The id of the column whose statistics the function needs, if any. */
    abstract Optional<Integer> fieldId();

    abstract org.apache.spark.sql.types.DataType sparkType();

    abstract String describe();

    /**
     * The value over these files: a present value, an empty one for SQL NULL, or null when the
     * files' metadata cannot give it exactly.
     */
    abstract Optional<Object> evaluate(List<DataFile> files);
  }

  private static final class CountRows extends Function {
    @Override
    Optional<Integer> fieldId() {
      return Optional.empty();
    }

    @Override
    org.apache.spark.sql.types.DataType sparkType() {
      return DataTypes.LongType;
    }

    @Override
    String describe() {
      return "COUNT(*)";
    }

    @Override
    Optional<Object> evaluate(List<DataFile> files) {
      long rows = 0;
      for (DataFile file : files) {
        if (file.recordCount() < 0) {
          return null;
        }
        rows += file.recordCount();
      }
      return Optional.of(rows);
    }
  }

  private static final class ValueCount extends Function {
    private final Types.NestedField field;

    ValueCount(Types.NestedField field) {
      this.field = field;
    }

    @Override
    Optional<Integer> fieldId() {
      return Optional.of(field.fieldId());
    }

    @Override
    org.apache.spark.sql.types.DataType sparkType() {
      return DataTypes.LongType;
    }

    @Override
    String describe() {
      return "COUNT(" + field.name() + ")";
    }

    @Override
    Optional<Object> evaluate(List<DataFile> files) {
      long count = 0;
      for (DataFile file : files) {
        Long values = count(file.valueCounts(), field.fieldId());
        Long nulls = count(file.nullValueCounts(), field.fieldId());
        if (values == null || nulls == null) {
          return null;
        }
        count += values - nulls;
      }
      return Optional.of(count);
    }
  }

  private static final class Bound extends Function {
    private final Types.NestedField field;
    private final boolean min;
    private final Type.PrimitiveType type;
    private final Comparator<Object> comparator;

    Bound(Types.NestedField field, boolean min) {
      this.field = field;
      this.min = min;
      this.type = field.type().asPrimitiveType();
      this.comparator = Comparators.forType(type);
    }

    @Override
    Optional<Integer> fieldId() {
      return Optional.of(field.fieldId());
    }

    @Override
    org.apache.spark.sql.types.DataType sparkType() {
      return SparkSchemas.toSpark(field.type());
    }

    @Override
    String describe() {
      return (min ? "MIN(" : "MAX(") + field.name() + ")";
    }

    @Override
    Optional<Object> evaluate(List<DataFile> files) {
      Object result = null;
      for (DataFile file : files) {
        Long values = count(file.valueCounts(), field.fieldId());
        Long nulls = count(file.nullValueCounts(), field.fieldId());
        if (values == null || nulls == null) {
          return null;
        }
        if (type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE) {
          Long nans = count(file.nanValueCounts(), field.fieldId());
          if (nans == null || nans > 0) {
            return null;
          }
        }
        if (values.equals(nulls)) {
          continue;
        }
        Object bound = bound(min ? file.lowerBounds() : file.upperBounds());
        if (bound == null) {
          return null;
        }
        int cmp = result == null ? 0 : comparator.compare(bound, result);
        if (result == null || (min ? cmp < 0 : cmp > 0)) {
          result = bound;
        }
      }
      if (result == null) {
        return Optional.empty();
      }
      Types.StructType struct = Types.StructType.of(field);
      InternalRow converted =
          new IcebergToSpark(struct).convert(new SingleValue(result));
      return Optional.ofNullable(converted.get(0, sparkType()));
    }

    private Object bound(Map<Integer, ByteBuffer> bounds) {
      ByteBuffer buffer = bounds == null ? null : bounds.get(field.fieldId());
      return buffer == null ? null : Conversions.fromByteBuffer(type, buffer);
    }
  }

  private static Long count(Map<Integer, Long> counts, int fieldId) {
    return counts == null ? null : counts.get(fieldId);
  }

  /** A top-level primitive column named by the reference. */
  private static Optional<Types.NestedField> column(
      org.apache.spark.sql.connector.expressions.Expression expression,
      Schema schema,
      boolean caseSensitive) {
    if (!(expression instanceof NamedReference reference) || reference.fieldNames().length != 1) {
      return Optional.empty();
    }
    String name = reference.fieldNames()[0];
    Types.NestedField field =
        caseSensitive ? schema.asStruct().field(name) : schema.asStruct().caseInsensitiveField(name);
    if (field == null || !field.type().isPrimitiveType()) {
      return Optional.empty();
    }
    return Optional.of(field);
  }

  /**
   * Whether the column's bounds are its exact minimum and maximum: Iceberg may shorten the bounds
   * of strings and bytes, so only numbers, booleans, dates and timestamps qualify.
   */
  private static boolean exactBounds(Types.NestedField field) {
    switch (field.type().typeId()) {
      case BOOLEAN:
      case INTEGER:
      case LONG:
      case FLOAT:
      case DOUBLE:
      case DECIMAL:
      case DATE:
      case TIMESTAMP:
        return true;
      default:
        return false;
    }
  }

  /** A one-field row. */
  private static final class SingleValue implements org.apache.iceberg.StructLike {
    private final Object value;

    SingleValue(Object value) {
      this.value = value;
    }

    @Override
    public int size() {
      return 1;
    }

    @Override
    public <T> T get(int pos, Class<T> javaClass) {
      return javaClass.cast(value);
    }

    @Override
    public <T> void set(int pos, T newValue) {
      throw new UnsupportedOperationException("Cannot set a value of a read-only row");
    }
  }
}
