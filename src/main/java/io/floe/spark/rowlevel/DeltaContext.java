package io.floe.spark.rowlevel;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.write.WriteOptions;
import io.floe.spark.write.exec.DeltaWriterSettings;
import java.io.Serializable;
import java.util.Objects;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;

/**
 * Everything a merge-on-read write was planned from, fixed on the driver when the write is built.
 *
 * @param loader loads the live table on the driver at commit time
 * @param table a serializable, read-only copy of the table's metadata as the operation started
 * @param command DELETE, UPDATE or MERGE
 * @param commitId the id recorded under {@code floe.commit-id}: the {@code commit-id} option or
 *     session conf when the caller set one
 * @param startingSnapshotId the snapshot the operation read (the scan's), or the branch head when
 *     Spark read nothing; null for an empty table
 * @param validateFromSnapshotId the snapshot after which commits are validated: the {@code
 *     validate-from-snapshot-id} option, else the scan's snapshot; null validates all history
 * @param conflictFilter the rows the operation read (the scan's filter); commits after the
 *     validated snapshot that touch them conflict under {@code isolationLevel}. Always false when
 *     Spark read nothing: the operation then depends on no row of the table
 * @param isolationLevel serializable or snapshot
 * @param options the resolved write options (branch, write-audit-publish id, snapshot properties)
 * @param writerSettings what the executors write with
 */
public record DeltaContext(
    TableLoader loader,
    Table table,
    Command command,
    String commitId,
    Long startingSnapshotId,
    Long validateFromSnapshotId,
    Expression conflictFilter,
    IsolationLevel isolationLevel,
    WriteOptions options,
    DeltaWriterSettings writerSettings)
    implements Serializable {

  public DeltaContext {
    Objects.requireNonNull(loader, "loader is null");
    Objects.requireNonNull(table, "table is null");
    Objects.requireNonNull(command, "command is null");
    Objects.requireNonNull(commitId, "commitId is null");
    Objects.requireNonNull(conflictFilter, "conflictFilter is null");
    Objects.requireNonNull(isolationLevel, "isolationLevel is null");
    Objects.requireNonNull(options, "options is null");
    Objects.requireNonNull(writerSettings, "writerSettings is null");
  }

  /** The table's name. */
  public String tableName() {
    return table.name();
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
    if (!(other instanceof DeltaContext that)) {
      return false;
    }
    return tableName().equals(that.tableName())
        && loader.equals(that.loader)
        && command == that.command
        && commitId.equals(that.commitId)
        && Objects.equals(startingSnapshotId, that.startingSnapshotId)
        && Objects.equals(validateFromSnapshotId, that.validateFromSnapshotId)
        && conflictFilter.toString().equals(that.conflictFilter.toString())
        && isolationLevel == that.isolationLevel
        && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tableName(), command, commitId, startingSnapshotId);
  }

  @Override
  public String toString() {
    return "DeltaContext{table="
        + tableName()
        + ", command="
        + command
        + ", commitId="
        + commitId
        + (callerChosenCommitId() ? " (caller-chosen)" : "")
        + ", startingSnapshot="
        + startingSnapshotId
        + ", validateFrom="
        + validateFromSnapshotId
        + ", conflictFilter="
        + conflictFilter
        + ", isolationLevel="
        + isolationLevel
        + ", writer="
        + writerSettings
        + ", loader="
        + loader
        + "}";
  }
}
