package io.floe.spark.write;

import io.floe.spark.commit.WriteMode;
import io.floe.spark.util.Identifiers;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortField;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SortOrderUtil;
import org.apache.spark.sql.connector.distributions.ClusteredDistribution;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.distributions.OrderedDistribution;
import org.apache.spark.sql.connector.distributions.UnspecifiedDistribution;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NullOrdering;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.internal.SQLConf;

/**
 * How Spark must spread a write's rows over writer tasks and order them within each task, worked
 * out once on the driver from the table's partition spec and sort order and the write's options.
 *
 * <p>The distribution mode is the {@code distribution-mode} option or {@code
 * write.distribution-mode} property; by default it is {@code range} for a table with a sort order,
 * {@code hash} for a partitioned table and {@code none} otherwise.
 *
 * <ul>
 *   <li>{@code none}: rows stay in the tasks they come from.
 *   <li>{@code hash}: rows are clustered by the partition transforms, so each table partition is
 *       written by one task, or by a few where Spark's adaptive execution splits a large one (the
 *       distribution is not strictly required).
 *   <li>{@code range}: rows are range-partitioned by the partition transforms, then the table's sort
 *       order; strictly, so that the files of a partition hold disjoint ranges.
 * </ul>
 *
 * <p>The writer is chosen by what the distribution guarantees ({@link #fanout()}). With {@code
 * fanout-enabled} not set, a {@code hash} write of an unsorted table that Spark clusters by every
 * partition field gets the fanout writer and asks Spark for no ordering: each task then holds a few
 * whole table partitions, one open file each, and sorting them would only cost time. Every other
 * write gets the clustered writer, as do writes with {@code fanout-enabled=false}; {@code
 * fanout-enabled=true} asks for the fanout writer whatever the distribution. This is the official
 * runtime's rule (the fanout writer whenever no ordering is needed) except that Floe keeps the sort
 * for {@code none} and {@code range}, where a task may meet any number of partitions. A fanout
 * task keeps at most {@code fanout-max-open-files} files open (see {@code
 * io.floe.spark.write.exec.BoundedFanoutWriter}).
 *
 * <p>Each task's rows are sorted by the partition transforms whenever the writers are clustered,
 * whatever the mode, so that a clustered writer sees each table partition's rows together; and by
 * the table's sort order (after the partition transforms) whenever the table has one. A
 * copy-on-write operation ({@link WriteMode#COPY_ON_WRITE}) with {@code fanout-enabled} not set
 * follows the official runtime: the fanout writer and no ordering, in every mode, when the table
 * has no sort order; the clustered writer and the full ordering when it has one. Every
 * transform kind is expressed as a call of the catalog's transform functions ({@link
 * io.floe.spark.functions.FloeFunctions}), which compute Iceberg's exact partition values. Where a
 * transform cannot be expressed so (a bucket of a uuid column, which Spark sees as a string; a
 * transform Floe does not know; any non-identity transform of a path-based write, for which Spark
 * offers no function catalog) it is left out, and the writers cope with rows that arrive
 * unclustered (see {@link io.floe.spark.write.exec.ClusteredOrFanoutWriter}).
 *
 * <p>The advisory partition size is passed to Spark only when rows are distributed, used by
 * adaptive execution to coalesce or split shuffle partitions: for a planned write ({@link
 * #of(WriteContext)}) the size given or the official runtime's default ({@link
 * AdvisoryPartitionSize#forData}); from the other factory the size given, or 0 for Spark's own.
 *
 * <p>With {@code use-table-distribution-and-ordering=false} a planned write asks Spark for no
 * distribution and no ordering, and its files record no sort order.
 */
public final class WriteDistribution implements RowDistribution, Serializable {
  private static final long serialVersionUID = 1L;
  private static final Pattern WITH_ARGUMENT = Pattern.compile("(bucket|truncate)\\[(\\d+)]");

  private final DistributionMode mode;
  private final Distribution distribution;
  private final SortOrder[] ordering;
  private final long advisoryPartitionSizeBytes;
  private final boolean sortsBySortOrder;
  private final boolean fanout;

  private WriteDistribution(
      DistributionMode mode,
      Distribution distribution,
      SortOrder[] ordering,
      long advisoryPartitionSizeBytes,
      boolean sortsBySortOrder,
      boolean fanout) {
    this.mode = mode;
    this.distribution = distribution;
    this.ordering = ordering;
    this.advisoryPartitionSizeBytes = advisoryPartitionSizeBytes;
    this.sortsBySortOrder = sortsBySortOrder;
    this.fanout = fanout;
  }

  /** Works out the distribution and ordering of a planned write. */
  public static WriteDistribution of(WriteContext context) {
    Objects.requireNonNull(context, "context is null");
    Boolean fanout = context.options().fanout();
    if (fanout == null && context.mode() == WriteMode.COPY_ON_WRITE) {
      // the official runtime's rule for a copy-on-write rewrite: no sort unless the table has an
      // order. Its rows come from files of one partition each, so a task meets few partitions
      // whatever the mode, and sorting what it copies by partition only costs time
      // (an unpartitioned table has no partition order to skip: the plain clustered writer)
      fanout = context.table().sortOrder().isUnsorted() && context.spec().isPartitioned();
    }
    WriteOptions options = context.options();
    if (!options.useTableDistributionAndOrdering()) {
      // the official runtime asks Spark for nothing and writes with the fanout writer unless
      // fanout-enabled=false (whose clustered writer then copes with rows in any order)
      return new WriteDistribution(
          DistributionMode.NONE, Distributions.unspecified(), new SortOrder[0], 0L, false,
          fanout == null || fanout);
    }
    WriteDistribution planned =
        of(context.schema(), context.spec(), context.table().sortOrder(), options, fanout);
    if (planned.distribution instanceof UnspecifiedDistribution) {
      return planned;
    }
    return new WriteDistribution(
        planned.mode, planned.distribution, planned.ordering,
        AdvisoryPartitionSize.forData(options, context.table().properties(), SQLConf.get()),
        planned.sortsBySortOrder, planned.fanout);
  }

  /**
   * Works out the distribution and ordering for rows of {@code schema} written with {@code spec}
   * into a table sorted by {@code sortOrder}.
   */
  public static WriteDistribution of(
      Schema schema,
      PartitionSpec spec,
      org.apache.iceberg.SortOrder sortOrder,
      WriteOptions options) {
    Objects.requireNonNull(options, "options is null");
    return of(schema, spec, sortOrder, options, options.fanout());
  }

  private static WriteDistribution of(
      Schema schema,
      PartitionSpec spec,
      org.apache.iceberg.SortOrder sortOrder,
      WriteOptions options,
      Boolean fanoutAsked) {
    Objects.requireNonNull(schema, "schema is null");
    Objects.requireNonNull(spec, "spec is null");
    Objects.requireNonNull(sortOrder, "sortOrder is null");
    Objects.requireNonNull(options, "options is null");
    ToSpark toSpark = new ToSpark(schema, !options.pathBased());

    List<Expression> clustering = new ArrayList<>();
    for (PartitionField field : spec.fields()) {
      Expression expression = toSpark.transform(field.transform().toString(), field.sourceId());
      if (expression != null) {
        clustering.add(expression);
      }
    }
    boolean partitioned = spec.fields().stream().anyMatch(field -> !field.transform().isVoid());
    boolean sorted = !sortOrder.isUnsorted();
    SortOrder[] partitionOrdering =
        toSpark.ordering(spec, org.apache.iceberg.SortOrder.unsorted());
    SortOrder[] fullOrdering =
        sorted ? toSpark.ordering(spec, sortOrder) : partitionOrdering;

    DistributionMode mode = options.distributionMode();
    if (mode == null) {
      mode = sorted ? DistributionMode.RANGE : partitioned ? DistributionMode.HASH : DistributionMode.NONE;
    }
    Distribution distribution =
        switch (mode) {
          case NONE -> Distributions.unspecified();
          case HASH ->
              clustering.isEmpty()
                  ? Distributions.unspecified()
                  : Distributions.clustered(clustering.toArray(new Expression[0]));
          case RANGE ->
              fullOrdering.length == 0
                  ? Distributions.unspecified()
                  : Distributions.ordered(fullOrdering);
        };
    long partitionFields = spec.fields().stream().filter(field -> !field.transform().isVoid()).count();
    // each task gets whole table partitions (or pieces adaptive execution split off a large one)
    boolean clusteredByEveryField =
        distribution instanceof ClusteredDistribution && clustering.size() == partitionFields;
    boolean fanout =
        fanoutAsked != null ? fanoutAsked : partitioned && !sorted && clusteredByEveryField;
    SortOrder[] ordering = sorted ? fullOrdering : fanout ? new SortOrder[0] : partitionOrdering;
    long advisory =
        distribution instanceof UnspecifiedDistribution
            ? 0L
            : options.advisoryPartitionSizeBytes();
    // every field of Iceberg's merge of partition transforms and sort order reached Spark's sort
    boolean sortsBySortOrder =
        sorted
            && !fanout
            && fullOrdering.length > 0
            && fullOrdering.length == toSpark.mergedFieldCount(spec, sortOrder);
    return new WriteDistribution(mode, distribution, ordering, advisory, sortsBySortOrder, fanout);
  }

  /**
   * Whether the write's tasks use the fanout writer (one open file per partition, rows in any
   * order): asked for by {@code fanout-enabled}, or, when that is not set, chosen for a {@code hash}
   * write of an unsorted table clustered by every partition field.
   */
  public boolean fanout() {
    return fanout;
  }

  /** The distribution mode in effect, after the table's default was applied. */
  public DistributionMode mode() {
    return mode;
  }

  /** How rows are spread over writer tasks. */
  @Override
  public Distribution distribution() {
    return distribution;
  }

  /**
   * Whether Spark must keep to the distribution exactly: for range, whose point is disjoint
   * ranges; a hash distribution may have a large table partition split over several tasks.
   */
  @Override
  public boolean strictlyRequired() {
    return mode == DistributionMode.RANGE;
  }

  /** How each task's rows are sorted; empty for no order. */
  @Override
  public SortOrder[] ordering() {
    return ordering.clone();
  }

  /**
   * Whether Spark sorts every task's rows by the partition transforms and then the whole of the
   * table's sort order, so that a file written from one task's rows one file at a time is in the
   * table's sort order. False for an unsorted table, with the fanout writer (whose files need no
   * order), and when a transform of the order cannot be expressed to Spark.
   */
  public boolean sortsBySortOrder() {
    return sortsBySortOrder;
  }

  /** The shuffle partition size to ask Spark for, or 0 for Spark's own. */
  @Override
  public long advisoryPartitionSizeBytes() {
    return advisoryPartitionSizeBytes;
  }

  @Override
  public String toString() {
    return "WriteDistribution{mode="
        + mode.modeName()
        + ", distribution="
        + describe(distribution)
        + ", ordering="
        + describe(ordering)
        + ", advisoryPartitionSizeBytes="
        + advisoryPartitionSizeBytes
        + (sortsBySortOrder ? ", sortsBySortOrder" : "")
        + (fanout ? ", fanout" : "")
        + "}";
  }

  private static String describe(Distribution distribution) {
    if (distribution instanceof ClusteredDistribution clustered) {
      return "clustered" + describe(clustered.clustering());
    } else if (distribution instanceof OrderedDistribution ordered) {
      return "ordered" + describe(ordered.ordering());
    }
    return "unspecified";
  }

  private static String describe(Expression[] expressions) {
    return Arrays.stream(expressions).map(Expression::describe).collect(Collectors.joining(", ", "[", "]"));
  }

  /** Turns Iceberg transforms of schema columns into Spark connector expressions. */
  private static final class ToSpark {
    private final Schema schema;
    private final boolean functions;
    private final Map<Integer, Integer> parents;

    ToSpark(Schema schema, boolean functions) {
      this.schema = schema;
      this.functions = functions;
      this.parents = TypeUtil.indexParents(schema.asStruct());
    }

    /**
     * The order that clusters rows by the spec's partitions and then sorts them by {@code
     * sortOrder} (Iceberg's own merge of the two, which leaves out partition fields the sort order
     * already clusters by), as far as Spark can evaluate it; empty if Iceberg cannot merge them.
     */
    SortOrder[] ordering(PartitionSpec spec, org.apache.iceberg.SortOrder sortOrder) {
      org.apache.iceberg.SortOrder order;
      try {
        order = SortOrderUtil.buildSortOrder(schema, spec, sortOrder);
      } catch (UnsupportedOperationException | IllegalArgumentException e) {
        // a transform Iceberg itself does not know: nothing Spark could sort by either
        return new SortOrder[0];
      }
      List<SortOrder> orders = new ArrayList<>();
      for (SortField field : order.fields()) {
        Expression expression = transform(field.transform().toString(), field.sourceId());
        if (expression == null) {
          break;
        }
        orders.add(
            Expressions.sort(
                expression,
                field.direction() == org.apache.iceberg.SortDirection.ASC
                    ? SortDirection.ASCENDING
                    : SortDirection.DESCENDING,
                field.nullOrder() == NullOrder.NULLS_FIRST
                    ? NullOrdering.NULLS_FIRST
                    : NullOrdering.NULLS_LAST));
      }
      return orders.toArray(new SortOrder[0]);
    }

    /**
     * The number of fields in Iceberg's merge of the spec's partition transforms and {@code
     * sortOrder}, or -1 if Iceberg cannot merge them.
     */
    int mergedFieldCount(PartitionSpec spec, org.apache.iceberg.SortOrder sortOrder) {
      try {
        return SortOrderUtil.buildSortOrder(schema, spec, sortOrder).fields().size();
      } catch (UnsupportedOperationException | IllegalArgumentException e) {
        return -1;
      }
    }

    /**
     * The Spark expression computing an Iceberg transform (named as in table metadata, such as
     * {@code bucket[16]}) of a column, or null if Spark cannot compute it here.
     */
    Expression transform(String transform, int sourceId) {
      Types.NestedField source = schema.findField(sourceId);
      if (source == null) {
        return null;
      }
      String column = quotedName(sourceId);
      if (transform.equals("identity")) {
        return Expressions.column(column);
      }
      if (!functions) {
        return null;
      }
      Matcher withArgument = WITH_ARGUMENT.matcher(transform);
      if (withArgument.matches()) {
        int argument = Integer.parseInt(withArgument.group(2));
        if (withArgument.group(1).equals("bucket")) {
          // Spark holds uuids as strings, whose bucket is not the uuid's
          return source.type().typeId() == Type.TypeID.UUID
              ? null
              : Expressions.bucket(argument, column);
        }
        return Expressions.apply(
            "truncate", Expressions.literal(argument), Expressions.column(column));
      }
      return switch (transform) {
        case "year" -> Expressions.years(column);
        case "month" -> Expressions.months(column);
        case "day" -> Expressions.days(column);
        case "hour" -> Expressions.hours(column);
        default -> null;
      };
    }

    /** The column's path with every part quoted, as Spark's identifier parser reads it. */
    private String quotedName(int fieldId) {
      return Objects.requireNonNull(
          Identifiers.quotedPath(schema, parents, fieldId), "field " + fieldId + " is not in the schema");
    }
  }
}
