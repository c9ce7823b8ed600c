package io.floe.spark.procedures;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code rollback_to_timestamp(table, timestamp)}: makes the ancestor of the current snapshot that
 * was current at {@code timestamp} the current one again (Iceberg's {@code
 * ManageSnapshots.rollbackToTime}; the timestamp is truncated to milliseconds). No new snapshot is
 * written.
 */
final class RollbackToTimestampProcedure extends BaseProcedure {
  static final String NAME = "rollback_to_timestamp";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter TIMESTAMP =
      Parameters.required("timestamp", DataTypes.TimestampType);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, TIMESTAMP};

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("previous_snapshot_id", DataTypes.LongType, false),
          Parameters.column("current_snapshot_id", DataTypes.LongType, false));

  RollbackToTimestampProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    long timestampMillis = args.timestampMillis(TIMESTAMP);
    return modifyTable(
        ident,
        table -> {
          Snapshot previous = table.currentSnapshot();
          if (previous == null) {
            throw failure("table " + table.name() + " has no current snapshot to roll back from");
          }
          table.manageSnapshots().rollbackToTime(timestampMillis).commit();
          table.refresh();
          return new InternalRow[] {
            row(previous.snapshotId(), table.currentSnapshot().snapshotId())
          };
        });
  }
}
