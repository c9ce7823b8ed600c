package io.floe.spark.procedures;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.lower;
import static org.apache.spark.sql.functions.max;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.DeleteOrphanFiles.PrefixMismatchMode;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Finds a table's orphan files: files under a location, modified before a cut-off, that no
 * snapshot, manifest list, manifest, metadata file, statistics file or version hint of the table
 * references. Both sides are Spark jobs, so neither the listing nor the set of referenced files
 * has to fit the driver: the referenced content files are read from every retained snapshot's
 * manifests by executors, and directories below the first few levels are listed by executors with
 * Hadoop's file system (or the table's FileIO lists by prefix on the driver, with {@code
 * prefix_listing}, or a caller's view of files replaces the listing).
 *
 * <p>Files are compared by path; where a referenced file has the same path but another scheme or
 * authority (after {@code equal_schemes} and {@code equal_authorities}), the prefix mismatch mode
 * decides: {@code error} (the default) fails naming the conflicts, {@code ignore} keeps the file,
 * {@code delete} treats it as an orphan.
 */
final class OrphanFiles {
  private static final int DRIVER_LISTING_DEPTH = 3;
  private static final int DRIVER_LISTING_MAX_DIRECTORIES = 10;
  private static final StructType PARTS =
      new StructType()
          .add("path", DataTypes.StringType)
          .add("scheme", DataTypes.StringType)
          .add("authority", DataTypes.StringType)
          .add("location", DataTypes.StringType);

  private final SparkSession spark;
  private final Table table;
  private final String procedure;

  OrphanFiles(SparkSession spark, Table table, String procedure) {
    this.spark = Objects.requireNonNull(spark, "spark is null");
    this.table = Objects.requireNonNull(table, "table is null");
    this.procedure = Objects.requireNonNull(procedure, "procedure is null");
  }

  /** Where the candidate files come from. */
  record Listing(String location, long olderThanMillis, Dataset<Row> fileList, boolean byPrefix) {}

  /**
   * The orphan files' locations, sorted.
   *
   * @throws IllegalStateException under prefix mismatch mode {@code error} when a listed file
   *     matches a referenced one by path only
   */
  List<String> find(
      Listing listing,
      Map<String, String> equalSchemes,
      Map<String, String> equalAuthorities,
      PrefixMismatchMode mode) {
    OrphanFileTasks.UriParts parts = new OrphanFileTasks.UriParts(equalSchemes, equalAuthorities);
    Dataset<Row> actual = spark.createDataFrame(listed(listing).map(parts), PARTS);
    Dataset<Row> valid =
        spark
            .createDataFrame(referenced().map(parts), PARTS)
            .select(
                col("path").as("v_path"), col("scheme").as("v_scheme"),
                col("authority").as("v_authority"))
            .distinct();
    Column samePath = col("v_path").isNotNull();
    Column sameScheme =
        col("v_scheme").isNull().or(col("v_scheme").equalTo(lit("")))
            .or(lower(col("v_scheme")).equalTo(lower(col("scheme"))));
    Column sameAuthority =
        col("v_authority").isNull().or(col("v_authority").equalTo(lit("")))
            .or(lower(col("v_authority")).equalTo(lower(col("authority"))));
    Dataset<Row> judged =
        actual
            .join(valid, col("path").equalTo(col("v_path")), "left_outer")
            .groupBy(col("location"))
            .agg(
                max(samePath.cast("int")).as("path_referenced"),
                max(samePath.and(sameScheme).and(sameAuthority).cast("int")).as("referenced"))
            .cache();
    try {
      if (mode == PrefixMismatchMode.ERROR) {
        List<Row> conflicts =
            judged.where("path_referenced = 1 AND referenced = 0").select("location").limit(10)
                .collectAsList();
        if (!conflicts.isEmpty()) {
          List<String> names = new ArrayList<>();
          conflicts.forEach(row -> names.add(row.getString(0)));
          throw new IllegalStateException(
              "Cannot call " + procedure + ": cannot tell whether some files of " + table.name()
                  + " are orphans: the table references files with the same path but another "
                  + "scheme or authority, such as " + names + ". Say which schemes and "
                  + "authorities are equal with equal_schemes and equal_authorities, or set "
                  + "prefix_mismatch_mode to 'ignore' to keep such files ('delete' removes them, "
                  + "only if you are sure they are different files)");
        }
      }
      String orphan =
          mode == PrefixMismatchMode.DELETE ? "referenced = 0" : "path_referenced = 0";
      List<String> orphans = new ArrayList<>();
      judged.where(orphan).select("location").orderBy("location").collectAsList()
          .forEach(row -> orphans.add(row.getString(0)));
      return orphans;
    } finally {
      judged.unpersist();
    }
  }

  /** Every location the table's metadata references, content files read by executors. */
  private JavaRDD<String> referenced() {
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Set<String> metadata = new HashSet<>();
    Map<String, ManifestFile> manifests = new HashMap<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        metadata.add(snapshot.manifestListLocation());
      }
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        manifests.putIfAbsent(manifest.path(), manifest.copy());
      }
    }
    metadata.addAll(manifests.keySet());
    metadata.addAll(ReachableFileUtil.metadataFileLocations(table, false));
    metadata.addAll(ReachableFileUtil.statisticsFilesLocations(table));
    for (PartitionStatisticsFile file : table.partitionStatisticsFiles()) {
      metadata.add(file.path());
    }
    metadata.add(ReachableFileUtil.versionHintLocation(table));
    Table copy = SerializableTable.copyOf(table);
    JavaRDD<String> content =
        context
            .parallelize(new ArrayList<>(manifests.values()), partitions(manifests.size()))
            .flatMap(new OrphanFileTasks.ManifestPaths(copy.io(), copy.specs()));
    return content.union(context.parallelize(new ArrayList<>(metadata), 1));
  }

  /** The locations of the candidate files: visible, and modified before the cut-off. */
  private JavaRDD<String> listed(Listing listing) {
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    if (listing.fileList() != null) {
      return listing.fileList()
          .where(col("last_modified").lt(lit(new java.sql.Timestamp(listing.olderThanMillis()))))
          .select("file_path")
          .javaRDD()
          .map(row -> row.getString(0));
    }
    if (listing.byPrefix()) {
      if (!(table.io() instanceof SupportsPrefixOperations)) {
        throw new IllegalArgumentException(
            "Cannot call " + procedure + ": prefix_listing needs a FileIO that lists by prefix, "
                + "and " + table.name() + " uses " + table.io().getClass().getName());
      }
      List<String> files = new ArrayList<>();
      String prefix = listing.location().endsWith("/") ? listing.location() : listing.location() + "/";
      for (FileInfo file : ((SupportsPrefixOperations) table.io()).listPrefix(prefix)) {
        if (file.createdAtMillis() < listing.olderThanMillis()
            && !hiddenBelow(prefix, file.location())) {
          files.add(file.location());
        }
      }
      return context.parallelize(files, partitions(files.size()));
    }
    Configuration conf = spark.sessionState().newHadoopConf();
    List<String> files = new ArrayList<>();
    List<String> frontier = new ArrayList<>(List.of(listing.location()));
    try {
      for (int depth = 0;
          depth < DRIVER_LISTING_DEPTH
              && !frontier.isEmpty()
              && frontier.size() <= DRIVER_LISTING_MAX_DIRECTORIES;
          depth++) {
        List<String> next = new ArrayList<>();
        for (String directory : frontier) {
          Path path = new Path(directory);
          FileSystem fs = path.getFileSystem(conf);
          FileStatus[] statuses;
          try {
            statuses = fs.listStatus(path);
          } catch (FileNotFoundException e) {
            continue;
          }
          for (FileStatus status : statuses) {
            if (OrphanFileTasks.hidden(status.getPath().getName())) {
              continue;
            }
            if (status.isDirectory()) {
              next.add(status.getPath().toString());
            } else if (status.getModificationTime() < listing.olderThanMillis()) {
              files.add(status.getPath().toString());
            }
          }
        }
        frontier = next;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + listing.location(), e);
    }
    JavaRDD<String> driverListed = context.parallelize(files, 1);
    if (frontier.isEmpty()) {
      return driverListed;
    }
    JavaRDD<String> executorListed =
        context
            .parallelize(frontier, partitions(frontier.size()))
            .flatMap(
                new OrphanFileTasks.ListDirectory(
                    new SerializableConfiguration(conf), listing.olderThanMillis()));
    return driverListed.union(executorListed);
  }

  private static boolean hiddenBelow(String prefix, String location) {
    String relative = location.startsWith(prefix) ? location.substring(prefix.length()) : location;
    for (String name : relative.split("/")) {
      if (OrphanFileTasks.hidden(name)) {
        return true;
      }
    }
    return false;
  }

  private int partitions(int items) {
    int parallelism = spark.sparkContext().defaultParallelism();
    return Math.max(1, Math.min(items, parallelism * 4));
  }
}
