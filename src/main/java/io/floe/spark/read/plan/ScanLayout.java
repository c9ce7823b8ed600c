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
   * One partition field of a key-grouped scan: a transform of a column, as Spark names it.
   *
   * @param transform {@link #IDENTITY}, {@link #BUCKET}, {@link #TRUNCATE}, {@link #YEARS}, {@link
   *     #MONTHS}, {@link #DAYS} or {@link #HOURS}
   * @param column the column, quoted as Spark parses a multi-part name
   * @param parameter the number of buckets of a bucket transform, the width of a truncate
   *     transform, 0 for the others
   */
  public record KeyField(String transform, String column, int parameter) implements Serializable {
    public static final String IDENTITY = "identity";
    public static final String BUCKET = "bucket";
    public static final String TRUNCATE = "truncate";
    public static final String YEARS = "years";
    public static final String MONTHS = "months";
    public static final String DAYS = "days";
    public static final String HOURS = "hours";

    public KeyField {
      Objects.requireNonNull(transform, "transform is null");
      Objects.requireNonNull(column, "column is null");
      boolean parameterized = transform.equals(BUCKET) || transform.equals(TRUNCATE);
      if (parameterized ? parameter <= 0 : parameter != 0) {
        throw new IllegalArgumentException(
            "Cannot describe partition field " + transform + "(" + column + "): parameter "
                + parameter + " is invalid");
      }
    }

    Transform toSpark() {
      return switch (transform) {
        case IDENTITY -> Expressions.identity(column);
        case BUCKET -> Expressions.bucket(parameter, column);
        case TRUNCATE ->
            Expressions.apply(TRUNCATE, Expressions.literal(parameter), Expressions.column(column));
        case YEARS -> Expressions.years(column);
        case MONTHS -> Expressions.months(column);
        case DAYS -> Expressions.days(column);
        case HOURS -> Expressions.hours(column);
        default -> throw new IllegalStateException("Unknown key transform " + transform);
      };
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
