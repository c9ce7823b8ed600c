package io.floe.spark.rowlevel;

import io.floe.spark.write.RowDistribution;
import io.floe.spark.write.WriteDistribution;
import io.floe.spark.write.WriteOptions;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.spark.sql.connector.distributions.ClusteredDistribution;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;

/**
 * How Spark must spread and order the rows of a merge-on-read write, so that all deletes of a data
 * file reach one task, sorted by position, and new rows follow the table's own layout:
 *
 * <ul>
 *   <li>{@code hash} (the default): clustered by {@code _spec_id} and {@code _partition} (and {@code
 *       _file} for an unpartitioned table, so deletes spread over tasks), then, for UPDATE and
 *       MERGE, by the table's partition transforms, which place the new rows (whose metadata
 *       columns are NULL);
 *   <li>{@code range}: the same keys, range-partitioned, with the table's sort order last;
 *   <li>{@code none}: rows stay where they are.
 * </ul>
 *
 * Within each task rows are sorted by {@code _spec_id}, {@code _partition}, {@code _file}, {@code
 * _pos}, then for UPDATE and MERGE by the table's partition transforms and sort order; with the
 * fanout writers (and, for UPDATE and MERGE, no sort order) no order is asked for, since the
 * delete writers sort positions themselves and the fanout data writer takes rows in any order. As
 * in the official runtime, a merge-on-read write uses the fanout writers unless {@code
 * fanout-enabled} (or {@code write.spark.fanout.enabled}) is false ({@link #fanout}): a sort of the
 * delta rows buys nothing the writers need. Spark may split a large cluster (the distribution is not
 * strictly required): two deletion vectors for one data file in a commit are merged by Iceberg.
 * With {@code use-table-distribution-and-ordering=false} Spark is asked for neither distribution
 * nor ordering.
 */
public final class DeltaDistribution implements RowDistribution, Serializable {
  private static final long serialVersionUID = 1L;
  private static final Expression SPEC_ID = Expressions.column(MetadataColumns.SPEC_ID.name());
  private static final Expression PARTITION =
      Expressions.column(MetadataColumns.PARTITION_COLUMN_NAME);
  private static final Expression POSITION =
      Expressions.column(MetadataColumns.ROW_POSITION.name());

  private final Distribution distribution;
  private final SortOrder[] ordering;
  private final long advisoryPartitionSizeBytes;

  private DeltaDistribution(
      Distribution distribution, SortOrder[] ordering, long advisoryPartitionSizeBytes) {
    this.distribution = distribution;
    this.ordering = ordering;
    this.advisoryPartitionSizeBytes = advisoryPartitionSizeBytes;
  }

  /**
   * Works out the distribution and ordering of a merge-on-read write.
   *
   * @param command the operation; a DELETE writes no new rows
   * @param schema the table's schema
   * @param spec the spec new rows are written with
   * @param sortOrder the table's sort order
   * @param mode the operation's distribution mode
   * @param options the write's resolved options (fanout, path-based, whether to use the table's
   *     distribution and ordering at all)
   * @param fileColumn the row id's column naming the data file: {@code _file}, or for a MERGE
   *     {@code _floe_file_key} ({@link MergeFileColumn})
   * @param advisoryPartitionSizeBytes the shuffle partition size to ask for when rows are
   *     distributed ({@link io.floe.spark.write.AdvisoryPartitionSize}: for deletes only for a
   *     DELETE, for data files otherwise)
   */
  public static DeltaDistribution of(
      Command command,
      Schema schema,
      PartitionSpec spec,
      org.apache.iceberg.SortOrder sortOrder,
      DistributionMode mode,
      WriteOptions options,
      String fileColumn,
      long advisoryPartitionSizeBytes) {
    Expression file = Expressions.column(fileColumn);
    Objects.requireNonNull(command, "command is null");
    Objects.requireNonNull(mode, "mode is null");
    Objects.requireNonNull(options, "options is null");
    if (!options.useTableDistributionAndOrdering()) {
      // the delete writers hold positions in memory and the data writers accept any order
      return new DeltaDistribution(Distributions.unspecified(), new SortOrder[0], 0L);
    }
    boolean writesRows = command != Command.DELETE;
    // the table's own layout for new rows: clustering by the partition transforms (hash), and the
    // order that clusters by them and then sorts by the sort order
    WriteDistribution rows =
        WriteDistribution.of(schema, spec, sortOrder, withHashAndNoFanout(options));
    Expression[] rowClustering =
        rows.distribution() instanceof ClusteredDistribution clustered
            ? clustered.clustering()
            : new Expression[0];
    SortOrder[] rowOrdering = rows.ordering();

    List<Expression> keys = new ArrayList<>(List.of(SPEC_ID, PARTITION));
    if (spec.isUnpartitioned()) {
      keys.add(file);
    }
    Distribution distribution =
        switch (mode) {
          case NONE -> Distributions.unspecified();
          case HASH -> {
            List<Expression> clustering = new ArrayList<>(keys);
            if (writesRows) {
              clustering.addAll(Arrays.asList(rowClustering));
            }
            yield Distributions.clustered(clustering.toArray(new Expression[0]));
          }
          case RANGE -> {
            List<SortOrder> order = new ArrayList<>(ascending(keys));
            if (writesRows) {
              order.addAll(Arrays.asList(rowOrdering));
            }
            yield Distributions.ordered(order.toArray(new SortOrder[0]));
          }
        };

    boolean noOrder = fanout(options) && (!writesRows || sortOrder.isUnsorted());
    List<SortOrder> order = new ArrayList<>();
    if (!noOrder) {
      order.addAll(ascending(List.of(SPEC_ID, PARTITION, file, POSITION)));
      if (writesRows) {
        order.addAll(Arrays.asList(rowOrdering));
      }
    }
    long advisory = mode == DistributionMode.NONE ? 0L : advisoryPartitionSizeBytes;
    return new DeltaDistribution(distribution, order.toArray(new SortOrder[0]), advisory);
  }

  /**
   * Whether a merge-on-read write's tasks use the fanout writers: unless {@code fanout-enabled} is
   * false, the official runtime's default for row-level writes (an append's default stays the
   * clustered writer). The delete writers hold each data file's positions and write them sorted
   * whatever the setting; this decides whether Spark sorts the rows and whether new rows go to a
   * fanout data writer.
   */
  public static boolean fanout(WriteOptions options) {
    return !Boolean.FALSE.equals(options.fanout());
  }

  /** How rows are spread over writer tasks. */
  @Override
  public Distribution distribution() {
    return distribution;
  }

  /** Never: Spark may split a large cluster, and Iceberg merges two vectors for one data file. */
  @Override
  public boolean strictlyRequired() {
    return false;
  }

  /** How each task's rows are sorted; empty for no order. */
  @Override
  public SortOrder[] ordering() {
    return ordering.clone();
  }

  /** The shuffle partition size to ask Spark for, or 0 for Spark's own. */
  @Override
  public long advisoryPartitionSizeBytes() {
    return advisoryPartitionSizeBytes;
  }

  @Override
  public String toString() {
    return "DeltaDistribution{distribution="
        + distribution.getClass().getSimpleName()
        + ", ordering="
        + Arrays.stream(ordering).map(SortOrder::describe).collect(Collectors.joining(", ", "[", "]"))
        + "}";
  }

  private static List<SortOrder> ascending(List<Expression> expressions) {
    List<SortOrder> orders = new ArrayList<>();
    for (Expression expression : expressions) {
      orders.add(Expressions.sort(expression, SortDirection.ASCENDING));
    }
    return orders;
  }

  /** The options with the hash mode and clustered writers, to read the table's own layout. */
  private static WriteOptions withHashAndNoFanout(WriteOptions options) {
    return new WriteOptions(
        options.commitId(), options.targetFileSizeBytes(), false, options.branch(),
        DistributionMode.HASH, options.advisoryPartitionSizeBytes(), options.outputSpecId(),
        options.wapId(), options.snapshotProperties(), options.checkNullability(),
        options.checkOrdering(), options.isolationLevel(), options.validateFromSnapshotId(),
        options.fileWriteProperties(), options.pathBased(), options.mergeSchema(),
        options.fanoutMaxOpenFiles(), true);
  }
}
