package io.floe.spark.read.exec;

import io.floe.spark.expressions.ExpressionRebuilder;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Keeps Iceberg's Parquet row-group filters (column statistics, dictionaries, bloom filters) away
 * from columns whose stored values they would misread.
 *
 * <p>Iceberg's filters compare a literal in Iceberg's unit with the file's values as stored: they
 * read the statistics and dictionary of an {@code INT64 TIMESTAMP(MILLIS)} column as microseconds,
 * so a row group of millisecond timestamps looks 1000 times closer to 1970 than it is and is pruned
 * although it holds matching rows. {@code INT96} timestamps have no usable order at all. Floe does
 * not convert such statistics: it removes, before the filters see the residual, every predicate on a
 * timestamp or time column that the file does not store as {@code INT64} in exactly the unit of the
 * column's Iceberg type. That is conservative (such columns are never pruned on, every other column
 * still is) and cannot drop a row, because the residual is first put in negation normal form, where
 * replacing a predicate by {@code true} only widens what is read; Spark evaluates every pushed filter
 * after the scan anyway.
 *
 * <p>The same holds for a column added with a DEFAULT after a file was written: the file has no
 * such column, Iceberg's filters take it for all NULL, but its rows read the column's initial
 * default. Predicates on such columns are stripped for such files.
 */
final class ParquetStatsGuard {
  private ParquetStatsGuard() {}

  /**
   * Whether the residual names a timestamp or time column or a column with an initial default, the
   * only ones the guard may strip.
   */
  static boolean namesGuardedColumn(Expression residual, Schema tableSchema, boolean caseSensitive) {
    Set<Integer> ids = new HashSet<>();
    for (Types.NestedField field : tableSchema.columns()) {
      collectGuarded(field, ids);
    }
    return !ids.isEmpty() && strip(residual, tableSchema, ids, caseSensitive) != residual;
  }

  /**
   * The residual without the predicates on columns whose statistics this file stores in another
   * unit than Iceberg assumes; the residual itself when there are none.
   *
   * @param fileSchema the file's schema with the Iceberg field ids the reader matches columns by
   */
  static Expression prunable(
      Expression residual, Schema tableSchema, MessageType fileSchema, boolean caseSensitive) {
    Set<Integer> misread = misreadColumns(tableSchema, fileSchema);
    return misread.isEmpty() ? residual : strip(residual, tableSchema, misread, caseSensitive);
  }

  /** The file's schema with field ids, chosen as Iceberg's own readers choose them. */
  static MessageType withIds(MessageType fileSchema, NameMapping mapping) {
    if (ParquetSchemaUtil.hasIds(fileSchema)) {
      return fileSchema;
    }
    if (mapping != null) {
      return ParquetSchemaUtil.applyNameMapping(fileSchema, mapping);
    }
    return ParquetSchemaUtil.addFallbackIds(fileSchema);
  }

  private static Set<Integer> misreadColumns(Schema tableSchema, MessageType fileSchema) {
    Set<Integer> misread = new HashSet<>();
    for (ColumnDescriptor column : fileSchema.getColumns()) {
      PrimitiveType primitive = column.getPrimitiveType();
      if (primitive.getId() == null) {
        continue;
      }
      int id = primitive.getId().intValue();
      Types.NestedField field = tableSchema.findField(id);
      if (field != null && !storedInIcebergUnit(field.type(), primitive)) {
        misread.add(id);
      }
    }
    Set<Integer> inFile = new HashSet<>();
    collectIds(fileSchema, inFile);
    for (Types.NestedField field : TypeUtil.indexById(tableSchema.asStruct()).values()) {
      if (field.initialDefault() != null && !inFile.contains(field.fieldId())) {
        misread.add(field.fieldId());
      }
    }
    return misread;
  }

  private static void collectIds(org.apache.parquet.schema.Type type, Set<Integer> ids) {
    if (type.getId() != null) {
      ids.add(type.getId().intValue());
    }
    if (!type.isPrimitive()) {
      for (org.apache.parquet.schema.Type child : type.asGroupType().getFields()) {
        collectIds(child, ids);
      }
    }
  }

  /**
   * Whether Iceberg reads the column's stored values in the unit of its type: always for
   * non-temporal types (a non-temporal column is never read from INT96 or a timestamp annotation in
   * another unit), and for timestamps and times only from INT64 annotated with that very unit.
   */
  private static boolean storedInIcebergUnit(Type type, PrimitiveType primitive) {
    TimeUnit expected;
    switch (type.typeId()) {
      case TIMESTAMP:
      case TIME:
        expected = TimeUnit.MICROS;
        break;
      case TIMESTAMP_NANO:
        expected = TimeUnit.NANOS;
        break;
      default:
        return primitive.getPrimitiveTypeName() != PrimitiveType.PrimitiveTypeName.INT96;
    }
    if (primitive.getPrimitiveTypeName() != PrimitiveType.PrimitiveTypeName.INT64) {
      return false;
    }
    LogicalTypeAnnotation annotation = primitive.getLogicalTypeAnnotation();
    if (annotation instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation timestamp) {
      return type.typeId() != Type.TypeID.TIME && timestamp.getUnit() == expected;
    }
    if (annotation instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation time) {
      return type.typeId() == Type.TypeID.TIME && time.getUnit() == expected;
    }
    return false;
  }

  private static void collectGuarded(Types.NestedField field, Set<Integer> ids) {
    if (field.initialDefault() != null) {
      ids.add(field.fieldId());
    }
    switch (field.type().typeId()) {
      case TIMESTAMP:
      case TIMESTAMP_NANO:
      case TIME:
        ids.add(field.fieldId());
        return;
      default:
        if (field.type().isNestedType()) {
          for (Types.NestedField child : field.type().asNestedType().fields()) {
            collectGuarded(child, ids);
          }
        }
    }
  }

  private static Expression strip(
      Expression residual, Schema tableSchema, Set<Integer> ids, boolean caseSensitive) {
    Expression nnf = Expressions.rewriteNot(residual);
    Stripper stripper = new Stripper(tableSchema.asStruct(), ids, caseSensitive);
    Expression stripped = ExpressionVisitors.visit(nnf, stripper);
    return stripper.changed ? stripped : residual;
  }

  /** Replaces predicates on the given columns, or that do not bind, by {@code true}. */
  private static final class Stripper extends ExpressionRebuilder {
    private final Types.StructType struct;
    private final Set<Integer> ids;
    private final boolean caseSensitive;
    private boolean changed;

    Stripper(Types.StructType struct, Set<Integer> ids, boolean caseSensitive) {
      this.struct = struct;
      this.ids = ids;
      this.caseSensitive = caseSensitive;
    }

    @Override
    public <T> Expression predicate(BoundPredicate<T> pred) {
      return keep(pred.term().ref().fieldId(), pred);
    }

    @Override
    public <T> Expression predicate(UnboundPredicate<T> pred) {
      Expression bound;
      try {
        bound = pred.bind(struct, caseSensitive);
      } catch (RuntimeException e) {
        changed = true;
        return Expressions.alwaysTrue();
      }
      if (bound instanceof BoundPredicate<?> boundPredicate) {
        return keep(boundPredicate.term().ref().fieldId(), pred);
      }
      return pred;
    }

    private Expression keep(int fieldId, Expression pred) {
      if (ids.contains(fieldId)) {
        changed = true;
        return Expressions.alwaysTrue();
      }
      return pred;
    }
  }
}
