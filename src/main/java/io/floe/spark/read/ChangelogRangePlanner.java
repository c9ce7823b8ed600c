package io.floe.spark.read;

import io.floe.spark.read.plan.ChangelogPlanner;
import io.floe.spark.read.plan.PlanOptions;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * Plans the input partitions of a changelog over any range of snapshots with one scan's filter and
 * plan options, on the driver: a changelog stream plans each micro-batch with it, exactly as the
 * scan plans a batch read ({@link ChangelogPlanner}).
 */
public final class ChangelogRangePlanner {
  private final String name;
  private final Expression filter;
  private final PlanOptions options;

  /**
   * @param name the changelog's name, for messages
   * @param filter the scan's filter, in the table's column names
   * @param options the scan's plan options
   */
  public ChangelogRangePlanner(String name, Expression filter, PlanOptions options) {
    this.name = Objects.requireNonNull(name, "name is null");
    this.filter = Objects.requireNonNull(filter, "filter is null");
    this.options = Objects.requireNonNull(options, "options is null");
  }

  public String name() {
    return name;
  }

  /**
   * The input partitions of the changes after {@code startExclusive} (null: from the table's first
   * snapshot) up to {@code endInclusive}, their ordinals counted from 0 at the range's first
   * snapshot.
   */
  public InputPartition[] plan(Table table, Long startExclusive, long endInclusive) {
    List<ChangelogInputPartition> partitions =
        ChangelogInputPartition.of(
            ChangelogPlanner.plan(table, name, startExclusive, endInclusive, filter, options)
                .groups());
    return partitions.toArray(new InputPartition[0]);
  }

  @Override
  public String toString() {
    return "ChangelogRangePlanner{" + name + ", filter=" + filter + "}";
  }
}
