package io.floe.spark.read.plan;

/**
 * What the planner needs of a scan's resolved read options: how to bind filters and how large to
 * make the task groups.
 *
 * @param splitSize target bytes per task group, or null to derive it from the scan's size, {@code
 *     maxPartitionBytes} and {@code minPartitions}, as Spark does for its own file sources
 * @param openFileCost bytes charged per file when packing
 * @param maxPartitionBytes the largest derived split size
 * @param minPartitions the number of groups a derived split size aims for
 * @param targetPartitions the number of groups to aim for when no split size is set, or null for
 *     Spark's rule
 * @param caseSensitive whether column names resolve case-sensitively
 */
public record PlanOptions(
    Long splitSize,
    long openFileCost,
    long maxPartitionBytes,
    int minPartitions,
    Integer targetPartitions,
    boolean caseSensitive) {}
