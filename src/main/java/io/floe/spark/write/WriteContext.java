package io.floe.spark.write;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.util.PlanValues;
import io.floe.spark.write.exec.DataWriterSettings;
import java.io.Serializable;
import java.util.Objects;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;

/**
 * Everything a write was planned from, fixed on the driver when the write is built. The table's
 * name, the schema rows are written with and the spec files are written with are those of {@code
 * table}; whether the caller chose the commit id is whether the options carry one.
 *
 * @param loader loads the live table on the driver at commit time
 * @param table a serializable, read-only copy of the table's metadata as the write started
 *     (FileIO, location provider, properties, schema, specs, sort order)
 * @param mode how the files change the table
 * @param overwriteFilter the rows to replace for {@link WriteMode#OVERWRITE_BY_FILTER}, else null
 * @param commitId the id recorded in the snapshot summary: the {@code commit-id} option when the
 *     caller set one
 * @param startingSnapshotId the branch head when the write started, or null for an empty table
 * @param options the resolved write options
 */
public record WriteContext(
    TableLoader loader,
    Table table,
    WriteMode mode,
    Expression overwriteFilter,
    String commitId,
    Long startingSnapshotId,
    WriteOptions options)
    implements Serializable {

  public WriteContext {
    Objects.requireNonNull(loader, "loader is null");
    Objects.requireNonNull(table, "table is null");
    Objects.requireNonNull(mode, "mode is null");
    Objects.requireNonNull(commitId, "commitId is null");
    Objects.requireNonNull(options, "options is null");
    if ((mode == WriteMode.OVERWRITE_BY_FILTER) != (overwriteFilter != null)) {
      throw new IllegalArgumentException(
          "Cannot plan a write to " + table.name() + ": mode " + mode
              + (overwriteFilter == null ? " needs an overwrite filter" : " takes no overwrite filter"));
    }
    if (options.commitId() != null && !options.commitId().equals(commitId)) {
      throw new IllegalArgumentException(
          "Cannot plan a write to " + table.name() + ": commit id " + commitId
              + " is not the caller's commit-id " + options.commitId());
    }
  }

  /** The table's name. */
  public String tableName() {
    return table.name();
  }

  /** The schema rows are written with: the table's. */
  public Schema schema() {
    return table.schema();
  }

  /**
   * The partition spec files are written with: the table's current spec, or the older one the
   * write asked for ({@code output-spec-id}).
   */
  public PartitionSpec spec() {
    return options.outputSpecId() == null ? table.spec() : table.specs().get(options.outputSpecId());
  }

  /**
   * What the executors write this write's data files with (batch and stream alike): the spec, the
   * target file size, the writer {@link WriteDistribution} chose (fanout or clustered) and the
   * fanout writer's open-file bound, whether files record the table's sort order, and file
   * properties.
   */
  public DataWriterSettings writerSettings() {
    WriteDistribution distribution = WriteDistribution.of(this);
    return new DataWriterSettings(
        table,
        spec().specId(),
        options.targetFileSizeBytes(),
        distribution.fanout(),
        distribution.sortsBySortOrder(),
        options.fileWriteProperties(),
        options.fanoutMaxOpenFiles());
  }

  /** Whether the caller chose the commit id (then the whole ancestry is checked at commit). */
  public boolean callerChosenCommitId() {
    return options.commitId() != null;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof WriteContext)) {
      return false;
    }
    WriteContext that = (WriteContext) other;
    return tableName().equals(that.tableName())
        && loader.equals(that.loader)
        && table.location().equals(that.table.location())
        && Objects.equals(table.uuid(), that.table.uuid())
        && schema().sameSchema(that.schema())
        && PlanValues.sameSpec(spec(), that.spec())
        && mode == that.mode
        && Objects.equals(String.valueOf(overwriteFilter), String.valueOf(that.overwriteFilter))
        && commitId.equals(that.commitId)
        && Objects.equals(startingSnapshotId, that.startingSnapshotId)
        && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tableName(), commitId, mode, startingSnapshotId);
  }

  @Override
  public String toString() {
    return "WriteContext{table="
        + tableName()
        + ", mode="
        + mode
        + (overwriteFilter == null ? "" : ", overwriteFilter=" + overwriteFilter)
        + ", spec="
        + spec()
        + ", commitId="
        + commitId
        + (callerChosenCommitId() ? " (caller-chosen)" : "")
        + ", startingSnapshot="
        + startingSnapshotId
        + ", options="
        + options
        + ", loader="
        + loader
        + "}";
  }
}
