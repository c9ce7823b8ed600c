package io.floe.spark.read.plan;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import org.apache.iceberg.BlobMetadata;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The distinct counts of a table's columns in one snapshot, as the table's statistics file for
 * exactly that snapshot states them: the {@code ndv} property of each single-column {@code
 * apache-datasketches-theta-v1} blob. Only the file's metadata in the table metadata is read, never
 * the Puffin file itself.
 *
 * <p>A statistics file written for another snapshot (a stale one) gives no counts, as in the
 * official runtime: after an overwrite or a delete its counts may be too high or too low, and
 * even after appends only they are a lower bound whose error grows with every commit; a count that
 * looks exact but is not misleads the optimizer more than no count, with which it falls back to
 * sizes.
 *
 * <p>For a scan that reads fewer rows than the snapshot holds (files pruned by a filter), {@link
 * #forScan} scales a count {@code D} of a table of {@code N} rows to a scan of {@code n} rows as
 * the expected number of distinct values among {@code n} rows drawn at random from {@code N} rows
 * that hold {@code D} values evenly: {@code D * (1 - (1 - n / N) ^ (N / D))}. A key column ({@code
 * D = N}) then scales with the rows, {@code n}, and a column of few values keeps them all, which a
 * plain {@code D * n / N} would not. A count is never above the scan's rows.
 *
 * @param byFieldId the distinct count of each column with one, by Iceberg field id
 * @param tableRows the rows of the snapshot (its {@code total-records}, before deletes), or -1 when
 *     the snapshot's summary does not say
 */
public record DistinctCounts(Map<Integer, Long> byFieldId, long tableRows) {
  /** The official runtime's session conf that turns column statistics off; default true. */
  public static final String REPORT_COLUMN_STATS = "spark.sql.iceberg.report-column-stats";

  private static final String NDV_PROPERTY = "ndv";

  public DistinctCounts {
    byFieldId = Map.copyOf(Objects.requireNonNull(byFieldId, "byFieldId is null"));
  }

  /**
   * Whether a scan reports distinct counts in this session: when Spark's cost-based optimizer is on
   * ({@code spark.sql.cbo.enabled}, which alone uses them) and {@value #REPORT_COLUMN_STATS} is not
   * false, the official runtime's rule.
   *
   * @throws IllegalArgumentException when {@value #REPORT_COLUMN_STATS} is neither true nor false
   */
  public static boolean reported(SQLConf conf) {
    return conf.cboEnabled() && columnStatsReported(conf);
  }

  /**
   * Whether a scan reports column statistics at all: {@value #REPORT_COLUMN_STATS}, default true.
   *
   * @throws IllegalArgumentException when the conf is neither true nor false
   */
  public static boolean columnStatsReported(SQLConf conf) {
    String value = conf.getConfString(REPORT_COLUMN_STATS, "true").trim().toLowerCase(Locale.ROOT);
    if (!value.equals("true") && !value.equals("false")) {
      throw new IllegalArgumentException(
          "Cannot plan a scan: session conf " + REPORT_COLUMN_STATS
              + " must be true or false, not '" + value + "'");
    }
    return value.equals("true");
  }

  /**
   * The counts of {@code snapshotId} from the table's statistics file for that snapshot; none when
   * the table has no such file.
   */
  public static DistinctCounts of(Table table, long snapshotId) {
    Objects.requireNonNull(table, "table is null");
    Map<Integer, Long> counts = new HashMap<>();
    for (StatisticsFile file : table.statisticsFiles()) {
      if (file.snapshotId() != snapshotId) {
        continue;
      }
      for (BlobMetadata blob : file.blobMetadata()) {
        // a sketch over several columns counts their combinations, not the values of one
        if (StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1.equals(blob.type())
            && blob.fields().size() == 1) {
          ndv(blob).ifPresent(ndv -> counts.putIfAbsent(blob.fields().get(0), ndv));
        }
      }
    }
    return new DistinctCounts(counts, counts.isEmpty() ? -1 : rowsOf(table.snapshot(snapshotId)));
  }

  /** No counts. */
  public static DistinctCounts none() {
    return new DistinctCounts(Map.of(), -1);
  }

  /**
   * The distinct count of the column {@code fieldId} in a scan of {@code scanRows} rows of the
   * snapshot, scaled as the type's documentation says; empty when the statistics file has none.
   */
  public OptionalLong forScan(int fieldId, long scanRows) {
    Long count = byFieldId.get(fieldId);
    if (count == null || scanRows < 0) {
      return OptionalLong.empty();
    }
    if (scanRows == 0) {
      return OptionalLong.of(0);
    }
    double distinct = count;
    if (tableRows > 0 && scanRows < tableRows && count > 0) {
      double share = (double) scanRows / tableRows;
      double rowsPerValue = (double) tableRows / count;
      // 1 - (1 - share)^rowsPerValue, computed without losing small shares to rounding
      distinct = count * -Math.expm1(rowsPerValue * Math.log1p(-share));
    }
    long scaled = Math.min((long) Math.ceil(distinct), scanRows);
    return OptionalLong.of(count > 0 ? Math.max(scaled, 1) : 0);
  }

  private static OptionalLong ndv(BlobMetadata blob) {
    String value = blob.properties() == null ? null : blob.properties().get(NDV_PROPERTY);
    if (value == null) {
      return OptionalLong.empty();
    }
    try {
      long ndv = Long.parseLong(value.trim());
      return ndv >= 0 ? OptionalLong.of(ndv) : OptionalLong.empty();
    } catch (NumberFormatException e) {
      // a writer's malformed property is no count; the scan then reports none for the column
      return OptionalLong.empty();
    }
  }

  private static long rowsOf(Snapshot snapshot) {
    String total =
        snapshot == null || snapshot.summary() == null
            ? null
            : snapshot.summary().get(SnapshotSummary.TOTAL_RECORDS_PROP);
    if (total == null) {
      return -1;
    }
    try {
      return Long.parseLong(total);
    } catch (NumberFormatException e) {
      // an unreadable summary only loses the scaling of counts for filtered scans
      return -1;
    }
  }
}
