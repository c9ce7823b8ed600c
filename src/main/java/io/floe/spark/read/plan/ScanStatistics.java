package io.floe.spark.read.plan;

import io.floe.spark.types.SparkSchemas;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PositionDeletesScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.colstats.ColumnStatistics;
import org.apache.spark.sql.types.Decimal;

/**
 * A scan's size as Spark's optimizer sees it, from file metadata only: bytes and rows of the tasks
 * left after pruning, and, for top-level columns whose statistics every scanned file carries, the
 * null count, minimum and maximum.
 *
 * <p>Rows are counted before deletes, so with delete files the count may be too high but is never
 * too low. Bounds are bounds: Iceberg keeps a truncated lower bound no greater than the true
 * minimum and a truncated upper bound no smaller than the true maximum, and deleted rows only
 * narrow the range. Minimum and maximum are given for numeric, date and timestamp columns, the
 * ones Spark's estimates use.
 *
 * <p>Distinct counts come from the table's statistics file for the scan's snapshot when the scan
 * builder passes them ({@link DistinctCounts}, only when Spark's cost-based optimizer is on), scaled
 * to the rows the scan reads, never above its non-null rows and, for a column the files are
 * partitioned by with the identity transform, never above the partition values the scan reads.
 */
public final class ScanStatistics implements Statistics {
  /** The bytes Spark counts per row on top of its columns' default sizes. */
  private static final long ROW_OVERHEAD = 8;

  private final long sizeInBytes;
  private final long numRows;
  private final Map<NamedReference, ColumnStatistics> columnStats;

  private ScanStatistics(
      long sizeInBytes, long numRows, Map<NamedReference, ColumnStatistics> columnStats) {
    this.sizeInBytes = sizeInBytes;
    this.numRows = numRows;
    this.columnStats = columnStats;
  }

  /**
   * The statistics of the tasks of these groups reading {@code schema} (the projection) out of
   * {@code tableSchema}, with column statistics for {@code schema}.
   *
   * <p>The size is the larger of two estimates of the projection's size in memory, Spark's for its
   * file sources (the bytes of the files read, scaled by the share of a row the projection reads)
   * and the official runtime's (rows times the projection's columns, without Spark's 8 bytes of row
   * overhead), both with Spark's default size per type. A join that reads two narrow columns of a
   * wide table is sized by those columns, so Spark can broadcast it; but well-compressed files do
   * not make millions of rows look small enough to broadcast, which is far slower than letting
   * adaptive execution broadcast the side that turns out small.
   */
  public static ScanStatistics of(List<TaskGroup> partitions, Schema schema, Schema tableSchema) {
    return of(partitions, schema, tableSchema, DistinctCounts.none(), true);
  }

  /**
   * As {@link #of(List, Schema, Schema)}, with the distinct counts of {@code counts} scaled to the
   * scan's rows, and without any column statistics when {@code columnStats} is false (the session
   * turned them off).
   */
  public static ScanStatistics of(
      List<TaskGroup> partitions,
      Schema schema,
      Schema tableSchema,
      DistinctCounts counts,
      boolean columnStats) {
    Objects.requireNonNull(counts, "counts is null");
    long bytes = 0;
    long rows = 0;
    Map<String, DataFile> files = new LinkedHashMap<>();
    Map<Integer, PartitionSpec> specs = new HashMap<>();
    for (TaskGroup partition : partitions) {
      for (ScanTask scanTask : partition.tasks()) {
        if (scanTask instanceof PositionDeletesScanTask) {
          // a position_deletes scan: one row per deleted position of each delete file read
          PositionDeletesScanTask task = (PositionDeletesScanTask) scanTask;
          bytes += task.length();
          rows += Math.max(task.file().recordCount(), 0);
          continue;
        }
        FileScanTask task = scanTask.asFileScanTask();
        bytes += task.length();
        rows += estimatedRows(task);
        if (!task.isDataTask()) {
          files.putIfAbsent(task.file().location(), task.file());
          specs.putIfAbsent(task.file().specId(), task.spec());
        }
      }
    }
    Map<NamedReference, ColumnStatistics> columns = new HashMap<>();
    if (columnStats && !files.isEmpty()) {
      for (Types.NestedField field : schema.columns()) {
        Optional<FileColumnStats> fromFiles = columnStatistics(field, files.values());
        OptionalLong distinct = counts.forScan(field.fieldId(), rows);
        if (distinct.isEmpty() && fromFiles.isEmpty()) {
          continue;
        }
        if (distinct.isPresent()) {
          // pruning by a partition column leaves only the partitions read, which the random
          // sampling the scaling assumes does not see
          OptionalLong values = partitionValues(field.fieldId(), files.values(), specs);
          if (values.isPresent()) {
            distinct = OptionalLong.of(Math.min(distinct.getAsLong(), values.getAsLong()));
          }
        }
        FileColumnStats known = fromFiles.orElse(FileColumnStats.NONE);
        if (distinct.isPresent() && known.nullCount().isPresent()) {
          // a sketch counts values, not nulls
          long nonNull = Math.max(rows - known.nullCount().getAsLong(), 0);
          distinct = OptionalLong.of(Math.min(distinct.getAsLong(), nonNull));
        }
        columns.put(Expressions.column(field.name()), known.withDistinctCount(distinct));
      }
    }
    long columnsSize = columnsSize(schema, tableSchema);
    // Spark scales a projection of its file sources by row sizes that include the row overhead
    double share = (double) (ROW_OVERHEAD + columnsSize)
        / (ROW_OVERHEAD + columnsSize(tableSchema, tableSchema));
    long fromBytes = (long) Math.ceil(bytes * share);
    // the official runtime leaves the overhead out; so does this, so that a join near the
    // broadcast threshold plans the same way with either
    long fromRows =
        columnsSize > 0 && rows > Long.MAX_VALUE / columnsSize ? Long.MAX_VALUE : rows * columnsSize;
    long size = Math.max(fromBytes, fromRows);
    return new ScanStatistics(Math.max(size, bytes > 0 ? 1 : 0), rows, Map.copyOf(columns));
  }

  /**
   * The sum of Spark's default sizes of the data columns of {@code schema}; metadata columns, which
   * are not in the files, do not count.
   */
  static long columnsSize(Schema schema, Schema tableSchema) {
    long size = 0;
    for (Types.NestedField field : schema.columns()) {
      if (tableSchema.findField(field.fieldId()) != null) {
        size += SparkSchemas.toSpark(field.type()).defaultSize();
      }
    }
    return size;
  }

  /** Rows in a task before deletes, so that deletes never make the estimate too low. */
  static long estimatedRows(FileScanTask task) {
    long fileSize = task.file().fileSizeInBytes();
    long fileRows = task.file().recordCount();
    if (task.isDataTask() || fileSize <= 0 || task.length() >= fileSize) {
      return Math.max(fileRows, 0);
    }
    return (long) Math.ceil(fileRows * ((double) task.length() / fileSize));
  }

  @Override
  public OptionalLong sizeInBytes() {
    return OptionalLong.of(sizeInBytes);
  }

  @Override
  public OptionalLong numRows() {
    return OptionalLong.of(numRows);
  }

  @Override
  public Map<NamedReference, ColumnStatistics> columnStats() {
    return columnStats;
  }

  private static Optional<FileColumnStats> columnStatistics(
      Types.NestedField field, Collection<DataFile> files) {
    if (!field.type().isPrimitiveType()) {
      return Optional.empty();
    }
    int id = field.fieldId();
    Type.PrimitiveType type = field.type().asPrimitiveType();
    boolean ranged = hasSparkRange(type);
    long nulls = 0;
    boolean nullsKnown = true;
    Object min = null;
    Object max = null;
    boolean boundsKnown = ranged;
    Comparator<Object> comparator = Comparators.forType(type);
    for (DataFile file : files) {
      Long fileNulls = file.nullValueCounts() == null ? null : file.nullValueCounts().get(id);
      if (fileNulls == null) {
        nullsKnown = false;
      } else {
        nulls += fileNulls;
      }
      if (boundsKnown) {
        Object lower = bound(file.lowerBounds(), id, type);
        Object upper = bound(file.upperBounds(), id, type);
        Long values = file.valueCounts() == null ? null : file.valueCounts().get(id);
        boolean allNull = fileNulls != null && values != null && fileNulls.equals(values);
        if (lower == null || upper == null) {
          boundsKnown = allNull;
        } else {
          min = min == null || comparator.compare(lower, min) < 0 ? lower : min;
          max = max == null || comparator.compare(upper, max) > 0 ? upper : max;
        }
      }
      if (!nullsKnown && !boundsKnown) {
        return Optional.empty();
      }
    }
    OptionalLong nullCount = nullsKnown ? OptionalLong.of(nulls) : OptionalLong.empty();
    Optional<Object> minValue =
        boundsKnown && min != null ? Optional.of(toSpark(type, min)) : Optional.empty();
    Optional<Object> maxValue =
        boundsKnown && max != null ? Optional.of(toSpark(type, max)) : Optional.empty();
    if (nullCount.isEmpty() && minValue.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new FileColumnStats(nullCount, minValue, maxValue, OptionalLong.empty()));
  }

  /** One column's statistics as Spark reads them; empty parts are unknown. */
  private record FileColumnStats(
      OptionalLong nullCount,
      Optional<Object> min,
      Optional<Object> max,
      OptionalLong distinctCount)
      implements ColumnStatistics {
    static final FileColumnStats NONE =
        new FileColumnStats(
            OptionalLong.empty(), Optional.empty(), Optional.empty(), OptionalLong.empty());

    FileColumnStats withDistinctCount(OptionalLong count) {
      return new FileColumnStats(nullCount, min, max, count);
    }
  }

  /**
   * The distinct non-null values of the column {@code fieldId} among the files' partition tuples
   * when every file's spec partitions by it with the identity transform; empty otherwise.
   */
  private static OptionalLong partitionValues(
      int fieldId, Collection<DataFile> files, Map<Integer, PartitionSpec> specs) {
    Set<Object> values = new HashSet<>();
    for (DataFile file : files) {
      int position = identityPosition(specs.get(file.specId()), fieldId);
      if (position < 0) {
        return OptionalLong.empty();
      }
      Object value = file.partition().get(position, Object.class);
      if (value != null) {
        // strings may come as Avro's Utf8 from one manifest and as String from another
        values.add(value instanceof CharSequence ? value.toString() : value);
      }
    }
    return OptionalLong.of(values.size());
  }

  private static int identityPosition(PartitionSpec spec, int fieldId) {
    if (spec == null) {
      return -1;
    }
    List<PartitionField> fields = spec.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).sourceId() == fieldId && fields.get(i).transform().isIdentity()) {
        return i;
      }
    }
    return -1;
  }

  private static boolean hasSparkRange(Type.PrimitiveType type) {
    switch (type.typeId()) {
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

  private static Object bound(Map<Integer, ByteBuffer> bounds, int id, Type.PrimitiveType type) {
    ByteBuffer buffer = bounds == null ? null : bounds.get(id);
    return buffer == null ? null : Conversions.fromByteBuffer(type, buffer);
  }

  /** Iceberg's value in Spark's internal representation of the column's type. */
  private static Object toSpark(Type.PrimitiveType type, Object value) {
    if (type.typeId() == Type.TypeID.DECIMAL) {
      Types.DecimalType decimal = (Types.DecimalType) type;
      return Decimal.apply((BigDecimal) value, decimal.precision(), decimal.scale());
    }
    return value;
  }
}
