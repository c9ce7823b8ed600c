package io.floe.spark.rowlevel;

import io.floe.spark.commit.CommitStats;
import io.floe.spark.write.WriteContext;
import io.floe.spark.write.WriteDistribution;
import io.floe.spark.write.exec.WriteMetrics;
import java.util.Objects;
import org.apache.iceberg.IsolationLevel;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;

/**
 * The write of a copy-on-write operation (Spark's ReplaceData): the rows that stay are written as
 * an insert into the table would be, with the table's distribution and ordering ({@link
 * WriteDistribution}), and committed by {@link CopyOnWriteBatchWrite}.
 */
final class CopyOnWriteWrite implements RequiresDistributionAndOrdering {
  private final WriteContext context;
  private final Command command;
  private final CopyOnWriteScan scan;
  private final IsolationLevel isolationLevel;
  private final WriteDistribution distribution;
  private final CommitStats commitStats = new CommitStats();

  CopyOnWriteWrite(
      WriteContext context, Command command, CopyOnWriteScan scan, IsolationLevel isolationLevel) {
    this.context = Objects.requireNonNull(context, "context is null");
    this.command = Objects.requireNonNull(command, "command is null");
    this.scan = scan;
    this.isolationLevel = Objects.requireNonNull(isolationLevel, "isolationLevel is null");
    this.distribution = WriteDistribution.of(context);
  }

  @Override
  public Distribution requiredDistribution() {
    return distribution.distribution();
  }

  @Override
  public boolean distributionStrictlyRequired() {
    return distribution.strictlyRequired();
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
    return "Floe copy-on-write " + command + " of " + context.tableName() + " [isolation "
        + RowLevelIsolation.name(isolationLevel) + ", commit id " + context.commitId() + "]";
  }

  @Override
  public BatchWrite toBatch() {
    return new CopyOnWriteBatchWrite(context, command, scan, isolationLevel, commitStats);
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
  public String toString() {
    return description();
  }
}
