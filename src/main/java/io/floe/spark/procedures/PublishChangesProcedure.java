package io.floe.spark.procedures;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.util.WapUtil;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code publish_changes(table, wap_id)}: cherry-picks the one staged write-audit-publish snapshot
 * whose summary carries {@code wap.id = wap_id} onto the current snapshot (as {@code
 * cherrypick_snapshot} does). No such snapshot, or more than one, fails without a change.
 */
final class PublishChangesProcedure extends BaseProcedure {
  static final String NAME = "publish_changes";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter WAP_ID =
      Parameters.required("wap_id", DataTypes.StringType);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, WAP_ID};

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("source_snapshot_id", DataTypes.LongType, false),
          Parameters.column("current_snapshot_id", DataTypes.LongType, false));

  PublishChangesProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    String wapId = args.string(WAP_ID);
    return modifyTable(
        ident,
        table -> CherrypickSnapshotProcedure.cherrypick(table, stagedSnapshot(table, wapId)));
  }

  private long stagedSnapshot(Table table, String wapId) {
    List<Long> matches = new ArrayList<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (wapId.equals(WapUtil.stagedWapId(snapshot))) {
        matches.add(snapshot.snapshotId());
      }
    }
    if (matches.isEmpty()) {
      throw failure(
          "table " + table.name() + " has no staged snapshot with wap.id '" + wapId + "'");
    }
    if (matches.size() > 1) {
      throw failure(
          "table "
              + table.name()
              + " has "
              + matches.size()
              + " staged snapshots with wap.id '"
              + wapId
              + "' "
              + matches
              + "; cherry-pick one with cherrypick_snapshot");
    }
    return matches.get(0);
  }
}
