package io.floe.spark.procedures;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code expire_snapshots(table [, older_than, retain_last, max_concurrent_deletes, stream_results,
 * snapshot_ids, clean_expired_metadata])}: removes old snapshots from the table's metadata and
 * deletes the files no retained snapshot, branch or tag references any more: Iceberg core's {@code
 * ExpireSnapshots} commits, {@link UnreachableFiles} finds the files to delete, as the official
 * runtime does, at once rather than once the snapshot that removed a file has expired.
 *
 * <p>Without {@code older_than} and {@code retain_last} the table's own settings apply ({@code
 * history.expire.max-snapshot-age-ms}, 5 days by default, and {@code
 * history.expire.min-snapshots-to-keep}, 1). {@code snapshot_ids} expires those snapshots besides.
 * Files are deleted after the metadata commit, in bulk when the table's FileIO supports it (then
 * {@code max_concurrent_deletes} is ignored, as in the official runtime), else on that many
 * threads. {@code stream_results} is accepted and has no effect: the files to delete are found on
 * the driver, not collected from a Spark job.
 */
final class ExpireSnapshotsProcedure extends BaseProcedure {
  static final String NAME = "expire_snapshots";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter OLDER_THAN =
      Parameters.optional("older_than", DataTypes.TimestampType);
  private static final ProcedureParameter RETAIN_LAST =
      Parameters.optional("retain_last", DataTypes.IntegerType);
  private static final ProcedureParameter MAX_CONCURRENT_DELETES =
      Parameters.optional("max_concurrent_deletes", DataTypes.IntegerType);
  private static final ProcedureParameter STREAM_RESULTS =
      Parameters.optional("stream_results", DataTypes.BooleanType);
  private static final ProcedureParameter SNAPSHOT_IDS =
      Parameters.optional("snapshot_ids", Parameters.LONG_ARRAY);
  private static final ProcedureParameter CLEAN_EXPIRED_METADATA =
      Parameters.optional("clean_expired_metadata", DataTypes.BooleanType);
  private static final ProcedureParameter[] PARAMETERS = {
    TABLE,
    OLDER_THAN,
    RETAIN_LAST,
    MAX_CONCURRENT_DELETES,
    STREAM_RESULTS,
    SNAPSHOT_IDS,
    CLEAN_EXPIRED_METADATA
  };

  private static final StructType OUTPUT =
      Parameters.output(
            count("deleted_data_files_count"),
            count("deleted_position_delete_files_count"),
            count("deleted_equality_delete_files_count"),
            count("deleted_manifest_files_count"),
            count("deleted_manifest_lists_count"),
            count("deleted_statistics_files_count"));

  ExpireSnapshotsProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  private static StructField count(String name) {
    return new StructField(name, DataTypes.LongType, true, Metadata.empty());
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    Long olderThanMillis = args.optionalTimestampMillis(OLDER_THAN);
    Integer retainLast = args.optionalInt(RETAIN_LAST);
    Integer maxConcurrentDeletes = args.optionalInt(MAX_CONCURRENT_DELETES);
    // read only to check its type: it has no effect here (see the class comment)
    args.optionalBoolean(STREAM_RESULTS);
    List<Long> snapshotIds = args.optionalLongList(SNAPSHOT_IDS);
    Boolean cleanExpiredMetadata = args.optionalBoolean(CLEAN_EXPIRED_METADATA);
    if (retainLast != null && retainLast < 1) {
      throw args.invalid(RETAIN_LAST, "must be at least 1, got " + retainLast);
    }
    if (maxConcurrentDeletes != null && maxConcurrentDeletes < 1) {
      throw args.invalid(MAX_CONCURRENT_DELETES, "must be at least 1, got " + maxConcurrentDeletes);
    }
    return modifyTable(
        ident,
        table -> {
          // the latest metadata, so that no snapshot a concurrent expiry already removed is read
          TableMetadata before = ((HasTableOperations) table).operations().refresh();
          // Iceberg core only commits: its own cleanup on a main-only table is incremental (a data
          // file goes once the snapshot that removed it has expired), while the official runtime
          // frees every file no retained snapshot, branch or tag reaches; UnreachableFiles does that
          ExpireSnapshots expire = table.expireSnapshots().cleanExpiredFiles(false);
          if (olderThanMillis != null) {
            expire.expireOlderThan(olderThanMillis);
          }
          if (retainLast != null) {
            expire.retainLast(retainLast);
          }
          if (snapshotIds != null) {
            snapshotIds.forEach(expire::expireSnapshotId);
          }
          if (cleanExpiredMetadata != null) {
            expire.cleanExpiredMetadata(cleanExpiredMetadata);
          }
          expire.commit();
          table.refresh();
          Map<String, ExpiredFiles.Kind> unreachable =
              new UnreachableFiles(table.io(), before, metadata(table)).find();
          Map<ExpiredFiles.Kind, Long> deleted =
              new ExpiredFiles(table.name(), table.io(), unreachable).delete(maxConcurrentDeletes);
          return new InternalRow[] {
            row(
                deleted.get(ExpiredFiles.Kind.DATA),
                deleted.get(ExpiredFiles.Kind.POSITION_DELETES),
                deleted.get(ExpiredFiles.Kind.EQUALITY_DELETES),
                deleted.get(ExpiredFiles.Kind.MANIFEST),
                deleted.get(ExpiredFiles.Kind.MANIFEST_LIST),
                deleted.get(ExpiredFiles.Kind.STATISTICS))
          };
        });
  }

  private static TableMetadata metadata(Table table) {
    return ((HasTableOperations) table).operations().current();
  }
}
