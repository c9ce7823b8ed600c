package io.floe.spark.procedures;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code fast_forward(table, branch, to)}: moves {@code branch} to the snapshot of {@code to},
 * which must descend from it (Iceberg's {@code ManageSnapshots.fastForwardBranch}; a missing {@code
 * branch} is created there). No new snapshot is written.
 */
final class FastForwardProcedure extends BaseProcedure {
  static final String NAME = "fast_forward";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter BRANCH =
      Parameters.required("branch", DataTypes.StringType);
  private static final ProcedureParameter TO = Parameters.required("to", DataTypes.StringType);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, BRANCH, TO};

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("branch_updated", DataTypes.StringType, false),
          Parameters.column("previous_ref", DataTypes.LongType, true),
          Parameters.column("updated_ref", DataTypes.LongType, false));

  FastForwardProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    String branch = args.string(BRANCH);
    String to = args.string(TO);
    return modifyTable(
        ident,
        table -> {
          Snapshot before = table.snapshot(branch);
          table.manageSnapshots().fastForwardBranch(branch, to).commit();
          long after = table.snapshot(branch).snapshotId();
          return new InternalRow[] {
            row(UTF8String.fromString(branch), before == null ? null : before.snapshotId(), after)
          };
        });
  }
}
