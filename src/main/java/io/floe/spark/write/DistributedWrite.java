package io.floe.spark.write;

import io.floe.spark.commit.CommitStats;
import io.floe.spark.write.exec.WriteMetrics;
import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;

/**
 * What every planned Floe write (insert, overwrite, copy-on-write, merge-on-read) tells Spark the
 * same way: the distribution and ordering of its {@link RowDistribution}, and the write metrics
 * its batch write's commit fills in. It carries the distribution and the {@link CommitStats} a
 * subclass hands to the batch write it builds; Spark reads the driver metrics after the commit or
 * its failure.
 */
public abstract class DistributedWrite implements RequiresDistributionAndOrdering, Serializable {
  private final RowDistribution rowDistribution;
  // filled by the batch write's commit, read by Spark for the UI after the commit or its failure
  private final CommitStats commitStats = new CommitStats();

  protected DistributedWrite(RowDistribution rowDistribution) {
    this.rowDistribution = Objects.requireNonNull(rowDistribution, "rowDistribution is null");
  }

  /** Where the batch write built by this write counts its commit. */
  protected final CommitStats commitStats() {
    return commitStats;
  }

  @Override
  public final Distribution requiredDistribution() {
    return rowDistribution.distribution();
  }

  @Override
  public final boolean distributionStrictlyRequired() {
    return rowDistribution.strictlyRequired();
  }

  @Override
  public final long advisoryPartitionSizeInBytes() {
    return rowDistribution.advisoryPartitionSizeBytes();
  }

  @Override
  public final SortOrder[] requiredOrdering() {
    return rowDistribution.ordering();
  }

  @Override
  public final CustomMetric[] supportedCustomMetrics() {
    return WriteMetrics.supported();
  }

  @Override
  public final CustomTaskMetric[] reportDriverMetrics() {
    return WriteMetrics.driverValues(commitStats);
  }
}
