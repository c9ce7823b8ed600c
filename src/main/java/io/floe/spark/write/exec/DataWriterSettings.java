package io.floe.spark.write.exec;

import io.floe.spark.util.PlanValues;
import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;

/**
 * What one writer task needs to write its data files, and nothing else: a read-only copy of the
 * table's metadata (FileIO, location provider, properties, schema, spec, sort order), the target
 * file size, whether to keep one file per partition open (and how many at most), and whether the
 * rows come sorted by the table's sort order, so that the files may record it. It never reaches a
 * catalog.
 *
 * @param table a serializable, read-only copy of the table; rows are written with its schema
 * @param specId the id of the table's partition spec that files are written with: the current one,
 *     or an older one the write asked for ({@code output-spec-id})
 * @param targetFileSizeBytes data files roll over at this size
 * @param fanoutEnabled whether one file per partition stays open (any input order)
 * @param recordSortOrder whether Spark sorts every task's rows by the partition transforms and then
 *     the table's sort order, so that files written one at a time carry the table's sort order id
 * @param writeProperties table properties that this write's files are written with instead of the
 *     table's (the write options {@code compression-codec}, {@code compression-level}, {@code
 *     compression-strategy}); empty for none
 * @param maxOpenFiles the most data files a fanout writer keeps open at once; one more partition
 *     closes the least recently written file (see {@link BoundedFanoutWriter})
 * @param lineage where the row lineage values of a format v3 rewrite come from, written into the
 *     files after the table's columns; null to write the table's columns only
 */
public record DataWriterSettings(
    Table table,
    int specId,
    long targetFileSizeBytes,
    boolean fanoutEnabled,
    boolean recordSortOrder,
    Map<String, String> writeProperties,
    int maxOpenFiles,
    RowLineageSource lineage)
    implements Serializable {

  /**
   * The open-file bound of a fanout writer task when the write sets none ({@code
   * fanout-max-open-files}); see docs/writes.md for the memory each open file holds.
   */
  public static final int DEFAULT_MAX_OPEN_FILES = 64;

  public DataWriterSettings {
    Objects.requireNonNull(table, "table is null");
    writeProperties =
        Map.copyOf(Objects.requireNonNull(writeProperties, "writeProperties is null"));
    if (!table.specs().containsKey(specId)) {
      throw new IllegalArgumentException(
          "Cannot write to " + table.name() + ": the table has no partition spec " + specId);
    }
    if (maxOpenFiles <= 0) {
      throw new IllegalArgumentException(
          "Cannot write to " + table.name() + ": the open-file bound must be positive, not "
              + maxOpenFiles);
    }
  }

  /** Settings that write the table's columns only. */
  public DataWriterSettings(
      Table table,
      int specId,
      long targetFileSizeBytes,
      boolean fanoutEnabled,
      boolean recordSortOrder,
      Map<String, String> writeProperties,
      int maxOpenFiles) {
    this(
        table, specId, targetFileSizeBytes, fanoutEnabled, recordSortOrder, writeProperties,
        maxOpenFiles, null);
  }

  /** Settings with the default open-file bound ({@link #DEFAULT_MAX_OPEN_FILES}). */
  public DataWriterSettings(
      Table table,
      int specId,
      long targetFileSizeBytes,
      boolean fanoutEnabled,
      boolean recordSortOrder,
      Map<String, String> writeProperties) {
    this(
        table, specId, targetFileSizeBytes, fanoutEnabled, recordSortOrder, writeProperties,
        DEFAULT_MAX_OPEN_FILES);
  }

  /** The table's schema: the columns of the rows Spark hands over. */
  public Schema schema() {
    return table.schema();
  }

  /** The schema of the data files: the table's, then the lineage columns when there are any. */
  public Schema fileSchema() {
    return lineage == null ? table.schema() : RowLineageSource.writeSchema(table.schema());
  }

  /** These settings, writing the row lineage the source names into the files. */
  public DataWriterSettings withLineage(RowLineageSource source) {
    Objects.requireNonNull(source, "source is null");
    return new DataWriterSettings(
        table, specId, targetFileSizeBytes, fanoutEnabled, recordSortOrder, writeProperties,
        maxOpenFiles, source);
  }

  /** The partition spec files are written with. */
  public PartitionSpec spec() {
    return table.specs().get(specId);
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof DataWriterSettings)) {
      return false;
    }
    DataWriterSettings that = (DataWriterSettings) other;
    return table.name().equals(that.table.name())
        && table.location().equals(that.table.location())
        && PlanValues.sameIo(table.io(), that.table.io())
        && schema().sameSchema(that.schema())
        && PlanValues.sameSpec(spec(), that.spec())
        && targetFileSizeBytes == that.targetFileSizeBytes
        && fanoutEnabled == that.fanoutEnabled
        && recordSortOrder == that.recordSortOrder
        && writeProperties.equals(that.writeProperties)
        && maxOpenFiles == that.maxOpenFiles
        && Objects.equals(lineage, that.lineage);
  }

  @Override
  public int hashCode() {
    return Objects.hash(table.name(), spec().specId(), targetFileSizeBytes, fanoutEnabled);
  }

  @Override
  public String toString() {
    return "DataWriterSettings{table="
        + table.name()
        + ", io="
        + PlanValues.describeIo(table.io())
        + ", spec="
        + spec()
        + ", targetFileSizeBytes="
        + targetFileSizeBytes
        + ", fanout="
        + fanoutEnabled
        + (fanoutEnabled ? ", maxOpenFiles=" + maxOpenFiles : "")
        + (recordSortOrder ? ", sortOrderId=" + table.sortOrder().orderId() : "")
        + (writeProperties.isEmpty() ? "" : ", writeProperties=" + new TreeMap<>(writeProperties))
        + (lineage == null ? "" : ", lineage=" + lineage)
        + "}";
  }
}
