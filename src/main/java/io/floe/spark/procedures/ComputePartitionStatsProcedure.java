package io.floe.spark.procedures;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.PartitionStatsHandler;
import org.apache.iceberg.Partitioning;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code compute_partition_stats(table [, snapshot_id])}: computes the per-partition counts of a
 * snapshot (the current one by default) with Iceberg core's {@link PartitionStatsHandler}, which
 * reads the snapshot's manifests on the driver and starts from the latest earlier statistics file
 * when there is one, writes them to a statistics file under the table's metadata folder and
 * registers that file in the table metadata ({@code UpdatePartitionStatistics}; no snapshot is
 * created). Returns the file's location, or no row when the table has no snapshot or the snapshot
 * no partition.
 *
 * <p>An unknown snapshot or an unpartitioned table fails before anything is written. A failure
 * after the file is written but before it is registered leaves the file unreferenced, where
 * remove_orphan_files finds it.
 */
final class ComputePartitionStatsProcedure extends BaseProcedure {
  static final String NAME = "compute_partition_stats";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter SNAPSHOT_ID =
      Parameters.optional("snapshot_id", DataTypes.LongType);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, SNAPSHOT_ID};

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("partition_statistics_file", DataTypes.StringType, true));

  ComputePartitionStatsProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    Long snapshotId = args.optionalLong(SNAPSHOT_ID);
    return modifyTable(
        ident,
        table -> {
          Snapshot snapshot =
              snapshotId == null ? table.currentSnapshot() : table.snapshot(snapshotId);
          if (snapshotId != null && snapshot == null) {
            throw args.invalid(
                SNAPSHOT_ID, "names no snapshot of table " + table.name() + ": " + snapshotId);
          }
          if (!Partitioning.isPartitioned(table)) {
            throw failure(
                "table " + table.name() + " is not partitioned: partition statistics need a "
                    + "partitioned table");
          }
          if (snapshot == null) {
            return new InternalRow[0];
          }
          PartitionStatisticsFile file = write(table, snapshot);
          if (file == null) {
            return new InternalRow[0];
          }
          table.updatePartitionStatistics().setPartitionStatistics(file).commit();
          return new InternalRow[] {row(UTF8String.fromString(file.path()))};
        });
  }

  private PartitionStatisticsFile write(Table table, Snapshot snapshot) {
    try {
      return PartitionStatsHandler.computeAndWriteStatsFile(table, snapshot.snapshotId());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot write the partition statistics of " + table.name() + ": " + e.getMessage(), e);
    }
  }
}
