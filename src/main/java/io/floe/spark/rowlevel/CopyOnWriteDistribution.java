package io.floe.spark.rowlevel;

import io.floe.spark.write.AdvisoryPartitionSize;
import io.floe.spark.write.RowDistribution;
import io.floe.spark.write.WriteContext;
import io.floe.spark.write.WriteDistribution;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.MetadataColumns;
import org.apache.spark.sql.connector.distributions.ClusteredDistribution;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.distributions.OrderedDistribution;
import org.apache.spark.sql.connector.distributions.UnspecifiedDistribution;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.internal.SQLConf;

/**
 * How Spark must spread and order the rows a copy-on-write operation writes (the rows it copies
 * and the rows it changes), for the operation's distribution mode ({@link
 * RowLevelDistributionMode}, carried in the write's options):
 *
 * <ul>
 *   <li>a MERGE's rows, new ones among them, are written as an insert's ({@link
 *       WriteDistribution});
 *   <li>a DELETE's or UPDATE's rows all come from the files the operation rewrites. With {@code
 *       hash} they are clustered by the partition transforms, or by {@code _file} when there are
 *       none to cluster by (an unpartitioned table), so that each rewritten file's rows reach one
 *       task. A DELETE asks for nothing instead when its scan read each partition of the written
 *       spec in one task ({@link CopyOnWriteScan#keepsPartitionsApart}): its rows keep their
 *       partition, so they are already where the shuffle would send them (an UPDATE's may not be:
 *       see {@link InPlaceRewrite}); with {@code range} they are range-partitioned by the
 *       partition transforms and the sort order, or by {@code _file} and {@code _pos} when there
 *       are none; with {@code none} they stay in the tasks that read them.
 * </ul>
 *
 * The ordering within each task and the writer are the insert's rule for a copy-on-write write
 * (see {@link WriteDistribution}): no ordering and the fanout writer for a partitioned table without
 * a sort order, else the partition transforms and the sort order with the clustered writer. The
 * advisory partition size is the official runtime's for data files ({@link AdvisoryPartitionSize}).
 * With {@code use-table-distribution-and-ordering=false} Spark is asked for nothing.
 */
final class CopyOnWriteDistribution implements RowDistribution, Serializable {
  private static final long serialVersionUID = 1L;
  private static final Expression FILE = Expressions.column(MetadataColumns.FILE_PATH.name());
  private static final Expression POSITION =
      Expressions.column(MetadataColumns.ROW_POSITION.name());

  private final DistributionMode mode;
  private final Distribution distribution;
  private final SortOrder[] ordering;
  private final long advisoryPartitionSizeBytes;

  private CopyOnWriteDistribution(
      DistributionMode mode,
      Distribution distribution,
      SortOrder[] ordering,
      long advisoryPartitionSizeBytes) {
    this.mode = mode;
    this.distribution = distribution;
    this.ordering = ordering;
    this.advisoryPartitionSizeBytes = advisoryPartitionSizeBytes;
  }

  /**
   * Works out the distribution and ordering of a copy-on-write write.
   *
   * @param context the write, whose options carry the operation's resolved distribution mode
   * @param scan the operation's scan, or null when Spark built none
   */
  static CopyOnWriteDistribution of(WriteContext context, Command command, CopyOnWriteScan scan) {
    Objects.requireNonNull(context, "context is null");
    Objects.requireNonNull(command, "command is null");
    WriteDistribution insert = WriteDistribution.of(context);
    DistributionMode mode = insert.mode();
    Distribution distribution = insert.distribution();
    long advisory = insert.advisoryPartitionSizeBytes();
    if (command != Command.MERGE
        && distribution instanceof UnspecifiedDistribution
        && context.options().useTableDistributionAndOrdering()) {
      // nothing of the table's layout to distribute by: keep each rewritten file's rows together
      if (mode == DistributionMode.HASH) {
        distribution = Distributions.clustered(new Expression[] {FILE});
      } else if (mode == DistributionMode.RANGE) {
        distribution =
            Distributions.ordered(
                new SortOrder[] {
                  Expressions.sort(FILE, SortDirection.ASCENDING),
                  Expressions.sort(POSITION, SortDirection.ASCENDING)
                });
      }
      if (!(distribution instanceof UnspecifiedDistribution)) {
        advisory =
            AdvisoryPartitionSize.forData(
                context.options(), context.table().properties(), SQLConf.get());
      }
    }
    if (command == Command.DELETE
        && mode == DistributionMode.HASH
        && distribution instanceof ClusteredDistribution
        && scan != null
        && scan.keepsPartitionsApart(context.spec())) {
      // a DELETE's rows keep their partition, and each partition was read by one task
      distribution = Distributions.unspecified();
      advisory = 0L;
    }
    return new CopyOnWriteDistribution(mode, distribution, insert.ordering(), advisory);
  }

  /** The distribution mode in effect. */
  DistributionMode mode() {
    return mode;
  }

  @Override
  public Distribution distribution() {
    return distribution;
  }

  /** For range only, whose point is disjoint ranges, as for an insert. */
  @Override
  public boolean strictlyRequired() {
    return mode == DistributionMode.RANGE && distribution instanceof OrderedDistribution;
  }

  @Override
  public long advisoryPartitionSizeBytes() {
    return advisoryPartitionSizeBytes;
  }

  @Override
  public SortOrder[] ordering() {
    return ordering.clone();
  }

  @Override
  public String toString() {
    return "CopyOnWriteDistribution{mode=" + mode.modeName() + ", distribution="
        + describe(distribution) + ", ordering=" + describe(ordering) + "}";
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
    return Arrays.stream(expressions)
        .map(Expression::describe)
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
