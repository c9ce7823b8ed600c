package io.floe.spark.read;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;

/**
 * The scan of an incremental read ({@code start-snapshot-id}, ...) of a table that can also
 * stream. Spark builds a stream's scan as it builds a batch read's, and a stream gives those
 * options its own meaning: it plans its micro-batches itself and never reads the batch range.
 * So the range is planned only when the scan is used as a batch: by {@link #toBatch}, {@link
 * #estimateStatistics} or a runtime filter ({@link #filterAttributes}), once, into the {@link
 * FloeScan} every batch call then goes to. {@link #toMicroBatchStream} hands the stream the
 * unplanned scan (its schema, options, filter and reader settings) and plans nothing; once a stream
 * has been made, statistics are unknown rather than planned.
 *
 * <p>A failure of planning (a start that is not an ancestor of the end, a manifest that cannot be
 * read) is raised by the batch call that planned, and by each later one (which plans again), never
 * by a stream. Java serialization (also Kryo's, through {@code FloeKryoRegistrator}) plans first:
 * the copy carries the planned scan.
 */
public final class DeferredIncrementalScan
    implements SupportsReportStatistics, SupportsRuntimeV2Filtering, Serializable {
  private final FloeScan unplanned;
  // driver-only: plans the range into the scan batch calls go to
  private transient Supplier<FloeScan> planning;
  private volatile FloeScan planned;
  private transient volatile boolean streamed;

  /**
   * @param unplanned the scan with no planned files, which the stream reads through
   * @param planning plans the incremental range into a scan; called at most once
   */
  DeferredIncrementalScan(FloeScan unplanned, Supplier<FloeScan> planning) {
    this.unplanned = Objects.requireNonNull(unplanned, "unplanned is null");
    this.planning = Objects.requireNonNull(planning, "planning is null");
  }

  /** The planned scan, planning it when first asked for. */
  private synchronized FloeScan planned() {
    if (planned == null) {
      planned = planning.get();
      planning = null;
    }
    return planned;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    planned();
    out.defaultWriteObject();
  }

  @Override
  public StructType readSchema() {
    return unplanned.readSchema();
  }

  @Override
  public String description() {
    FloeScan scan = planned;
    if (scan != null) {
      return scan.description();
    }
    return String.format(
        "Floe %s [incremental up to snapshot=%s, filters=%s, not planned]",
        unplanned.tableName(), unplanned.snapshotId(), unplanned.filter());
  }

  /** Plans the range, once; a planning failure is raised here. */
  @Override
  public Batch toBatch() {
    return planned().toBatch();
  }

  /** The stream over the table; the range is not planned. */
  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    streamed = true;
    return unplanned.toMicroBatchStream(checkpointLocation);
  }

  /**
   * The planned range's statistics (planning it); unknown once the scan made a stream, whose size
   * is that of each micro-batch and not of the range.
   */
  @Override
  public Statistics estimateStatistics() {
    if (streamed && planned == null) {
      return new Statistics() {
        @Override
        public OptionalLong sizeInBytes() {
          return OptionalLong.empty();
        }

        @Override
        public OptionalLong numRows() {
          return OptionalLong.empty();
        }
      };
    }
    return planned().estimateStatistics();
  }

  @Override
  public NamedReference[] filterAttributes() {
    return planned().filterAttributes();
  }

  @Override
  public void filter(Predicate[] predicates) {
    planned().filter(predicates);
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return unplanned.supportedCustomMetrics();
  }

  /** What planning measured, or nothing while the range is not planned (a stream's scan). */
  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    FloeScan scan = planned;
    return (scan != null ? scan : unplanned).reportDriverMetrics();
  }

  @Override
  public String toString() {
    return "DeferredIncrementalScan{" + description() + "}";
  }
}
