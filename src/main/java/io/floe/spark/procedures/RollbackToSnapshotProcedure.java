package io.floe.spark.procedures;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code rollback_to_snapshot(table, snapshot_id)}: makes an ancestor of the current snapshot the
 * current one again (Iceberg's {@code ManageSnapshots.rollbackTo}). No new snapshot is written.
 */
final class RollbackToSnapshotProcedure extends BaseProcedure {
  static final String NAME = "rollback_to_snapshot";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter SNAPSHOT_ID =
      Parameters.required("snapshot_id", DataTypes.LongType);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, SNAPSHOT_ID};

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("previous_snapshot_id", DataTypes.LongType, false),
          Parameters.column("current_snapshot_id", DataTypes.LongType, false));

  RollbackToSnapshotProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    long snapshotId = args.longValue(SNAPSHOT_ID);
    return modifyTable(
        ident,
        table -> {
          Snapshot previous = table.currentSnapshot();
          if (previous == null) {
            throw failure("table " + table.name() + " has no current snapshot to roll back from");
          }
          table.manageSnapshots().rollbackTo(snapshotId).commit();
          return new InternalRow[] {row(previous.snapshotId(), snapshotId)};
        });
  }
}
