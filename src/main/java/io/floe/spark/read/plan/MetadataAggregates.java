package io.floe.spark.read.plan;

import io.floe.spark.read.plan.manifest.DataManifestPlanner;
import io.floe.spark.types.IcebergToSpark;
import io.floe.spark.types.ReadOnlyStruct;
import io.floe.spark.types.SparkSchemas;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.AggregateEvaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Answers {@code COUNT(*)}, {@code COUNT(col)}, {@code MIN(col)} and {@code MAX(col)}, without a
 * GROUP BY or grouped by columns that are identity partition fields of every file's spec, from the
 * data files' metadata, when that metadata is exact for every file of the snapshot; otherwise
 * there is no answer and Spark scans the rows. A group's key comes from its files' partition
 * tuples, so each group aggregates exactly the files of its partition values (NULL is a key like
 * any other, as in SQL).
 *
 * <p>Iceberg's {@link AggregateEvaluator} aggregates the files' counts and bounds. Floe decides
 * before it which aggregations the metadata answers exactly, and is stricter than the evaluator
 * there, because a wrong answer is worse than a scan:
 *
 * <ul>
 *   <li>no file may have delete files (deletes hide rows the counts include);
 *   <li>{@code MIN} and {@code MAX} only over columns whose bounds are never truncated (not a
 *       string, binary or fixed column, whose bounds Iceberg may shorten), which the evaluator does
 *       not check;
 *   <li>for float and double columns every file must record that it holds no NaN, which has no
 *       bound; the evaluator also accepts files that record no NaN count at all;
 *   <li>files without rows are left out, which the evaluator would count as missing bounds and
 *       give no answer for;
 *   <li>{@code MIN} and {@code MAX} of a timestamp column only when every file was added by a
 *       write of Floe's or of the official Spark runtime's (the snapshot's summary records {@value
 *       #FLOE_COMMIT_ID} or {@value #SPARK_APP_ID}), found by the file's sequence number; never in
 *       a format-version 1 table, whose files have none;
 *   <li>no aggregate at all over a column the scan ignores the metrics of ({@code
 *       ignore-metrics-columns}), or over a column with an initial default.
 * </ul>
 *
 * <p>The timestamp rule is there because bounds computed by Iceberg's Parquet statistics conversion
 * for files that store {@code TIMESTAMP(MILLIS)} (files imported with {@code add_files}, or written
 * by other tools) are the millisecond values read as microseconds, and nothing in the manifest tells
 * them apart from right bounds. Floe's own writes, and the official runtime's Spark writes (which
 * record {@value #SPARK_APP_ID}; its {@code add_files}, {@code migrate} and {@code snapshot} import
 * through {@code SparkTableUtil} and record no such key), write microseconds through Iceberg's
 * writers and record bounds from them, and a file keeps the sequence number of the snapshot that
 * added it through manifest rewrites, so a file whose sequence number is that of such a commit has
 * right bounds. Any other file (an import, another tool's commit, a snapshot since expired, a table
 * without sequence numbers) gives no answer and the rows are scanned. {@code COUNT} does not depend on the unit and is answered as before.
 */
public final class MetadataAggregates {
  /** The summary key of Floe's commits (the write side's commit id). */
  static final String FLOE_COMMIT_ID = "floe.commit-id";
  /** The summary key the official runtime's Spark writes record; its imports do not. */
  static final String SPARK_APP_ID = "spark.app.id";

  private MetadataAggregates() {}

  /**
   * The one-row answer of an aggregation over a snapshot, or empty when the metadata cannot give it
   * exactly.
   *
   * @param schema the schema the aggregation's columns resolve in
   * @param filter selects whole partitions (every row of every file it plans is aggregated)
   * @param snapshotId the snapshot to read, or null for a table without snapshots
   * @param ignoredMetricsFieldIds the columns whose metrics must not answer any aggregate
   */
  public static Optional<Answer> answer(
      Table table,
      Long snapshotId,
      Schema schema,
      Expression filter,
      Aggregation aggregation,
      boolean caseSensitive,
      Set<Integer> ignoredMetricsFieldIds) {
    List<Types.NestedField> groupBy = new ArrayList<>();
    for (org.apache.spark.sql.connector.expressions.Expression expression :
        aggregation.groupByExpressions()) {
      Optional<Types.NestedField> field = column(expression, schema, caseSensitive);
      if (field.isEmpty()) {
        return Optional.empty();
      }
      groupBy.add(field.get());
    }
    List<Function> functions = new ArrayList<>();
    boolean timestampBounds = false;
    for (AggregateFunc func : aggregation.aggregateExpressions()) {
      Optional<Function> function = Function.of(func, schema, caseSensitive);
      if (function.isEmpty()
          || (function.get().field() != null
              && ignoredMetricsFieldIds.contains(function.get().field().fieldId()))) {
        return Optional.empty();
      }
      functions.add(function.get());
      timestampBounds |= function.get().timestampBounds();
    }
    List<FileScanTask> tasks = new ArrayList<>();
    if (snapshotId != null) {
      Set<String> statsColumns = new LinkedHashSet<>();
      for (Function function : functions) {
        // stats are selected by the names of the table's current schema; a column it lacks gets
        // none, and a function without its stats gives no answer
        if (function.field() != null) {
          String name = table.schema().findColumnName(function.field().fieldId());
          if (name != null) {
            statsColumns.add(name);
          }
        }
      }
      List<FileScanTask> planned = new ArrayList<>();
      DataManifestPlanner.planFiles(
          table, snapshotId, filter, caseSensitive, List.copyOf(statsColumns), planned::add);
      for (FileScanTask task : planned) {
        if (!task.deletes().isEmpty()) {
          return Optional.empty();
        }
        if (task.file().recordCount() != 0) {
          tasks.add(task);
        }
      }
      if (timestampBounds && !allAddedByWriters(table, tasks)) {
        return Optional.empty();
      }
    }

    List<Expression> aggregates = new ArrayList<>(functions.size());
    StructType sparkSchema = new StructType();
    for (Types.NestedField field : groupBy) {
      sparkSchema = sparkSchema.add(field.name(), SparkSchemas.toSpark(field.type()), true);
    }
    for (int pos = 0; pos < functions.size(); pos++) {
      Function function = functions.get(pos);
      for (FileScanTask task : tasks) {
        if (!function.noNaN(task.file())) {
          return Optional.empty();
        }
      }
      aggregates.add(function.aggregate());
      // Spark turns the answer into a LocalTableScan, whose EXPLAIN shows only its columns: their
      // names say what the metadata answered
      sparkSchema =
          sparkSchema.add(function.describe() + " from metadata", function.sparkType(), true);
    }

    // one evaluator per group; without GROUP BY one group, which answers even no file at all
    Map<List<Object>, Object[]> keys = new LinkedHashMap<>();
    Map<List<Object>, AggregateEvaluator> groups = new LinkedHashMap<>();
    if (groupBy.isEmpty()) {
      keys.put(List.of(), new Object[0]);
      groups.put(List.of(), AggregateEvaluator.create(schema, aggregates));
    }
    for (FileScanTask task : tasks) {
      Optional<Object[]> key = groupKey(task, groupBy);
      if (key.isEmpty()) {
        return Optional.empty();
      }
      List<Object> equalKey = new ArrayList<>(key.get().length);
      for (Object value : key.get()) {
        equalKey.add(value instanceof CharSequence ? value.toString() : value);
      }
      keys.putIfAbsent(equalKey, key.get());
      groups
          .computeIfAbsent(equalKey, ignored -> AggregateEvaluator.create(schema, aggregates))
          .update(task.file());
    }

    List<InternalRow> rows = new ArrayList<>(groups.size());
    IcebergToSpark converter = null;
    for (Map.Entry<List<Object>, AggregateEvaluator> group : groups.entrySet()) {
      AggregateEvaluator evaluator = group.getValue();
      if (!evaluator.allAggregatorsValid()) {
        return Optional.empty();
      }
      if (converter == null) {
        converter = new IcebergToSpark(rowType(groupBy, evaluator.resultType()));
      }
      Object[] key = keys.get(group.getKey());
      StructLike result = evaluator.result();
      Object[] values = new Object[key.length + functions.size()];
      System.arraycopy(key, 0, values, 0, key.length);
      for (int pos = 0; pos < functions.size(); pos++) {
        values[key.length + pos] = result.get(pos, Object.class);
      }
      rows.add(converter.convert(new ReadOnlyStruct(values, "An answer row is read-only")));
    }
    List<String> described = functions.stream().map(Function::describe).toList();
    List<String> groupNames = groupBy.stream().map(Types.NestedField::name).toList();
    return Optional.of(new Answer(sparkSchema, rows, groupNames, described));
  }

  /**
   * The task's values of the GROUP BY columns, taken from its partition tuple; empty when a column
   * is not an identity partition field of the task's spec, so that only the rows could tell.
   */
  private static Optional<Object[]> groupKey(FileScanTask task, List<Types.NestedField> groupBy) {
    Object[] key = new Object[groupBy.size()];
    List<PartitionField> fields = task.spec().fields();
    for (int column = 0; column < groupBy.size(); column++) {
      int position = -1;
      for (int pos = 0; pos < fields.size(); pos++) {
        PartitionField field = fields.get(pos);
        if (field.sourceId() == groupBy.get(column).fieldId() && field.transform().isIdentity()) {
          position = pos;
          break;
        }
      }
      if (position < 0) {
        return Optional.empty();
      }
      key[column] = task.file().partition().get(position, Object.class);
    }
    return Optional.of(key);
  }

  /** The Iceberg type of an answer row: the GROUP BY columns, then the aggregates. */
  private static Types.StructType rowType(
      List<Types.NestedField> groupBy, Types.StructType aggregates) {
    List<Types.NestedField> fields = new ArrayList<>();
    int id = 1;
    for (Types.NestedField field : groupBy) {
      fields.add(Types.NestedField.optional(id++, field.name(), field.type()));
    }
    for (Types.NestedField field : aggregates.fields()) {
      fields.add(Types.NestedField.optional(id++, field.name(), field.type()));
    }
    return Types.StructType.of(fields);
  }

  /**
   * Whether every file was added by a write of Floe's or of the official runtime's, known by its
   * sequence number (unique to one commit in format versions 2 and later).
   */
  static boolean allAddedByWriters(Table table, List<FileScanTask> tasks) {
    if (tasks.isEmpty()) {
      return true;
    }
    if (!(table instanceof HasTableOperations operations)
        || operations.operations().current().formatVersion() < 2) {
      return false;
    }
    Set<Long> writerCommits = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      Map<String, String> summary = snapshot.summary();
      if (summary != null
          && (summary.containsKey(FLOE_COMMIT_ID) || summary.containsKey(SPARK_APP_ID))) {
        writerCommits.add(snapshot.sequenceNumber());
      }
    }
    for (FileScanTask task : tasks) {
      Long sequenceNumber = task.file().fileSequenceNumber();
      if (sequenceNumber == null || !writerCommits.contains(sequenceNumber)) {
        return false;
      }
    }
    return true;
  }

  /**
   * An aggregation's answer.
   *
   * @param schema one column per GROUP BY column, then one per aggregate function (named {@code
   *     <function> from metadata}, which is what EXPLAIN shows), in order
   * @param rows one row per group (exactly one without GROUP BY), in Spark's internal
   *     representation
   * @param groupBy the GROUP BY columns, for EXPLAIN
   * @param functions the aggregate functions, for EXPLAIN
   */
  public record Answer(
      StructType schema, List<InternalRow> rows, List<String> groupBy, List<String> functions) {}

  /**
   * One aggregate function the metadata can answer.
   *
   * @param op the aggregate: {@code COUNT(*)}, {@code COUNT}, {@code MIN} or {@code MAX}
   * @param field the aggregated column, or null for {@code COUNT(*)}
   */
  private record Function(Expression.Operation op, Types.NestedField field) {
    static Optional<Function> of(AggregateFunc func, Schema schema, boolean caseSensitive) {
      if (func instanceof CountStar) {
        return Optional.of(new Function(Expression.Operation.COUNT_STAR, null));
      }
      if (func instanceof Count count && !count.isDistinct()) {
        return column(count.column(), schema, caseSensitive)
            .map(field -> new Function(Expression.Operation.COUNT, field));
      }
      if (func instanceof Min min) {
        return column(min.column(), schema, caseSensitive)
            .filter(MetadataAggregates::exactBounds)
            .map(field -> new Function(Expression.Operation.MIN, field));
      }
      if (func instanceof Max max) {
        return column(max.column(), schema, caseSensitive)
            .filter(MetadataAggregates::exactBounds)
            .map(field -> new Function(Expression.Operation.MAX, field));
      }
      return Optional.empty();
    }

    /** Whether this is a MIN or MAX of a timestamp, whose bounds may be in the wrong unit. */
    boolean timestampBounds() {
      return (op == Expression.Operation.MIN || op == Expression.Operation.MAX)
          && field.type().typeId() == Type.TypeID.TIMESTAMP;
    }

    Expression aggregate() {
      switch (op) {
        case COUNT_STAR:
          return Expressions.countStar();
        case COUNT:
          return Expressions.count(field.name());
        case MIN:
          return Expressions.min(field.name());
        default:
          return Expressions.max(field.name());
      }
    }

    DataType sparkType() {
      return op == Expression.Operation.MIN || op == Expression.Operation.MAX
          ? SparkSchemas.toSpark(field.type())
          : DataTypes.LongType;
    }

    String describe() {
      switch (op) {
        case COUNT_STAR:
          return "COUNT(*)";
        case COUNT:
          return "COUNT(" + field.name() + ")";
        case MIN:
          return "MIN(" + field.name() + ")";
        default:
          return "MAX(" + field.name() + ")";
      }
    }

    /** Whether the file records that it holds no NaN of a float or double bound column. */
    boolean noNaN(DataFile file) {
      if (op != Expression.Operation.MIN && op != Expression.Operation.MAX) {
        return true;
      }
      Type.TypeID type = field.type().typeId();
      if (type != Type.TypeID.FLOAT && type != Type.TypeID.DOUBLE) {
        return true;
      }
      Map<Integer, Long> nans = file.nanValueCounts();
      Long count = nans == null ? null : nans.get(field.fieldId());
      return count != null && count == 0;
    }
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
    // a column added with a DEFAULT: files written before carry no metrics for it, yet their rows
    // read the default, so metadata cannot answer
    if (field == null || !field.type().isPrimitiveType() || field.initialDefault() != null) {
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
}
