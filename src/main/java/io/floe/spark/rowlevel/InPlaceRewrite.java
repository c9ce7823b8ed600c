package io.floe.spark.rowlevel;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.write.Write;

/**
 * A copy-on-write UPDATE that may write its rows from the tasks that read them, without the
 * shuffle by partition its hash distribution asks Spark for.
 *
 * <p>Its scan read each partition of the written spec in one task, or the spec is unpartitioned
 * ({@link CopyOnWriteScan#keepsPartitionsApart}), so a row that keeps its partition is already
 * where the shuffle would send it. Whether every row keeps it depends on the UPDATE's assignments,
 * which only Spark's plan shows; Floe's planner strategy ({@code
 * io.floe.spark.extensions.UpdateInPlace}) checks that the partition source columns pass from this
 * scan to the write unchanged. A DELETE, whose rows never change, decides this itself ({@link
 * CopyOnWriteDistribution}).
 *
 * <p>It carries the scan the rows must be read by and the top-level columns the written spec's
 * partition fields take their values from.
 */
public final class InPlaceRewrite {
  private final Scan scan;
  private final List<String> partitionColumns;

  /**
   * @param scan the operation's scan
   * @param partitionColumns the top-level columns the written spec partitions by, none when it is
   *     unpartitioned
   */
  public InPlaceRewrite(Scan scan, List<String> partitionColumns) {
    this.scan = Objects.requireNonNull(scan, "scan is null");
    this.partitionColumns =
        List.copyOf(Objects.requireNonNull(partitionColumns, "partitionColumns is null"));
  }

  /**
   * The in-place rewrite a write allows: present for Floe's copy-on-write UPDATE in hash mode whose
   * scan kept the written spec's partitions apart, empty for every other write.
   */
  public static Optional<InPlaceRewrite> ofUpdate(Write write) {
    return write instanceof CopyOnWriteWrite copyOnWrite
        ? copyOnWrite.inPlaceUpdate()
        : Optional.empty();
  }

  /** The scan whose rows the UPDATE writes. */
  public Scan scan() {
    return scan;
  }

  /** The top-level columns whose values must reach the write unchanged. */
  public List<String> partitionColumns() {
    return partitionColumns;
  }

  @Override
  public String toString() {
    return "InPlaceRewrite{scan=" + scan.description() + ", partitionColumns=" + partitionColumns
        + "}";
  }
}
