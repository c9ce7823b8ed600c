package io.floe.spark.procedures;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code cherrypick_snapshot(table, snapshot_id)}: applies the changes of a snapshot that is not an
 * ancestor of the current one (a staged write-audit-publish snapshot, or one of another branch) on
 * top of the current snapshot (Iceberg's {@code ManageSnapshots.cherrypick}). Iceberg writes one
 * new snapshot, or fast-forwards when the source's parent is the current snapshot.
 */
final class CherrypickSnapshotProcedure extends BaseProcedure {
  static final String NAME = "cherrypick_snapshot";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter SNAPSHOT_ID =
      Parameters.required("snapshot_id", DataTypes.LongType);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, SNAPSHOT_ID};

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("source_snapshot_id", DataTypes.LongType, false),
          Parameters.column("current_snapshot_id", DataTypes.LongType, false));

  CherrypickSnapshotProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    long snapshotId = args.longValue(SNAPSHOT_ID);
    return modifyTable(ident, table -> cherrypick(table, snapshotId));
  }

  /** Cherry-picks a snapshot and returns the output row; shared with {@code publish_changes}. */
  static InternalRow[] cherrypick(org.apache.iceberg.Table table, long snapshotId) {
    table.manageSnapshots().cherrypick(snapshotId).commit();
    table.refresh();
    Snapshot current = table.currentSnapshot();
    return new InternalRow[] {row(snapshotId, current.snapshotId())};
  }
}
