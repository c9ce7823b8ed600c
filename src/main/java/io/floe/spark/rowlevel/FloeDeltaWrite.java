package io.floe.spark.rowlevel;

import io.floe.spark.write.DistributedWrite;
import java.util.Locale;
import java.util.Objects;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWrite;

/**
 * A planned merge-on-read write: what it writes, how Spark must distribute and order the delta
 * rows ({@link DeltaDistribution}) and how it will commit, fixed on the driver.
 */
public final class FloeDeltaWrite extends DistributedWrite implements DeltaWrite {
  private final DeltaContext context;
  private final DeltaDistribution distribution;

  public FloeDeltaWrite(DeltaContext context, DeltaDistribution distribution) {
    super(Objects.requireNonNull(distribution, "distribution is null"));
    this.context = Objects.requireNonNull(context, "context is null");
    this.distribution = distribution;
  }

  public DeltaContext context() {
    return context;
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
    return new FloeDeltaBatchWrite(context, commitStats());
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
