package io.floe.spark.read.plan;

import io.floe.spark.util.Identifiers;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;

/**
 * The table's sort order as an ordering a scan may report, and the test of whether a group of
 * tasks really comes out in that order.
 *
 * <p>A candidate exists only when every task reads a data file that records the table's current
 * sort order as the order it was written in. The reported ordering is the longest prefix of the
 * sort order's fields that are identity transforms of columns the scan reads. A group holds the
 * ordering when its tasks, sorted by the bounds of the first sort column, are pieces of one file
 * in file order, or files whose ranges of that column do not touch: the last value of one file
 * then sorts strictly before the first value of the next, whatever the later sort columns hold.
 */
final class ScanOrdering {
  private final List<ScanLayout.SortKey> sortKeys;
  private final int firstSourceId;
  private final Type.PrimitiveType firstType;
  private final boolean ascending;
  private final Comparator<Object> values;

  private ScanOrdering(
      List<ScanLayout.SortKey> sortKeys,
      SortField first,
      Type.PrimitiveType firstType) {
    this.sortKeys = List.copyOf(sortKeys);
    this.firstSourceId = first.sourceId();
    this.firstType = firstType;
    this.ascending = first.direction() == SortDirection.ASC;
    this.values = Comparators.forType(firstType);
  }

  /**
   * The ordering candidate of these tasks, or empty when the table is unsorted, a task's file was
   * not written in the table's sort order, or the first sort field is not an identity transform of
   * a primitive column the scan reads.
   */
  static Optional<ScanOrdering> of(
      SortOrder order, List<FileScanTask> tasks, Schema reportedSchema, Schema readSchema) {
    if (order == null || order.isUnsorted() || tasks.isEmpty()) {
      return Optional.empty();
    }
    for (FileScanTask task : tasks) {
      if (task.isDataTask()) {
        return Optional.empty();
      }
      Integer fileOrder = task.file().sortOrderId();
      if (fileOrder == null || fileOrder != order.orderId()) {
        return Optional.empty();
      }
    }
    Map<Integer, String> quotedNames =
        TypeUtil.indexQuotedNameById(reportedSchema.asStruct(), Identifiers::quote);
    List<ScanLayout.SortKey> prefix = new ArrayList<>();
    for (SortField field : order.fields()) {
      String column = quotedNames.get(field.sourceId());
      if (!field.transform().isIdentity()
          || column == null
          || readSchema.findField(field.sourceId()) == null) {
        break;
      }
      prefix.add(
          new ScanLayout.SortKey(
              column,
              field.direction() == SortDirection.ASC,
              field.nullOrder() == NullOrder.NULLS_FIRST));
    }
    if (prefix.isEmpty()) {
      return Optional.empty();
    }
    SortField first = order.fields().get(0);
    Type type = readSchema.findType(first.sourceId());
    if (type == null || !type.isPrimitiveType()) {
      return Optional.empty();
    }
    return Optional.of(new ScanOrdering(prefix, first, type.asPrimitiveType()));
  }

  /** The ordering over the reported schema's column names. */
  List<ScanLayout.SortKey> sortKeys() {
    return sortKeys;
  }

  /** The order to read a group's tasks in: by the first sort column's bounds, then file order. */
  Comparator<FileScanTask> taskOrder() {
    Comparator<FileScanTask> byBound =
        (left, right) -> {
          Object leftBound = leadingBound(left.file());
          Object rightBound = leadingBound(right.file());
          if (leftBound == null || rightBound == null) {
            return Boolean.compare(leftBound != null, rightBound != null);
          }
          int cmp = values.compare(leftBound, rightBound);
          return ascending ? cmp : -cmp;
        };
    return byBound.thenComparing(TaskGrouping.TASK_ORDER);
  }

  /** Whether a group, in {@link #taskOrder()}, comes out in the sort order. */
  boolean holds(List<FileScanTask> group) {
    for (int pos = 1; pos < group.size(); pos++) {
      FileScanTask previous = group.get(pos - 1);
      FileScanTask next = group.get(pos);
      if (previous.file().location().equals(next.file().location())) {
        if (previous.start() >= next.start()) {
          return false;
        }
      } else if (!separated(previous.file(), next.file())) {
        return false;
      }
    }
    return true;
  }

  /** Whether every value of the first sort column in one file sorts strictly before the next's. */
  private boolean separated(DataFile previous, DataFile next) {
    if (firstType.typeId() == Type.TypeID.FLOAT || firstType.typeId() == Type.TypeID.DOUBLE) {
      // NaN has no bound, and Spark sorts it after every number
      return false;
    }
    if (!noNulls(previous) || !noNulls(next)) {
      return false;
    }
    Object previousEnd = ascending ? bound(previous.upperBounds()) : bound(previous.lowerBounds());
    Object nextStart = ascending ? bound(next.lowerBounds()) : bound(next.upperBounds());
    if (previousEnd == null || nextStart == null) {
      return false;
    }
    int cmp = values.compare(previousEnd, nextStart);
    return ascending ? cmp < 0 : cmp > 0;
  }

  private boolean noNulls(DataFile file) {
    Map<Integer, Long> nulls = file.nullValueCounts();
    Long count = nulls == null ? null : nulls.get(firstSourceId);
    return count != null && count == 0;
  }

  private Object leadingBound(DataFile file) {
    return bound(ascending ? file.lowerBounds() : file.upperBounds());
  }

  private Object bound(Map<Integer, ByteBuffer> bounds) {
    ByteBuffer buffer = bounds == null ? null : bounds.get(firstSourceId);
    return buffer == null ? null : Conversions.fromByteBuffer(firstType, buffer);
  }

}
