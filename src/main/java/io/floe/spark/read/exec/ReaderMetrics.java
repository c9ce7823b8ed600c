package io.floe.spark.read.exec;

import io.floe.spark.util.MetricValue;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The task-side metrics of a Floe scan, shown on the scan node in the Spark UI and in the executed
 * plan's metrics: data files opened, bytes of those files read, and Parquet row groups read.
 *
 * <p>Readers count into one instance per partition reader and report it through {@code
 * PartitionReader.currentMetricsValues()}; the scan lists the driver-side metrics of {@link
 * #all()} in {@code Scan.supportedCustomMetrics()}. Spark matches the two by {@link
 * CustomMetric#name()} and sums the task values. Spark creates the driver-side classes by
 * reflection, so each has a public no-argument constructor.
 */
public final class ReaderMetrics {
  /** Name of the metric counting data files (or splits of them) opened by readers. */
  public static final String FILES_READ = "filesRead";
  /** Name of the metric counting bytes of the data file splits read. */
  public static final String BYTES_READ = "bytesRead";
  /** Name of the metric counting Parquet row groups read. */
  public static final String ROW_GROUPS_READ = "rowGroupsRead";

  private long filesRead;
  private long bytesRead;
  private long rowGroupsRead;

  /** Driver-side metrics of a Floe scan's readers, to return from supportedCustomMetrics. */
  public static CustomMetric[] all() {
    return new CustomMetric[] {new FilesRead(), new BytesRead(), new RowGroupsRead()};
  }

  void fileOpened(long bytes) {
    filesRead++;
    bytesRead += bytes;
  }

  void rowGroupsRead(long count) {
    rowGroupsRead += count;
  }

  /** The current totals of this reader, in the order of {@link #all()}. */
  CustomTaskMetric[] taskValues() {
    return new CustomTaskMetric[] {
      new MetricValue(FILES_READ, filesRead),
      new MetricValue(BYTES_READ, bytesRead),
      new MetricValue(ROW_GROUPS_READ, rowGroupsRead)
    };
  }

  /** Data files, or splits of them, opened by the scan's readers. */
  public static final class FilesRead extends CustomSumMetric {
    @Override
    public String name() {
      return FILES_READ;
    }

    @Override
    public String description() {
      return "number of data file splits read";
    }
  }

  /** Bytes of the data file splits opened by the scan's readers, before deletes. */
  public static final class BytesRead extends CustomSumMetric {
    @Override
    public String name() {
      return BYTES_READ;
    }

    @Override
    public String description() {
      return "bytes of data file splits read";
    }
  }

  /** Parquet row groups read by the scan's readers (row groups skipped by statistics excluded). */
  public static final class RowGroupsRead extends CustomSumMetric {
    @Override
    public String name() {
      return ROW_GROUPS_READ;
    }

    @Override
    public String description() {
      return "number of Parquet row groups read";
    }
  }
}
