package io.floe.spark.rowlevel;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.exec.FileKeyColumn;
import io.floe.spark.write.AdvisoryPartitionSize;
import io.floe.spark.write.WriteOptions;
import io.floe.spark.write.exec.DataWriterSettings;
import io.floe.spark.write.exec.DeltaWriterSettings;
import io.floe.spark.write.exec.RowLineageSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.deletes.DeleteGranularity;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;

/**
 * Turns Spark's merge-on-read write request into a {@link FloeDeltaWrite}: resolves the options,
 * fixes the commit id, takes the snapshot, filter and previous deletes from the scan the operation
 * read, and works out where the row id and metadata columns sit in the rows Spark will hand over.
 */
public final class FloeDeltaWriteBuilder implements DeltaWriteBuilder {
  private final Table table;
  private final TableLoader loader;
  private final String branch;
  private final Command command;
  private final Map<String, String> operationOptions;
  private final LogicalWriteInfo info;
  private final Supplier<FloeScan> scan;

  /**
   * @param table the table as the statement loaded it
   * @param loader loads the live table at commit time
   * @param branch the branch the table's name selects, or null
   * @param command DELETE, UPDATE or MERGE
   * @param operationOptions the options of the statement's table reference
   * @param info Spark's description of the rows to write
   * @param scan the scan the operation read, or null when Spark read nothing
   */
  public FloeDeltaWriteBuilder(
      Table table,
      TableLoader loader,
      String branch,
      Command command,
      Map<String, String> operationOptions,
      LogicalWriteInfo info,
      Supplier<FloeScan> scan) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.loader = Objects.requireNonNull(loader, "loader is null");
    this.branch = branch;
    this.command = Objects.requireNonNull(command, "command is null");
    this.operationOptions = Objects.requireNonNull(operationOptions, "operationOptions is null");
    this.info = Objects.requireNonNull(info, "info is null");
    this.scan = Objects.requireNonNull(scan, "scan is null");
  }

  @Override
  public DeltaWrite build() {
    Map<String, String> given = new HashMap<>(operationOptions);
    given.putAll(info.options().asCaseSensitiveMap());
    SQLConf session = SQLConf.get();
    MergeOnReadOptions mor =
        MergeOnReadOptions.resolve(table.name(), command, given, session, table.properties());
    WriteOptions options =
        WriteOptions.resolve(table.name(), mor.writeOptions(), session, table.properties());
    if (branch != null) {
      options = options.onBranch(table.name(), branch);
    }
    if (options.outputSpecId() != null && !table.specs().containsKey(options.outputSpecId())) {
      throw new IllegalArgumentException(
          "Cannot " + command + " " + table.name() + ": option '" + WriteOptions.OUTPUT_SPEC_ID
              + "' names no partition spec of the table: " + options.outputSpecId());
    }

    FloeScan read = scan.get();
    Long startingSnapshotId;
    Expression conflictFilter;
    if (read != null) {
      startingSnapshotId = read.snapshotId();
      conflictFilter = read.filter();
    } else {
      Snapshot head = options.branch() == null ? table.currentSnapshot() : table.snapshot(options.branch());
      startingSnapshotId = head == null ? null : head.snapshotId();
      conflictFilter = Expressions.alwaysFalse();
    }
    Long validateFrom =
        options.validateFromSnapshotId() != null ? options.validateFromSnapshotId() : startingSnapshotId;
    String commitId = options.commitId() != null ? options.commitId() : UUID.randomUUID().toString();

    boolean deletionVectors = TableUtil.formatVersion(table) >= 3;
    Table copy = SerializableTable.copyOf(table);
    PartitionSpec spec =
        options.outputSpecId() == null ? table.spec() : table.specs().get(options.outputSpecId());
    DataWriterSettings data =
        new DataWriterSettings(
            copy,
            spec.specId(),
            options.targetFileSizeBytes(),
            // new rows may come in any order when Spark is not asked to sort them
            DeltaDistribution.fanout(options),
            // new rows are sorted by the table's order only after the deletes' keys
            false,
            options.fileWriteProperties());
    if (command != Command.DELETE) {
      // an updated row's new version keeps its row id (format v3)
      RowLineageSource lineage = RowLineageColumns.source(table, info);
      data = lineage == null ? data : data.withLineage(lineage);
    }
    StructType rowId = info.rowIdSchema().orElseThrow(() -> missing("row id"));
    StructType metadata = info.metadataSchema().orElseThrow(() -> missing("metadata"));
    boolean keyed = Arrays.asList(rowId.fieldNames()).contains(FileKeyColumn.NAME);
    DeltaWriterSettings writer =
        new DeltaWriterSettings(
            data,
            deletionVectors,
            mor.granularity(),
            mor.targetDeleteFileSizeBytes(),
            rowId.fieldIndex(keyed ? FileKeyColumn.NAME : MetadataColumns.FILE_PATH.name()),
            rowId.fieldIndex(MetadataColumns.ROW_POSITION.name()),
            metadata.fieldIndex(MetadataColumns.SPEC_ID.name()),
            metadata.fieldIndex(MetadataColumns.PARTITION_COLUMN_NAME),
            read == null ? Map.of() : previousDeletes(read, deletionVectors, mor.granularity()),
            keyed ? fileKeys(table.name(), read) : null);
    DeltaContext context =
        new DeltaContext(
            loader, copy, command, commitId, startingSnapshotId, validateFrom, conflictFilter,
            mor.isolationLevel(), options, writer);
    DeltaDistribution distribution =
        DeltaDistribution.of(
            command, table.schema(), spec, table.sortOrder(), mor.distributionMode(), options,
            keyed ? FileKeyColumn.NAME : MetadataColumns.FILE_PATH.name(),
            command == Command.DELETE
                ? AdvisoryPartitionSize.forDeletes(
                    options, table.properties(), TableUtil.formatVersion(table), session)
                : AdvisoryPartitionSize.forData(options, table.properties(), session));
    return new FloeDeltaWrite(context, distribution);
  }

  /**
   * The location of each key of the data files the scan planned (before any runtime filter), for
   * a row id that names files by key. Two planned files with one key (a chance of about n² / 2⁶⁵)
   * fail the statement before anything is written, since a delete must name its file exactly.
   */
  private static Map<Long, String> fileKeys(String tableName, FloeScan read) {
    Map<Long, String> keys = new HashMap<>();
    if (read == null) {
      return keys;
    }
    for (FloeInputPartition partition : read.partitions()) {
      for (ScanTask task : partition.tasks()) {
        if (!task.isFileScanTask()) {
          continue;
        }
        String location = task.asFileScanTask().file().location();
        String other = keys.putIfAbsent(FileKeyColumn.of(location), location);
        if (other != null && !other.equals(location)) {
          throw new IllegalStateException(
              "Cannot MERGE into " + tableName + ": data files " + other + " and " + location
                  + " have the same key; run the MERGE with the session conf "
                  + MergeFileColumn.CONF + "=true");
        }
      }
    }
    return keys;
  }

  /**
   * The delete files a new delete file for each scanned data file replaces: with deletion vectors
   * every position delete and vector of the file (a vector must hold all of the file's deleted
   * positions, since readers then ignore its position-delete files); with file-scoped position
   * deletes the earlier file-scoped ones; none with partition-scoped deletes.
   */
  private static Map<String, List<DeleteFile>> previousDeletes(
      FloeScan read, boolean deletionVectors, DeleteGranularity granularity) {
    if (!deletionVectors && granularity != DeleteGranularity.FILE) {
      return Map.of();
    }
    Map<String, List<DeleteFile>> previous = new HashMap<>();
    for (FloeInputPartition partition : read.partitions()) {
      for (ScanTask task : partition.tasks()) {
        if (!task.isFileScanTask()) {
          continue;
        }
        FileScanTask fileTask = task.asFileScanTask();
        String location = fileTask.file().location();
        if (previous.containsKey(location)) {
          // a split of a file seen already carries the same deletes
          continue;
        }
        List<DeleteFile> replaced = new ArrayList<>();
        for (DeleteFile delete : fileTask.deletes()) {
          boolean replace =
              deletionVectors
                  ? delete.content() == FileContent.POSITION_DELETES
                  : ContentFileUtil.isFileScoped(delete);
          if (replace) {
            replaced.add(delete);
          }
        }
        if (!replaced.isEmpty()) {
          previous.put(location, replaced);
        }
      }
    }
    return previous;
  }

  private IllegalStateException missing(String what) {
    return new IllegalStateException(
        "Cannot " + command + " " + table.name() + ": Spark passed no " + what + " columns");
  }
}
