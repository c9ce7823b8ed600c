package io.floe.spark.rowlevel;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.read.ScanPlanShare;
import io.floe.spark.read.exec.FileKeyColumn;
import io.floe.spark.write.WriteContext;
import io.floe.spark.write.WriteOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A copy-on-write DELETE, UPDATE or MERGE: reads every row of the files that hold a changed row
 * (at the head of its branch when the operation was built, so the scan and the commit's validation
 * agree on one snapshot), and replaces those files with the rows that stay.
 *
 * <p>Spark asks for the scan first and then for the write, once each; the write commits against
 * the scan Spark built. The operation asks for the column of the runtime filter, which names the
 * files the commit removes: {@code _file} and {@code _pos} for DELETE and UPDATE, and for a MERGE,
 * which carries it through its join, the far shorter {@link FileKeyColumn} (or {@code _file} with
 * {@link MergeFileColumn#CONF}); on a format v3 table
 * also for the row lineage columns, which the new files keep ({@link RowLineageColumns}).
 */
final class CopyOnWriteOperation implements RowLevelOperation {
  private final Table table;
  private final TableLoader loader;
  private final Command command;
  private final Map<String, String> operationOptions;
  private final WriteOptions options;
  private final IsolationLevel isolationLevel;
  private final Snapshot snapshot;
  private final ScanPlanShare plans;
  private final boolean keyedFiles;
  private CopyOnWriteScan scan;

  /**
   * @param plans where the operation's scan offers its plan to the scan of Spark's group filter,
   *     or null
   */
  CopyOnWriteOperation(
      Table table,
      TableLoader loader,
      String branch,
      RowLevelOperationInfo info,
      ScanPlanShare plans) {
    this.plans = plans;
    this.table = Objects.requireNonNull(table, "table is null");
    this.loader = Objects.requireNonNull(loader, "loader is null");
    this.command = info.command();
    this.operationOptions = Map.copyOf(info.options().asCaseSensitiveMap());
    this.options = resolve(operationOptions, branch);
    this.isolationLevel =
        RowLevelIsolation.resolve(
            table.name(), command, options.isolationLevel(), table.properties());
    this.snapshot = head(table, options.branch());
    this.keyedFiles = MergeFileColumn.keyed(command);
  }

  private static Snapshot head(Table table, String branch) {
    SnapshotRef ref = branch == null ? null : table.refs().get(branch);
    return ref == null ? table.currentSnapshot() : table.snapshot(ref.snapshotId());
  }

  @Override
  public Command command() {
    return command;
  }

  @Override
  public String description() {
    return "Floe copy-on-write " + command + " of " + table.name();
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap scanOptions) {
    Long snapshotId = snapshot == null ? null : snapshot.snapshotId();
    return new CopyOnWriteScanBuilder(
        table, snapshotId, scanOptions, plans, keyedFiles, built -> this.scan = built);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new WriteBuilder() {
      @Override
      public Write build() {
        WriteOptions writeOptions = withWriteOptions(info);
        String commitId =
            writeOptions.commitId() != null ? writeOptions.commitId() : UUID.randomUUID().toString();
        WriteContext context =
            new WriteContext(
                loader,
                SerializableTable.copyOf(table),
                WriteMode.COPY_ON_WRITE,
                null,
                commitId,
                snapshot == null ? null : snapshot.snapshotId(),
                writeOptions);
        return new CopyOnWriteWrite(
            context, command, scan, isolationLevel, RowLineageColumns.source(table, info));
      }
    };
  }

  /**
   * The operation's options with the write's own (Spark passes the relation's options) on top,
   * and the command's distribution mode ({@link RowLevelDistributionMode}) in place of the
   * insert's.
   */
  private WriteOptions withWriteOptions(LogicalWriteInfo info) {
    Map<String, String> given = info.options().asCaseSensitiveMap();
    Map<String, String> merged = operationOptions;
    WriteOptions resolved = options;
    if (!given.isEmpty()) {
      merged = new HashMap<>(operationOptions);
      merged.putAll(given);
      resolved = resolve(merged, options.branch());
    }
    PartitionSpec spec =
        resolved.outputSpecId() == null ? table.spec() : table.specs().get(resolved.outputSpecId());
    if (spec == null) {
      throw new IllegalArgumentException(
          "Cannot " + command + " " + table.name() + ": option '" + WriteOptions.OUTPUT_SPEC_ID
              + "' names no partition spec of the table: " + resolved.outputSpecId());
    }
    return resolved.withDistributionMode(
        RowLevelDistributionMode.copyOnWrite(
            table.name(), command, merged, SQLConf.get(), table.properties(), spec,
            table.sortOrder(), resolved.distributionMode()));
  }

  private WriteOptions resolve(Map<String, String> given, String branch) {
    WriteOptions resolved =
        WriteOptions.resolve(table.name(), given, SQLConf.get(), table.properties());
    return branch == null ? resolved : resolved.onBranch(table.name(), branch);
  }

  @Override
  public NamedReference[] requiredMetadataAttributes() {
    List<NamedReference> required = new ArrayList<>();
    if (keyedFiles) {
      // Spark carries these through the join and the write's shuffle for every target row: the
      // file's 8-byte key names the files to rewrite as well as its ~150-byte location
      required.add(Expressions.column(FileKeyColumn.NAME));
    } else {
      required.add(Expressions.column(MetadataColumns.FILE_PATH.name()));
    }
    if (command != Command.MERGE) {
      required.add(Expressions.column(MetadataColumns.ROW_POSITION.name()));
    }
    required.addAll(RowLineageColumns.required(table));
    return required.toArray(new NamedReference[0]);
  }
}
