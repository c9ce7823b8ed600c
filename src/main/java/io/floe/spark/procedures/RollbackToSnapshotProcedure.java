package io.floe.spark.procedures;

import org.apache.iceberg.Table;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code rollback_to_snapshot(table, snapshot_id)}: makes an ancestor of the current snapshot the
 * current one again (Iceberg's {@code ManageSnapshots.rollbackTo}). No new snapshot is written.
 */
final class RollbackToSnapshotProcedure extends RollbackProcedure {
  static final String NAME = "rollback_to_snapshot";

  private static final ProcedureParameter SNAPSHOT_ID =
      Parameters.required("snapshot_id", DataTypes.LongType);

  RollbackToSnapshotProcedure(ProcedureContext context) {
    super(context, NAME, SNAPSHOT_ID);
  }

  @Override
  long rollBack(Table table, ProcedureArgs args) {
    long snapshotId = args.longValue(SNAPSHOT_ID);
    table.manageSnapshots().rollbackTo(snapshotId).commit();
    return snapshotId;
  }
}
