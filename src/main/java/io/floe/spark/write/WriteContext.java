package io.floe.spark.write;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.util.PlanValues;
import java.io.Serializable;
import java.util.Objects;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;

/**
 * Everything a write was planned from, fixed on the driver when the write is built.
 *
 * @param tableName the table's name
 * @param loader loads the live table on the driver at commit time
 * @param table a serializable, read-only copy of the table's metadata as the write started
 *     (FileIO, location provider, properties, specs)
 * @param schema the schema rows are written with
 * @param spec the partition spec files are written with
 * @param mode how the files change the table
 * @param overwriteFilter the rows to replace for {@link WriteMode#OVERWRITE_BY_FILTER}, else null
 * @param commitId the id recorded in the snapshot summary
 * @param callerChosenCommitId whether the caller chose the id (then the whole ancestry is checked)
 * @param startingSnapshotId the branch head when the write started, or null for an empty table
 * @param options the resolved write options
 */
public record WriteContext(
    String tableName,
    TableLoader loader,
    Table table,
    Schema schema,
    PartitionSpec spec,
    WriteMode mode,
    Expression overwriteFilter,
    String commitId,
    boolean callerChosenCommitId,
    Long startingSnapshotId,
    WriteOptions options)
    implements Serializable {

  public WriteContext {
    Objects.requireNonNull(tableName, "tableName is null");
    Objects.requireNonNull(loader, "loader is null");
    Objects.requireNonNull(table, "table is null");
    Objects.requireNonNull(schema, "schema is null");
    Objects.requireNonNull(spec, "spec is null");
    Objects.requireNonNull(mode, "mode is null");
    Objects.requireNonNull(commitId, "commitId is null");
    Objects.requireNonNull(options, "options is null");
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
    return tableName.equals(that.tableName)
        && loader.equals(that.loader)
        && table.location().equals(that.table.location())
        && Objects.equals(table.uuid(), that.table.uuid())
        && PlanValues.sameSchema(schema, that.schema)
        && PlanValues.sameSpec(spec, that.spec)
        && mode == that.mode
        && Objects.equals(String.valueOf(overwriteFilter), String.valueOf(that.overwriteFilter))
        && commitId.equals(that.commitId)
        && callerChosenCommitId == that.callerChosenCommitId
        && Objects.equals(startingSnapshotId, that.startingSnapshotId)
        && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tableName, commitId, mode, startingSnapshotId);
  }

  @Override
  public String toString() {
    return "WriteContext{table="
        + tableName
        + ", mode="
        + mode
        + (overwriteFilter == null ? "" : ", overwriteFilter=" + overwriteFilter)
        + ", spec="
        + spec
        + ", commitId="
        + commitId
        + (callerChosenCommitId ? " (caller-chosen)" : "")
        + ", startingSnapshot="
        + startingSnapshotId
        + ", options="
        + options
        + ", loader="
        + loader
        + "}";
  }
}
