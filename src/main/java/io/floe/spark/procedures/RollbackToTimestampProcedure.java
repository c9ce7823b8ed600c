package io.floe.spark.procedures;

import org.apache.iceberg.Table;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code rollback_to_timestamp(table, timestamp)}: makes the ancestor of the current snapshot that
 * was current at {@code timestamp} the current one again (Iceberg's {@code
 * ManageSnapshots.rollbackToTime}; the timestamp is truncated to milliseconds). No new snapshot is
 * written.
 */
final class RollbackToTimestampProcedure extends RollbackProcedure {
  static final String NAME = "rollback_to_timestamp";

  private static final ProcedureParameter TIMESTAMP =
      Parameters.required("timestamp", DataTypes.TimestampType);

  RollbackToTimestampProcedure(ProcedureContext context) {
    super(context, NAME, TIMESTAMP);
  }

  @Override
  long rollBack(Table table, ProcedureArgs args) {
    long timestampMillis = args.timestampMillis(TIMESTAMP);
    table.manageSnapshots().rollbackToTime(timestampMillis).commit();
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }
}
