package io.floe.spark.procedures;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.RewriteTablePathUtil;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code rewrite_table_path(table, source_prefix, target_prefix [, start_version, end_version,
 * staging_location, create_file_list])}: stages a copy of the table's metadata in which every path
 * under {@code source_prefix} is under {@code target_prefix} instead, so that the table can be
 * copied to the target (all of it, or the versions after {@code start_version}). Nothing of the
 * table changes and no data file is copied: the file list (CSV lines {@code source,target}) names
 * every file to copy, the rewritten metadata from the staging folder and the data and delete files
 * from where they are.
 *
 * <p>The metadata JSON files and manifest lists are rewritten on the driver, the manifests and
 * position delete files by Spark jobs (one task per file), all with Iceberg core's {@link
 * RewriteTablePathUtil}. Every version, manifest list and statistics file is checked to be under
 * the source prefix before anything is written; a manifest entry outside it fails the job, and then
 * every staged file is deleted again, so a failed call leaves nothing behind.
 */
final class RewriteTablePathProcedure extends BaseProcedure {
  static final String NAME = "rewrite_table_path";

  private static final Logger LOG = LoggerFactory.getLogger(RewriteTablePathProcedure.class);
  private static final String FILE_LIST = "file-list";
  private static final String NO_FILE_LIST = "N/A";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter SOURCE_PREFIX =
      Parameters.required("source_prefix", DataTypes.StringType);
  private static final ProcedureParameter TARGET_PREFIX =
      Parameters.required("target_prefix", DataTypes.StringType);
  private static final ProcedureParameter START_VERSION =
      Parameters.optional("start_version", DataTypes.StringType);
  private static final ProcedureParameter END_VERSION =
      Parameters.optional("end_version", DataTypes.StringType);
  private static final ProcedureParameter STAGING_LOCATION =
      Parameters.optional("staging_location", DataTypes.StringType);
  private static final ProcedureParameter CREATE_FILE_LIST =
      Parameters.optional("create_file_list", DataTypes.BooleanType);
  private static final ProcedureParameter[] PARAMETERS = {
    TABLE, SOURCE_PREFIX, TARGET_PREFIX, START_VERSION, END_VERSION, STAGING_LOCATION,
    CREATE_FILE_LIST
  };

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("latest_version", DataTypes.StringType, true),
          Parameters.column("file_list_location", DataTypes.StringType, true),
          Parameters.column("rewritten_manifest_file_paths_count", DataTypes.IntegerType, true),
          Parameters.column("rewritten_delete_file_paths_count", DataTypes.IntegerType, true));

  RewriteTablePathProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    String sourcePrefix = nonBlank(args, SOURCE_PREFIX, args.string(SOURCE_PREFIX));
    String targetPrefix = nonBlank(args, TARGET_PREFIX, args.string(TARGET_PREFIX));
    if (sourcePrefix.equals(targetPrefix)) {
      throw args.invalid(TARGET_PREFIX, "is the same as source_prefix: " + sourcePrefix);
    }
    String startVersion = nonBlank(args, START_VERSION, args.optionalString(START_VERSION));
    String endVersion = nonBlank(args, END_VERSION, args.optionalString(END_VERSION));
    String staging = nonBlank(args, STAGING_LOCATION, args.optionalString(STAGING_LOCATION));
    boolean createFileList = !Boolean.FALSE.equals(args.optionalBoolean(CREATE_FILE_LIST));
    return readTable(
        ident,
        table -> {
          TableMetadata current = ((HasTableOperations) table).operations().current();
          String endPath =
              endVersion == null
                  ? current.metadataFileLocation()
                  : version(args, END_VERSION, table, current, endVersion);
          String startPath =
              startVersion == null ? null : version(args, START_VERSION, table, current, startVersion);
          String stagingDir =
              staging != null
                  ? RewriteTablePathUtil.maybeAppendFileSeparator(staging)
                  : metadataFolder(current) + "copy-table-staging-" + UUID.randomUUID() + "/";
          TablePathTasks.Paths paths =
              new TablePathTasks.Paths(
                  sourcePrefix, targetPrefix, stagingDir, current.formatVersion());
          Plan plan = plan(args, table, paths, endPath, startPath);
          return new InternalRow[] {execute(table, plan, createFileList)};
        });
  }

  /** What the call rewrites, checked in full before anything is written. */
  private record Plan(
      TablePathTasks.Paths paths,
      String endPath,
      Map<String, TableMetadata> versions,
      List<Snapshot> snapshots,
      Set<Long> addedSnapshotIds,
      List<ManifestFile> manifests) {}

  private Plan plan(
      ProcedureArgs args, Table table, TablePathTasks.Paths paths, String endPath, String startPath) {
    FileIO io = table.io();
    TableMetadata end = TableMetadataParser.read(io, endPath);
    if (targetLocation(paths, end.location()) == null) {
      throw args.invalid(
          SOURCE_PREFIX,
          "is not a prefix of the location of table " + table.name() + ": " + end.location());
    }
    TableMetadata start = startPath == null ? null : TableMetadataParser.read(io, startPath);
    // the versions to rewrite: end_version and the ones before it, back to start_version
    Map<String, TableMetadata> versions = new LinkedHashMap<>();
    versions.put(endPath, end);
    boolean reachedStart = endPath.equals(startPath);
    for (int i = end.previousFiles().size() - 1; i >= 0 && !reachedStart; i--) {
      String previous = end.previousFiles().get(i).file();
      if (previous.equals(startPath)) {
        reachedStart = true;
      } else if (io.newInputFile(previous).exists()) {
        versions.put(previous, TableMetadataParser.read(io, previous));
      } else {
        throw failure(
            "the metadata file " + previous + " of table " + table.name() + " is in its metadata "
                + "log but no longer exists; give a start_version after it");
      }
    }
    if (startPath != null && !reachedStart) {
      throw args.invalid(
          START_VERSION, "is not a version before end_version " + fileName(endPath) + ": "
              + startPath);
    }
    Set<Long> startIds = new HashSet<>();
    if (start != null) {
      start.snapshots().forEach(snapshot -> startIds.add(snapshot.snapshotId()));
    }
    Set<Long> addedIds = new HashSet<>();
    for (Map.Entry<String, TableMetadata> version : versions.entrySet()) {
      requireUnder(paths, "metadata file", version.getKey());
      TableMetadata metadata = version.getValue();
      if (targetLocation(paths, metadata.location()) == null) {
        throw failure(
            "the location " + metadata.location() + " of metadata file " + version.getKey()
                + " is not under source_prefix " + paths.sourcePrefix() + "; nothing was written");
      }
      metadata.statisticsFiles().forEach(f -> requireUnder(paths, "statistics file", f.path()));
      metadata.partitionStatisticsFiles()
          .forEach(f -> requireUnder(paths, "partition statistics file", f.path()));
      metadata.snapshots().stream()
          .filter(snapshot -> !startIds.contains(snapshot.snapshotId()))
          .forEach(snapshot -> addedIds.add(snapshot.snapshotId()));
    }
    List<Snapshot> snapshots =
        end.snapshots().stream()
            .filter(snapshot -> !startIds.contains(snapshot.snapshotId()))
            .collect(Collectors.toList());
    Map<String, ManifestFile> manifests = new LinkedHashMap<>();
    for (Snapshot snapshot : snapshots) {
      requireUnder(paths, "manifest list", snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        requireUnder(paths, "manifest", manifest.path());
        if (start == null || addedIds.contains(manifest.snapshotId())) {
          manifests.putIfAbsent(manifest.path(), manifest.copy());
        }
      }
    }
    return new Plan(paths, endPath, versions, snapshots, addedIds, List.copyOf(manifests.values()));
  }

  private InternalRow execute(Table table, Plan plan, boolean createFileList) {
    TablePathTasks.Paths paths = plan.paths();
    FileIO io = table.io();
    Set<TablePathTasks.Copy> copies = new LinkedHashSet<>();
    List<String> written = new ArrayList<>();
    plan.manifests().forEach(manifest -> written.add(paths.staged(manifest.path())));
    SparkSession spark = context().spark();
    String jobGroup = NAME + "-" + UUID.randomUUID();
    spark.sparkContext().setJobGroup(jobGroup, qualifiedName() + " of " + table.name(), true);
    Table copy = SerializableTable.copyOf(table);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    try {
      refuseFilesOutsidePrefix(jsc, copy, plan);
    } catch (Exception e) {
      // also a failed Spark job's SparkException, which Spark throws undeclared
      spark.sparkContext().clearJobGroup();
      throw e;
    }
    try {
      for (Map.Entry<String, TableMetadata> version : plan.versions().entrySet()) {
        copies.addAll(rewriteVersion(io, paths, version.getKey(), version.getValue(), written));
      }
      Set<String> manifestPaths =
          plan.manifests().stream().map(ManifestFile::path).collect(Collectors.toSet());
      TableMetadata end = plan.versions().get(plan.endPath());
      for (Snapshot snapshot : plan.snapshots()) {
        String staged = paths.staged(snapshot.manifestListLocation());
        written.add(staged);
        RewriteTablePathUtil.rewriteManifestList(
                snapshot, io, end, manifestPaths, paths.sourcePrefix(), paths.targetPrefix(),
                paths.stagingDir(), staged)
            .copyPlan()
            .forEach(pair -> copies.add(TablePathTasks.Copy.of(pair)));
        copies.add(new TablePathTasks.Copy(staged, paths.target(snapshot.manifestListLocation())));
      }
      Map<String, DeleteFile> positionDeletes = new LinkedHashMap<>();
      if (!plan.manifests().isEmpty()) {
        for (TablePathTasks.Rewritten rewritten :
            jsc.parallelize(plan.manifests(), plan.manifests().size())
                .mapPartitions(
                    new TablePathTasks.RewriteManifests(copy, paths, plan.addedSnapshotIds()))
                .collect()) {
          copies.addAll(rewritten.copies());
          rewritten.positionDeletes().forEach(f -> positionDeletes.putIfAbsent(f.location(), f));
        }
      }
      LOG.info(
          "{}: rewrote {} metadata files, {} manifest lists and {} manifests of {}",
          qualifiedName(), plan.versions().size(), plan.snapshots().size(),
          plan.manifests().size(), table.name());
      positionDeletes.keySet().forEach(location -> written.add(paths.staged(location)));
      if (!positionDeletes.isEmpty()) {
        List<DeleteFile> files = new ArrayList<>(positionDeletes.values());
        jsc.parallelize(files, files.size())
            .mapPartitions(new TablePathTasks.RewritePositionDeletes(copy, paths))
            .collect();
        LOG.info("{}: rewrote {} position delete files of {}", qualifiedName(), files.size(), table.name());
      }
      String fileList = NO_FILE_LIST;
      if (createFileList) {
        fileList = paths.stagingDir() + FILE_LIST;
        written.add(fileList);
        writeFileList(io, fileList, copies);
      }
      return row(
          UTF8String.fromString(fileName(plan.endPath())),
          UTF8String.fromString(fileList),
          plan.manifests().size(),
          positionDeletes.size());
    } catch (Exception e) {
      // also a failed Spark job's SparkException, which Spark throws undeclared
      // tasks still running would write after the cleanup: stop them first
      spark.sparkContext().cancelJobGroup(jobGroup);
      deleteStaged(io, written);
      throw e;
    } finally {
      spark.sparkContext().clearJobGroup();
    }
  }

  /** Fails, before anything is written, when a manifest lists a file outside the source prefix. */
  private void refuseFilesOutsidePrefix(JavaSparkContext jsc, Table copy, Plan plan) {
    if (plan.manifests().isEmpty()) {
      return;
    }
    List<String> outside =
        jsc.parallelize(plan.manifests(), plan.manifests().size())
            .mapPartitions(new TablePathTasks.OutsidePrefix(copy, plan.paths().sourcePrefix()))
            .take(3);
    if (!outside.isEmpty()) {
      throw failure(
          "table " + copy.name() + " has files that are not under source_prefix "
              + plan.paths().sourcePrefix() + ", such as " + outside + "; nothing was written");
    }
  }

  /** Writes one version with its paths replaced; returns its copy plan and its statistics files'. */
  private List<TablePathTasks.Copy> rewriteVersion(
      FileIO io, TablePathTasks.Paths paths, String path, TableMetadata metadata, List<String> written) {
    TableMetadata rewritten =
        RewriteTablePathUtil.replacePaths(metadata, paths.sourcePrefix(), paths.targetPrefix());
    // Iceberg replaces the location as a regular expression and only where it is spelled as the
    // prefix is; a location spelled file:///x under a prefix file:/x (as Hadoop writes every
    // other path) is still the same folder, and is set here
    String location = targetLocation(paths, metadata.location());
    if (location == null) {
      throw failure(
          "the location " + metadata.location() + " of metadata file " + path
              + " is not under source_prefix " + paths.sourcePrefix());
    }
    if (!rewritten.location().equals(location)) {
      rewritten = TableMetadata.buildFrom(rewritten).setLocation(location).build();
    }
    String staged = paths.staged(path);
    written.add(staged);
    TableMetadataParser.overwrite(rewritten, io.newOutputFile(staged));
    List<TablePathTasks.Copy> copies = new ArrayList<>();
    copies.add(new TablePathTasks.Copy(staged, paths.target(path)));
    for (StatisticsFile file : metadata.statisticsFiles()) {
      copies.add(new TablePathTasks.Copy(file.path(), paths.target(file.path())));
    }
    for (PartitionStatisticsFile file : metadata.partitionStatisticsFiles()) {
      copies.add(new TablePathTasks.Copy(file.path(), paths.target(file.path())));
    }
    return copies;
  }

  private static void writeFileList(FileIO io, String location, Set<TablePathTasks.Copy> copies) {
    try (BufferedWriter writer =
        new BufferedWriter(
            new OutputStreamWriter(
                io.newOutputFile(location).createOrOverwrite(), StandardCharsets.UTF_8))) {
      for (TablePathTasks.Copy copy : copies) {
        writer.write(copy.source() + "," + copy.target());
        writer.newLine();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the file list " + location, e);
    }
  }

  /** Deletes what a failed call staged; a file that was never written is skipped. */
  private void deleteStaged(FileIO io, List<String> written) {
    for (String location : written) {
      try {
        if (io.newInputFile(location).exists()) {
          io.deleteFile(location);
        }
      } catch (RuntimeException e) {
        LOG.warn("{}: cannot delete staged file {} after the failure", qualifiedName(), location, e);
      }
    }
  }

  /** The metadata file a version argument names, by file name or by full path. */
  private String version(
      ProcedureArgs args, ProcedureParameter parameter, Table table, TableMetadata current, String name) {
    String found = null;
    if (matches(current.metadataFileLocation(), name)) {
      found = current.metadataFileLocation();
    }
    for (TableMetadata.MetadataLogEntry entry : current.previousFiles()) {
      if (found == null && matches(entry.file(), name)) {
        found = entry.file();
      }
    }
    if (found == null) {
      throw args.invalid(
          parameter, "names no metadata file in the metadata log of table " + table.name() + ": " + name);
    }
    if (!table.io().newInputFile(found).exists()) {
      throw args.invalid(parameter, "names a metadata file that no longer exists: " + found);
    }
    return found;
  }

  private static boolean matches(String path, String name) {
    return path.equals(name) || fileName(path).equals(name);
  }

  private void requireUnder(TablePathTasks.Paths paths, String what, String path) {
    if (!under(path, paths.sourcePrefix())) {
      throw failure(
          "the " + what + " " + path + " is not under source_prefix " + paths.sourcePrefix()
              + "; nothing was written");
    }
  }

  /**
   * The table location under the target prefix, or null when it is not under the source prefix.
   * The location is compared as Hadoop normalizes paths, since catalogs keep it as it was given
   * ({@code file:///x}) while files are named as Hadoop prints them ({@code file:/x}).
   */
  private static String targetLocation(TablePathTasks.Paths paths, String location) {
    if (under(location, paths.sourcePrefix())) {
      return paths.target(location);
    }
    String normalized = new org.apache.hadoop.fs.Path(location).toString();
    String prefix = new org.apache.hadoop.fs.Path(paths.sourcePrefix()).toString();
    if (!under(normalized, prefix)) {
      return null;
    }
    return RewriteTablePathUtil.newPath(normalized, prefix, paths.targetPrefix());
  }

  private static boolean under(String path, String prefix) {
    return RewriteTablePathUtil.maybeAppendFileSeparator(path)
        .startsWith(RewriteTablePathUtil.maybeAppendFileSeparator(prefix));
  }

  private static String fileName(String path) {
    return RewriteTablePathUtil.fileName(path);
  }

  private static String metadataFolder(TableMetadata current) {
    String location = current.metadataFileLocation();
    return location.substring(0, location.lastIndexOf('/') + 1);
  }

  private static String nonBlank(ProcedureArgs args, ProcedureParameter parameter, String value) {
    if (value != null && value.isBlank()) {
      throw args.invalid(parameter, "is empty");
    }
    return value;
  }
}
