package io.floe.spark.procedures;

import io.floe.spark.commit.CommitOutcome;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.write.FloeCommitMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * {@code add_files(table, source_table [, partition_filter, check_duplicate_files, parallelism])}:
 * adds existing Parquet, ORC or Avro files to the table without rewriting them, in one {@code
 * append} snapshot carrying {@code floe.commit-id}. The source is a directory ({@code
 * `parquet`.`/path`}, {@code `orc`.`/path`}, {@code `avro`.`/path`}) or a table of those formats in
 * Spark's session catalog ({@link ImportSource}); {@code partition_filter} picks
 * source partitions by value. Each file's footer is read by a Spark job of {@code parallelism}
 * tasks ({@link FooterMetricsTask}), metrics matched to the table's columns by the table's name
 * mapping, which is created from the schema and set on the table if it has none, as in the
 * official runtime (so that the files' columns are read by name).
 *
 * <p>By default a file the table already holds is refused, naming the file; {@code
 * check_duplicate_files => false} adds it anyway. An ORC source into a table with a timestamp
 * column is refused (Iceberg's ORC reader cannot read Spark's ORC timestamps as that column).
 */
final class AddFilesProcedure extends BaseProcedure {
  static final String NAME = "add_files";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter SOURCE_TABLE =
      Parameters.required("source_table", DataTypes.StringType);
  private static final ProcedureParameter PARTITION_FILTER =
      Parameters.optional("partition_filter", Parameters.STRING_MAP);
  private static final ProcedureParameter CHECK_DUPLICATE_FILES =
      Parameters.optional("check_duplicate_files", DataTypes.BooleanType);
  private static final ProcedureParameter PARALLELISM =
      Parameters.optional("parallelism", DataTypes.IntegerType);
  private static final ProcedureParameter[] PARAMETERS = {
    TABLE, SOURCE_TABLE, PARTITION_FILTER, CHECK_DUPLICATE_FILES, PARALLELISM
  };

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("added_files_count", DataTypes.LongType, false),
          Parameters.column("changed_partition_count", DataTypes.LongType, true));

  AddFilesProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    String source = args.string(SOURCE_TABLE);
    Map<String, String> partitionFilter = args.anyOptions(PARTITION_FILTER);
    boolean checkDuplicates = !Boolean.FALSE.equals(args.optionalBoolean(CHECK_DUPLICATE_FILES));
    Integer parallelismArg = args.optionalInt(PARALLELISM);
    int parallelism = parallelismArg == null ? 1 : parallelismArg;
    if (parallelism < 1) {
      throw args.invalid(PARALLELISM, "must be at least 1, got " + parallelism);
    }
    SparkSession spark = context().spark();
    return modifyTable(
        ident,
        table -> {
          ImportSource files =
              ImportSource.resolve(
                  spark, source, table.schema(), table.spec(), partitionFilter,
                  why -> args.invalid(SOURCE_TABLE, why));
          if (checkDuplicates) {
            refuseDuplicates(table, files.files());
          }
          if (files.files().isEmpty()) {
            return new InternalRow[] {row(0L, null)};
          }
          String mapping = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
          String nameMapping =
              mapping != null ? mapping : NameMappingParser.toJson(MappingUtil.create(table.schema()));
          List<DataFile> dataFiles = readFooters(
                  spark, table, files, nameMapping, parallelism,
                  qualifiedName() + " into " + table.name());
          if (mapping == null) {
            table.updateProperties().set(TableProperties.DEFAULT_NAME_MAPPING, nameMapping).commit();
          }
          Snapshot start = table.currentSnapshot();
          CommitRequest request =
              new CommitRequest(
                  WriteMode.APPEND, dataFiles, null, UUID.randomUUID().toString(), false,
                  start == null ? null : start.snapshotId(), null, null, Map.of(), null, null);
          CommitOutcome outcome = new Committer(table, table.name()).commit(request);
          table.refresh();
          Map<String, String> summary = table.snapshot(outcome.snapshotId()).summary();
          return new InternalRow[] {
            row(
                PropertyUtil.propertyAsLong(summary, SnapshotSummary.ADDED_FILES_PROP, 0L),
                PropertyUtil.propertyAsNullableLong(
                    summary, SnapshotSummary.CHANGED_PARTITION_COUNT_PROP))
          };
        });
  }

  /**
   * Describes the files as data files of the table, reading their footers in a Spark job of at
   * most {@code parallelism} tasks that shows in the UI as {@code description}.
   */
  static List<DataFile> readFooters(
      SparkSession spark,
      Table table,
      ImportSource files,
      String nameMapping,
      int parallelism,
      String description) {
    Table copy = SerializableTable.copyOf(table);
    FooterMetricsTask task =
        new FooterMetricsTask(
            copy, table.spec().specId(), nameMapping,
            new SerializableConfiguration(spark.sessionState().newHadoopConf()));
    List<DataFile> dataFiles = new ArrayList<>();
    spark.sparkContext().setJobDescription(description);
    try {
      for (FloeCommitMessage message :
          JavaSparkContext.fromSparkContext(spark.sparkContext())
              .parallelize(files.files(), Math.min(parallelism, files.files().size()))
              .mapPartitions(task)
              .collect()) {
        dataFiles.addAll(message.dataFiles());
      }
    } finally {
      spark.sparkContext().setJobDescription(null);
    }
    return dataFiles;
  }

  private void refuseDuplicates(Table table, List<FooterMetricsTask.Source> files) {
    if (table.currentSnapshot() == null) {
      return;
    }
    Set<String> existing = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> existing.add(normalized(task.file().location())));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the files of " + table.name(), e);
    }
    List<String> duplicates = new ArrayList<>();
    for (FooterMetricsTask.Source file : files) {
      if (existing.contains(normalized(file.location()))) {
        duplicates.add(file.location());
      }
    }
    if (!duplicates.isEmpty()) {
      throw failure(
          duplicates.size() + " of the files are already in table " + table.name() + ", such as "
              + duplicates.subList(0, Math.min(3, duplicates.size()))
              + "; nothing was added. Use check_duplicate_files => false to add them anyway");
    }
  }

  private static String normalized(String location) {
    return new Path(location).toUri().getPath();
  }
}
