package io.floe.spark.rowlevel;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.FloeScanBuilder;
import io.floe.spark.read.exec.FileKeyColumn;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.SupportsDelta;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A merge-on-read DELETE, UPDATE or MERGE: Spark reads the affected rows through the ordinary Floe
 * scan, with each row's id ({@code _file}, {@code _pos}; for a MERGE {@code _floe_file_key}, {@code
 * _pos}: see {@link MergeFileColumn}) and its data file's {@code _spec_id} and
 * {@code _partition}, and hands the writer a delta of deleted rows and new rows. Deleted rows become
 * position deletes (format v2) or deletion vectors (format v3); new rows, and the new version of
 * each updated row (an update arrives as a delete and an insert), become data files. No data file
 * is rewritten.
 *
 * <p>Spark asks for one scan builder and one write builder per operation; both are kept, and the
 * write takes the scan's snapshot, filter and tasks from the scan the builder built.
 */
public final class MergeOnReadOperation implements SupportsDelta {
  private final Table table;
  private final TableLoader loader;
  private final String branch;
  private final RowLevelOperationInfo info;
  private RecordingScanBuilder scanBuilder;
  private DeltaWriteBuilder writeBuilder;

  /**
   * @param table the table as the statement loaded it
   * @param loader loads the live table at commit time
   * @param branch the branch the table's name selects, or null
   * @param info Spark's description of the operation
   */
  public MergeOnReadOperation(
      Table table, TableLoader loader, String branch, RowLevelOperationInfo info) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.loader = Objects.requireNonNull(loader, "loader is null");
    this.branch = branch;
    this.info = Objects.requireNonNull(info, "info is null");
  }

  @Override
  public Command command() {
    return info.command();
  }

  @Override
  public String description() {
    return "Floe merge-on-read " + command() + " on " + table.name();
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    if (scanBuilder == null) {
      scanBuilder =
          new RecordingScanBuilder(
              new FloeScanBuilder(table, branchHead(), table.schema(), options));
    }
    return scanBuilder;
  }

  @Override
  public DeltaWriteBuilder newWriteBuilder(LogicalWriteInfo writeInfo) {
    if (writeBuilder == null) {
      writeBuilder =
          new FloeDeltaWriteBuilder(
              table, loader, branch, command(), info.options().asCaseSensitiveMap(), writeInfo,
              this::scan);
    }
    return writeBuilder;
  }

  @Override
  public NamedReference[] rowId() {
    // a MERGE carries the row id through its join for every target row: the file's 8-byte key
    // rather than its location, which the writer looks up among the scanned files
    return new NamedReference[] {
      Expressions.column(
          MergeFileColumn.keyed(command()) ? FileKeyColumn.NAME : MetadataColumns.FILE_PATH.name()),
      Expressions.column(MetadataColumns.ROW_POSITION.name())
    };
  }

  /**
   * The data file's spec and partition of each deleted row; for UPDATE and MERGE on a format v3
   * table also the row lineage, which the new version of an updated row keeps ({@link
   * RowLineageColumns}). A DELETE writes no rows, so it reads no lineage.
   */
  @Override
  public NamedReference[] requiredMetadataAttributes() {
    List<NamedReference> required = new ArrayList<>();
    required.add(Expressions.column(MetadataColumns.SPEC_ID.name()));
    required.add(Expressions.column(MetadataColumns.PARTITION_COLUMN_NAME));
    if (command() != Command.DELETE) {
      required.addAll(RowLineageColumns.required(table));
    }
    return required.toArray(new NamedReference[0]);
  }

  /** Updates arrive as a delete and an insert, so that new rows follow the table's own layout. */
  @Override
  public boolean representUpdateAsDeleteAndInsert() {
    return true;
  }

  private FloeScan scan() {
    return scanBuilder == null ? null : scanBuilder.scan();
  }

  /**
   * The snapshot a branch's operation reads: the branch's head. Null for the main branch, which
   * the scan builder resolves itself (the current snapshot, or a write-audit-publish branch).
   */
  private Long branchHead() {
    if (branch == null) {
      return null;
    }
    Snapshot head = table.snapshot(branch);
    if (head == null) {
      throw new IllegalArgumentException(
          "Cannot " + command() + " " + table.name() + ".branch_" + branch + ": branch '" + branch
              + "' does not exist");
    }
    return head.snapshotId();
  }
}
