package io.floe.spark.write.exec;

import io.floe.spark.commit.CommitStats;
import io.floe.spark.util.MetricValue;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The metrics a Floe write shows on its node in the Spark UI's SQL tab: the driver's commit figures
 * ({@code commitsSkipped}, {@code commitAttempts}, {@code commitDurationMs}, {@code filesWritten},
 * {@code bytesWritten}) and the writer tasks' {@code rowsWritten}. Spark instantiates each metric
 * class by name to aggregate values, so every one is a public class with a no-argument constructor.
 */
public final class WriteMetrics {
  public static final String COMMITS_SKIPPED = "commitsSkipped";
  public static final String COMMIT_ATTEMPTS = "commitAttempts";
  public static final String COMMIT_DURATION_MS = "commitDurationMs";
  public static final String FILES_WRITTEN = "filesWritten";
  public static final String BYTES_WRITTEN = "bytesWritten";
  public static final String ROWS_WRITTEN = "rowsWritten";

  private WriteMetrics() {}

  /** Every metric a Floe write reports. */
  public static CustomMetric[] supported() {
    return new CustomMetric[] {
      new CommitsSkipped(),
      new CommitAttempts(),
      new CommitDurationMs(),
      new FilesWritten(),
      new BytesWritten(),
      new RowsWritten()
    };
  }

  /** The driver's values, read after the commit (or its failure). */
  public static CustomTaskMetric[] driverValues(CommitStats stats) {
    return new CustomTaskMetric[] {
      value(COMMITS_SKIPPED, stats.commitsSkipped()),
      value(COMMIT_ATTEMPTS, stats.commitAttempts()),
      value(COMMIT_DURATION_MS, stats.commitDurationMs()),
      value(FILES_WRITTEN, stats.filesWritten()),
      value(BYTES_WRITTEN, stats.bytesWritten())
    };
  }

  static CustomTaskMetric value(String name, long value) {
    return new MetricValue(name, value);
  }

  /** Commits that added nothing because their commit id was already in the table. */
  public static final class CommitsSkipped extends CustomSumMetric {
    @Override
    public String name() {
      return COMMITS_SKIPPED;
    }

    @Override
    public String description() {
      return "commits skipped (commit id already in the table)";
    }
  }

  /** Commit attempts that reached the commit id check inside Iceberg's retry loop. */
  public static final class CommitAttempts extends CustomSumMetric {
    @Override
    public String name() {
      return COMMIT_ATTEMPTS;
    }

    @Override
    public String description() {
      return "commit attempts";
    }
  }

  /** Time spent committing on the driver. */
  public static final class CommitDurationMs extends CustomSumMetric {
    @Override
    public String name() {
      return COMMIT_DURATION_MS;
    }

    @Override
    public String description() {
      return "commit time (ms)";
    }
  }

  /** Data files handed to the commit. */
  public static final class FilesWritten extends CustomSumMetric {
    @Override
    public String name() {
      return FILES_WRITTEN;
    }

    @Override
    public String description() {
      return "data files written";
    }
  }

  /** Bytes of the data files handed to the commit. */
  public static final class BytesWritten extends CustomSumMetric {
    @Override
    public String name() {
      return BYTES_WRITTEN;
    }

    @Override
    public String description() {
      return "data bytes written";
    }
  }

  /** Rows the writer tasks wrote. */
  public static final class RowsWritten extends CustomSumMetric {
    @Override
    public String name() {
      return ROWS_WRITTEN;
    }

    @Override
    public String description() {
      return "rows written";
    }
  }
}
