package io.floe.spark.read.plan;

import io.floe.spark.util.MetricValue;
import java.io.Serializable;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * What the driver measured while planning a scan, shown on the scan node in the Spark UI and in the
 * executed plan's metrics: planning time, the number of task groups, and data files skipped by
 * pruning (by the scan's filters when planning, and by runtime filters after).
 *
 * @param planningMillis wall time of planning the scan's file tasks and groups, in milliseconds
 * @param taskGroups the number of task groups (Spark input partitions) the scan reads
 * @param skippedDataFiles data files of the snapshot that the scan does not read
 */
public record DriverMetrics(long planningMillis, long taskGroups, long skippedDataFiles)
    implements Serializable {
  /** Name of the planning time metric. */
  public static final String PLANNING_TIME = "planningTime";
  /** Name of the task group count metric. */
  public static final String TASK_GROUPS = "taskGroups";
  /** Name of the metric counting data files skipped by pruning. */
  public static final String SKIPPED_DATA_FILES = "skippedDataFiles";

  public DriverMetrics {
    if (planningMillis < 0 || taskGroups < 0 || skippedDataFiles < 0) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot report scan metrics: negative value in planningMillis=%d, taskGroups=%d,"
                  + " skippedDataFiles=%d",
              planningMillis, taskGroups, skippedDataFiles));
    }
  }

  /** The metric definitions, to list in {@code Scan.supportedCustomMetrics()}. */
  public static CustomMetric[] all() {
    return new CustomMetric[] {new PlanningTime(), new TaskGroups(), new SkippedDataFiles()};
  }

  /** The values, in the order of {@link #all()}, for {@code Scan.reportDriverMetrics()}. */
  public CustomTaskMetric[] values() {
    return new CustomTaskMetric[] {
      new MetricValue(PLANNING_TIME, planningMillis),
      new MetricValue(TASK_GROUPS, taskGroups),
      new MetricValue(SKIPPED_DATA_FILES, skippedDataFiles)
    };
  }

  /** Time the driver spent planning the scan. */
  public static final class PlanningTime extends CustomSumMetric {
    @Override
    public String name() {
      return PLANNING_TIME;
    }

    @Override
    public String description() {
      return "planning time (ms)";
    }
  }

  /** Task groups, each one Spark input partition, the scan reads. */
  public static final class TaskGroups extends CustomSumMetric {
    @Override
    public String name() {
      return TASK_GROUPS;
    }

    @Override
    public String description() {
      return "number of task groups";
    }
  }

  /** Data files of the snapshot the scan does not read because pruning skipped them. */
  public static final class SkippedDataFiles extends CustomSumMetric {
    @Override
    public String name() {
      return SKIPPED_DATA_FILES;
    }

    @Override
    public String description() {
      return "number of data files skipped by pruning";
    }
  }
}
