package io.floe.spark.procedures;

import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.CommitStateUnknownError;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.FileChanges;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ReadOptions;
import io.floe.spark.read.plan.DriverMetrics;
import io.floe.spark.read.plan.ScanLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.PositionDeletesScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.BinPackRewritePositionDeletePlanner;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.actions.RewritePositionDeletesGroup;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.StructLikeWrapper;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.Dataset$;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * {@code rewrite_position_delete_files(table [, options, where])}: compacts the position delete
 * files of a format-2 table. Groups are planned on the driver by Iceberg core's {@code
 * BinPackRewritePositionDeletePlanner} (its size and count options); each group, per spec and
 * partition, is one Spark job that reads the group's deletes through a {@link FloeScan} of the
 * {@code position_deletes} metadata table, drops those whose data file is no longer live, sorts
 * them by file and position and writes them as new position delete files on the executors ({@link
 * PositionDeleteWriteTask}). The commit is one Iceberg {@code RewriteFiles} through the Committer,
 * carrying {@code floe.commit-id} ({@code partial-progress.enabled}: one per batch of groups).
 *
 * <p>Differences from the official runtime: groups are rewritten one at a time ({@code
 * max-concurrent-file-group-rewrites} is accepted and has no effect); the new delete files get a
 * fresh data sequence number (they name the same data files by path, so they apply to the same
 * rows); format-3 tables, whose deletes are deletion vectors, are refused.
 */
final class RewritePositionDeleteFilesProcedure extends BaseProcedure {
  static final String NAME = "rewrite_position_delete_files";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter OPTIONS =
      Parameters.optional("options", Parameters.STRING_MAP);
  private static final ProcedureParameter WHERE =
      Parameters.optional("where", DataTypes.StringType);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, OPTIONS, WHERE};

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("rewritten_delete_files_count", DataTypes.IntegerType, false),
          Parameters.column("added_delete_files_count", DataTypes.IntegerType, false),
          Parameters.column("rewritten_bytes_count", DataTypes.LongType, false),
          Parameters.column("added_bytes_count", DataTypes.LongType, false));

  private static final Set<String> RUN_OPTIONS =
      Set.of(
          RewriteDataFiles.PARTIAL_PROGRESS_ENABLED,
          RewriteDataFiles.PARTIAL_PROGRESS_MAX_COMMITS,
          RewriteDataFiles.MAX_CONCURRENT_FILE_GROUP_REWRITES);

  RewritePositionDeleteFilesProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    String where = args.optionalString(WHERE);
    SparkSession spark = (SparkSession) context().spark();
    return modifyTable(
        ident,
        table -> {
          int formatVersion = ((HasTableOperations) table).operations().current().formatVersion();
          if (formatVersion > 2) {
            throw failure(
                table.name() + " is a format-" + formatVersion + " table, whose deletes are "
                    + "deletion vectors; this procedure compacts the position delete files of "
                    + "format 2");
          }
          BinPackRewritePositionDeletePlanner probe = new BinPackRewritePositionDeletePlanner(table);
          Set<String> known = new HashSet<>(probe.validOptions());
          known.addAll(RUN_OPTIONS);
          Map<String, String> options = args.options(OPTIONS, known);
          Expression filter =
              where == null
                  ? Expressions.alwaysTrue()
                  : WhereFilter.convert(
                      spark, context().quoted(ident), table.schema(), where,
                      why -> args.invalid(WHERE, why));
          if (table.currentSnapshot() == null) {
            return new InternalRow[] {row(0, 0, 0L, 0L)};
          }
          BinPackRewritePositionDeletePlanner planner =
              new BinPackRewritePositionDeletePlanner(
                  table, filter, spark.sessionState().conf().caseSensitiveAnalysis());
          Map<String, String> plannerOptions = new HashMap<>(options);
          RUN_OPTIONS.forEach(plannerOptions::remove);
          try {
            planner.init(plannerOptions);
          } catch (IllegalArgumentException e) {
            throw args.invalid(OPTIONS, "is invalid: " + e.getMessage());
          }
          List<RewritePositionDeletesGroup> groups = new ArrayList<>();
          try (CloseableIterable<RewritePositionDeletesGroup> planned = planner.plan().groups()) {
            planned.forEach(groups::add);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return rewrite(spark, table, groups, options);
        });
  }

  private InternalRow[] rewrite(
      SparkSession spark,
      Table table,
      List<RewritePositionDeletesGroup> groups,
      Map<String, String> options) {
    if (groups.isEmpty()) {
      return new InternalRow[] {row(0, 0, 0L, 0L)};
    }
    long startingSnapshotId = table.currentSnapshot().snapshotId();
    boolean partial =
        PropertyUtil.propertyAsBoolean(options, RewriteDataFiles.PARTIAL_PROGRESS_ENABLED, false);
    int maxCommits =
        PropertyUtil.propertyAsInt(
            options, RewriteDataFiles.PARTIAL_PROGRESS_MAX_COMMITS,
            RewriteDataFiles.PARTIAL_PROGRESS_MAX_COMMITS_DEFAULT);
    int perCommit = partial ? Math.max(1, (groups.size() + maxCommits - 1) / maxCommits) : groups.size();
    Map<StructLikeWrapper, Set<String>> live = liveDataFiles(table);
    int rewritten = 0;
    int added = 0;
    long rewrittenBytes = 0;
    long addedBytes = 0;
    List<DeleteFile> batchRemoved = new ArrayList<>();
    List<DeleteFile> batchAdded = new ArrayList<>();
    int inBatch = 0;
    for (int i = 0; i < groups.size(); i++) {
      RewritePositionDeletesGroup group = groups.get(i);
      List<DeleteFile> written = rewriteGroup(spark, table, group, live, i + 1, groups.size());
      batchRemoved.addAll(group.rewrittenDeleteFiles());
      batchAdded.addAll(written);
      rewritten += group.rewrittenDeleteFiles().size();
      rewrittenBytes += group.inputFilesSizeInBytes();
      added += written.size();
      addedBytes += written.stream().mapToLong(DeleteFile::fileSizeInBytes).sum();
      inBatch++;
      if (inBatch == perCommit || i == groups.size() - 1) {
        commit(table, startingSnapshotId, batchRemoved, batchAdded);
        batchRemoved.clear();
        batchAdded.clear();
        inBatch = 0;
      }
    }
    return new InternalRow[] {row(rewritten, added, rewrittenBytes, addedBytes)};
  }

  /** The live data files of the current snapshot, by spec and partition. */
  private static Map<StructLikeWrapper, Set<String>> liveDataFiles(Table table) {
    Map<StructLikeWrapper, Set<String>> live = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        live.computeIfAbsent(key(table, file.specId(), file.partition()), k -> new HashSet<>())
            .add(file.location());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the data files of " + table.name(), e);
    }
    return live;
  }

  private static StructLikeWrapper key(Table table, int specId, org.apache.iceberg.StructLike partition) {
    org.apache.iceberg.types.Types.StructType type =
        org.apache.iceberg.types.Types.StructType.of(
            org.apache.iceberg.types.Types.NestedField.required(
                Integer.MAX_VALUE - 1, "spec", org.apache.iceberg.types.Types.IntegerType.get()),
            org.apache.iceberg.types.Types.NestedField.optional(
                Integer.MAX_VALUE - 2, "partition", table.specs().get(specId).partitionType()));
    org.apache.iceberg.data.GenericRecord record = org.apache.iceberg.data.GenericRecord.create(type);
    record.set(0, specId);
    record.set(1, partition);
    return StructLikeWrapper.forType(type).set(record);
  }

  private List<DeleteFile> rewriteGroup(
      SparkSession spark,
      Table table,
      RewritePositionDeletesGroup group,
      Map<StructLikeWrapper, Set<String>> live,
      int index,
      int total) {
    // a group may mix specs whose partitions coincide: each spec and partition is written apart
    Map<StructLikeWrapper, List<PositionDeletesScanTask>> byPartition = new HashMap<>();
    for (PositionDeletesScanTask task : group.fileScanTasks()) {
      byPartition
          .computeIfAbsent(key(table, task.file().specId(), task.file().partition()), k -> new ArrayList<>())
          .add(task);
    }
    Table positionDeletes =
        MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.POSITION_DELETES);
    List<DeleteFile> written = new ArrayList<>();
    for (Map.Entry<StructLikeWrapper, List<PositionDeletesScanTask>> entry : byPartition.entrySet()) {
      List<PositionDeletesScanTask> tasks = entry.getValue();
      DeleteFile first = tasks.get(0).file();
      List<FloeInputPartition> partitions = new ArrayList<>();
      for (PositionDeletesScanTask task : tasks) {
        partitions.add(new FloeInputPartition(partitions.size(), List.<ScanTask>of(task), null));
      }
      org.apache.iceberg.Schema readSchema = positionDeletes.schema().select("file_path", "pos");
      FloeScan scan =
          new FloeScan(
              positionDeletes.name(), null, null, table.io(), positionDeletes.schema(), readSchema,
              Expressions.alwaysTrue(), partitions,
              ReadOptions.resolve(Map.of(), SQLConf.get(), table.properties()),
              ScanLayout.unordered(TableProperties.SPLIT_SIZE_DEFAULT),
              new DriverMetrics(0L, partitions.size(), 0L));
      Dataset<Row> deletes =
          Dataset$.MODULE$.ofRows(
              spark,
              DataSourceV2Relation.create(
                  new FileGroupTable(positionDeletes.name() + " (rewrite group)", scan),
                  Option.empty(),
                  Option.empty()));
      List<String> liveFiles = new ArrayList<>(live.getOrDefault(entry.getKey(), Set.of()));
      Dataset<Row> livePaths = spark.createDataset(liveFiles, Encoders.STRING()).toDF("live_path");
      Dataset<Row> kept =
          deletes
              .join(livePaths, deletes.col("file_path").equalTo(livePaths.col("live_path")), "left_semi")
              .repartitionByRange(Math.max(1, group.expectedOutputFiles()),
                  deletes.col("file_path"), deletes.col("pos"))
              .sortWithinPartitions("file_path", "pos");
      PositionDeleteWriteTask task =
          new PositionDeleteWriteTask(
              SerializableTable.copyOf(table), first.specId(), first.partition(),
              group.maxOutputFileSize());
      spark.sparkContext().setJobDescription(
          String.format("%s on %s: rewriting %d delete files (file group %d/%d)",
              qualifiedName(), table.name(), tasks.size(), index, total));
      try {
        kept.queryExecution().toRdd().toJavaRDD().mapPartitions(task).collect()
            .forEach(files -> written.addAll(files.deleteFiles()));
      } finally {
        spark.sparkContext().setJobDescription(null);
      }
    }
    return written;
  }

  private void commit(
      Table table, long startingSnapshotId, List<DeleteFile> removed, List<DeleteFile> added) {
    CommitRequest request =
        new CommitRequest(
            WriteMode.REWRITE, List.of(), null, UUID.randomUUID().toString(), false,
            startingSnapshotId, null, null, Map.of(), null, null,
            new FileChanges(List.of(), added, removed, List.of(), null, null));
    try {
      new Committer(table, table.name()).commit(request);
    } catch (CommitStateUnknownError e) {
      throw e;
    } catch (RuntimeException e) {
      added.forEach(file -> table.io().deleteFile(file.location()));
      throw new IllegalStateException(
          "Cannot commit the rewrite of " + removed.size() + " delete files of " + table.name()
              + ": " + e.getMessage() + "; nothing was committed and the new files were deleted",
          e);
    }
  }
}
