package io.floe.spark.rowlevel;

import io.floe.spark.commit.CommitStats;
import io.floe.spark.write.exec.WriteMetrics;
import java.util.Locale;
import java.util.Objects;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;

/**
 * A planned merge-on-read write: what it writes, how Spark must distribute and order the delta
 * rows ({@link DeltaDistribution}) and how it will commit, fixed on the driver.
 */
public final class FloeDeltaWrite implements DeltaWrite, RequiresDistributionAndOrdering {
  private final DeltaContext context;
  private final DeltaDistribution distribution;
  // filled by the batch write's commit, read by Spark for the UI after the commit or its failure
  private final CommitStats commitStats = new CommitStats();

  public FloeDeltaWrite(DeltaContext context, DeltaDistribution distribution) {
    this.context = Objects.requireNonNull(context, "context is null");
    this.distribution = Objects.requireNonNull(distribution, "distribution is null");
  }

  public DeltaContext context() {
    return context;
  }

  @Override
  public Distribution requiredDistribution() {
    return distribution.distribution();
  }

  @Override
  public boolean distributionStrictlyRequired() {
    return false;
  }

  @Override
  public long advisoryPartitionSizeInBytes() {
    return distribution.advisoryPartitionSizeBytes();
  }

  @Override
  public SortOrder[] requiredOrdering() {
    return distribution.ordering();
  }

  @Override
  public String description() {
    return "Floe merge-on-read " + context.command() + " on " + context.tableName() + " ("
        + (context.writerSettings().deletionVectors()
            ? "deletion vectors"
            : "position deletes by " + context.writerSettings().granularity())
        + ", " + context.isolationLevel().name().toLowerCase(Locale.ROOT)
        + " isolation) [commit id " + context.commitId() + "]";
  }

  @Override
  public DeltaBatchWrite toBatch() {
    return new FloeDeltaBatchWrite(context, commitStats);
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return WriteMetrics.supported();
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    return WriteMetrics.driverValues(commitStats);
  }

  @Override
  public boolean equals(Object other) {
    return this == other || (other instanceof FloeDeltaWrite that && context.equals(that.context));
  }

  @Override
  public int hashCode() {
    return context.hashCode();
  }

  @Override
  public String toString() {
    // EXPLAIN prints this: the operation and its mode come first
    return "FloeDeltaWrite{" + description() + ", " + distribution + ", " + context + "}";
  }
}
