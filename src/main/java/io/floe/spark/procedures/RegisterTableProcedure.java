package io.floe.spark.procedures;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code register_table(table, metadata_file)}: adds an existing Iceberg table to this catalog
 * under a new name, from one of its metadata files (Iceberg's {@code Catalog.registerTable}). Files
 * are neither copied nor moved. Returns the registered table's current snapshot and its totals
 * (NULL when it has no snapshot).
 */
final class RegisterTableProcedure extends BaseProcedure {
  static final String NAME = "register_table";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter METADATA_FILE =
      Parameters.required("metadata_file", DataTypes.StringType);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, METADATA_FILE};

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("current_snapshot_id", DataTypes.LongType, true),
          Parameters.column("total_records_count", DataTypes.LongType, true),
          Parameters.column("total_data_files_count", DataTypes.LongType, true));

  RegisterTableProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    String metadataFile = args.string(METADATA_FILE);
    if (metadataFile.isBlank()) {
      throw args.invalid(METADATA_FILE, "is empty");
    }
    Table table = context().catalog().registerTable(ident, metadataFile);
    context().refreshCached(ident);
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new InternalRow[] {row(null, null, null)};
    }
    return new InternalRow[] {
      row(
          current.snapshotId(),
          total(current, SnapshotSummary.TOTAL_RECORDS_PROP),
          total(current, SnapshotSummary.TOTAL_DATA_FILES_PROP))
    };
  }

  private static Long total(Snapshot snapshot, String key) {
    String value = snapshot.summary().get(key);
    return value == null ? null : Long.parseLong(value);
  }
}
