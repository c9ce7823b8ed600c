package io.floe.spark.read.plan;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NullOrdering;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.Transform;

/**
 * How a scan's task groups were formed and what they promise Spark. It carries plain values (Spark's
 * own transform and sort classes do not survive Java serialization) and builds Spark's forms on
 * demand.
 *
 * @param splitSize the target bytes per group the groups were packed to; a runtime filter packs
 *     the remaining tasks to the same size
 * @param partitioning the partition fields every group holds a single key of, empty when the
 *     groups are not key-grouped
 * @param ordering the order every group's rows come in, empty when none is promised
 */
public record ScanLayout(long splitSize, List<KeyField> partitioning, List<SortKey> ordering)
    implements Serializable {
  public ScanLayout {
    if (splitSize <= 0) {
      throw new IllegalArgumentException(
          "Cannot describe scan layout: split size must be positive, not " + splitSize);
    }
    partitioning = List.copyOf(Objects.requireNonNull(partitioning, "partitioning is null"));
    ordering = List.copyOf(Objects.requireNonNull(ordering, "ordering is null"));
  }

  /** A layout of balanced groups that promises nothing. */
  public static ScanLayout unordered(long splitSize) {
    return new ScanLayout(splitSize, List.of(), List.of());
  }

  /** Whether the groups are key-grouped. */
  public boolean keyGrouped() {
    return !partitioning.isEmpty();
  }

  /** The partition transforms as Spark names them. */
  public Transform[] sparkPartitioning() {
    return partitioning.stream().map(KeyField::toSpark).toArray(Transform[]::new);
  }

  /** The ordering as Spark names it. */
  public SortOrder[] sparkOrdering() {
    return ordering.stream().map(SortKey::toSpark).toArray(SortOrder[]::new);
  }

  /**
   * One partition field of a key-grouped scan: an identity or bucket transform of a column.
   *
   * @param column the column, quoted as Spark parses a multi-part name
   * @param buckets the number of buckets of a bucket transform, 0 for identity
   */
  public record KeyField(String column, int buckets) implements Serializable {
    public KeyField {
      Objects.requireNonNull(column, "column is null");
      if (buckets < 0) {
        throw new IllegalArgumentException(
            "Cannot describe partition field " + column + ": negative bucket count " + buckets);
      }
    }

    Transform toSpark() {
      return buckets == 0 ? Expressions.identity(column) : Expressions.bucket(buckets, column);
    }
  }

  /**
   * One field of a reported ordering.
   *
   * @param column the column, quoted as Spark parses a multi-part name
   * @param ascending whether values ascend
   * @param nullsFirst whether nulls come first
   */
  public record SortKey(String column, boolean ascending, boolean nullsFirst)
      implements Serializable {
    public SortKey {
      Objects.requireNonNull(column, "column is null");
    }

    SortOrder toSpark() {
      return Expressions.sort(
          Expressions.column(column),
          ascending ? SortDirection.ASCENDING : SortDirection.DESCENDING,
          nullsFirst ? NullOrdering.NULLS_FIRST : NullOrdering.NULLS_LAST);
    }
  }
}
