package io.floe.spark.procedures;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code ancestors_of(table [, snapshot_id])}: the snapshot (the current one by default) and its
 * ancestors still in the table's metadata, newest first, with their commit times in milliseconds. A
 * table without snapshots has no rows. Read-only.
 */
final class AncestorsOfProcedure extends BaseProcedure {
  static final String NAME = "ancestors_of";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter SNAPSHOT_ID =
      Parameters.optional("snapshot_id", DataTypes.LongType);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, SNAPSHOT_ID};

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("snapshot_id", DataTypes.LongType, true),
          Parameters.column("timestamp", DataTypes.LongType, true));

  AncestorsOfProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    Long snapshotId = args.optionalLong(SNAPSHOT_ID);
    return readTable(ident, table -> ancestors(table, snapshotId));
  }

  private InternalRow[] ancestors(Table table, Long snapshotId) {
    Snapshot start = snapshotId == null ? table.currentSnapshot() : table.snapshot(snapshotId);
    if (snapshotId != null && start == null) {
      throw failure("table " + table.name() + " has no snapshot " + snapshotId);
    }
    List<InternalRow> rows = new ArrayList<>();
    for (Snapshot snapshot = start;
        snapshot != null;
        snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId())) {
      rows.add(row(snapshot.snapshotId(), snapshot.timestampMillis()));
    }
    return rows.toArray(new InternalRow[0]);
  }
}
