package io.floe.spark.procedures;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code set_current_snapshot(table, snapshot_id | ref)}: makes any snapshot of the table, or the
 * snapshot a branch or tag points to, the current one (Iceberg's {@code
 * ManageSnapshots.setCurrentSnapshot}); unlike a rollback it need not be an ancestor. Exactly one
 * of {@code snapshot_id} and {@code ref} is given. No new snapshot is written.
 */
final class SetCurrentSnapshotProcedure extends BaseProcedure {
  static final String NAME = "set_current_snapshot";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter SNAPSHOT_ID =
      Parameters.optional("snapshot_id", DataTypes.LongType);
  private static final ProcedureParameter REF = Parameters.optional("ref", DataTypes.StringType);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, SNAPSHOT_ID, REF};

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("previous_snapshot_id", DataTypes.LongType, true),
          Parameters.column("current_snapshot_id", DataTypes.LongType, false));

  SetCurrentSnapshotProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    Long snapshotId = args.optionalLong(SNAPSHOT_ID);
    String ref = args.optionalString(REF);
    if ((snapshotId == null) == (ref == null)) {
      throw failure("give either snapshot_id or ref, not both and not neither");
    }
    return modifyTable(
        ident,
        table -> {
          Snapshot previous = table.currentSnapshot();
          long target = snapshotId != null ? snapshotId : refSnapshotId(table, ref);
          table.manageSnapshots().setCurrentSnapshot(target).commit();
          return new InternalRow[] {row(previous == null ? null : previous.snapshotId(), target)};
        });
  }

  private long refSnapshotId(Table table, String name) {
    SnapshotRef ref = table.refs().get(name);
    if (ref == null) {
      throw failure(
          "table "
              + table.name()
              + " has no branch or tag '"
              + name
              + "'; it has "
              + String.join(", ", new java.util.TreeSet<>(table.refs().keySet())));
    }
    return ref.snapshotId();
  }
}
