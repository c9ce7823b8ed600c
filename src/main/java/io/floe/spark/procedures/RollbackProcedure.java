package io.floe.spark.procedures;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The two rollbacks, {@code rollback_to_snapshot} and {@code rollback_to_timestamp}: both make an
 * ancestor of the current snapshot current again, write no new snapshot, and answer with the
 * previous and the new current snapshot id. A subclass carries only its target parameter and how
 * it rolls back.
 */
abstract class RollbackProcedure extends BaseProcedure {
  static final ProcedureParameter TABLE = Parameters.TABLE;

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("previous_snapshot_id", DataTypes.LongType, false),
          Parameters.column("current_snapshot_id", DataTypes.LongType, false));

  RollbackProcedure(ProcedureContext context, String name, ProcedureParameter target) {
    super(context, name, new ProcedureParameter[] {TABLE, target}, OUTPUT);
  }

  /** Commits the rollback to {@code table} and returns the snapshot id that is now current. */
  abstract long rollBack(Table table, ProcedureArgs args);

  @Override
  final InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    return modifyTable(
        ident,
        table -> {
          Snapshot previous = table.currentSnapshot();
          if (previous == null) {
            throw failure("table " + table.name() + " has no current snapshot to roll back from");
          }
          long current = rollBack(table, args);
          return new InternalRow[] {row(previous.snapshotId(), current)};
        });
  }
}
