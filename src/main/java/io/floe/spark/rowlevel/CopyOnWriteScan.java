package io.floe.spark.rowlevel;

import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ScanPlanShare;
import io.floe.spark.read.exec.FileKeyColumn;
import io.floe.spark.read.plan.PartitionGroups;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.DataFileSet;
import org.apache.iceberg.util.DeleteFileSet;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read side of a copy-on-write DELETE, UPDATE or MERGE: Floe's scan of one snapshot, every row
 * of every file it reads (with {@code _file} and {@code _pos}), narrowed at run time to the files
 * Spark's row-level group filter names ({@code _file IN (...)}, or for a MERGE {@code
 * _floe_file_key IN (...)}: see {@link FileKeyColumn}). The files it reads in the end are the files
 * the operation's commit removes.
 *
 * <p>Spark may run both sides of a rewritten UPDATE (a union of two reads of this one scan) at the
 * same time, and each side applies the group filter to it. The filter is therefore applied once,
 * under a lock, to an immutable plan, and published as one immutable value: every side reads the
 * same files, and the commit removes exactly those. A second filter naming other files (which
 * would make the sides read different files) fails the statement instead of changing what the
 * first side reads.
 */
final class CopyOnWriteScan implements SupportsRuntimeV2Filtering, SupportsReportStatistics {
  private static final Logger LOG = LoggerFactory.getLogger(CopyOnWriteScan.class);
  private static final NamedReference FILE = Expressions.column(MetadataColumns.FILE_PATH.name());
  private static final NamedReference FILE_KEY = Expressions.column(FileKeyColumn.NAME);

  private final String tableName;
  private final FloeScan planned;
  private final Expression filter;
  private final ScanPlanShare plans;
  private final boolean keyedFiles;
  private final Object lock = new Object();
  private volatile FloeScan current;
  private Set<String> runtimeFiles;

  /**
   * @param planned the scan of the files of the snapshot the condition may match, without
   *     residual filters
   * @param filter the operation's condition as pushed (a superset of the rows it changes); the
   *     commit's conflict-detection filter
   * @param plans where {@code planned} was offered to the scan of Spark's group filter, or null
   * @param keyedFiles whether Spark's group filter names the files by {@link FileKeyColumn} (a
   *     MERGE, which then carries no {@code _file}) rather than by {@code _file}
   */
  CopyOnWriteScan(
      String tableName,
      FloeScan planned,
      Expression filter,
      ScanPlanShare plans,
      boolean keyedFiles) {
    this.plans = plans;
    this.keyedFiles = keyedFiles;
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
    this.filter = Objects.requireNonNull(filter, "filter is null");
    this.planned = Objects.requireNonNull(planned, "planned is null");
    this.current = planned;
  }

  /** The snapshot read, or null for a table without one. */
  Long snapshotId() {
    return planned.snapshotId();
  }

  /**
   * Withdraws the plan offered to the group filter's scan, if that scan did not take it: once the
   * runtime filter arrived or the operation ended, no scan of this statement needs it.
   */
  void releasePlan() {
    if (plans != null) {
      plans.withdraw(planned);
    }
  }

  /**
   * Whether rows that keep their partition in {@code spec} can be written by the tasks that read
   * them, one file per partition, without a shuffle: the spec is unpartitioned, or the planned
   * groups read only files of it and each partition's files in one group.
   */
  boolean keepsPartitionsApart(PartitionSpec spec) {
    if (spec.isUnpartitioned()) {
      return true;
    }
    List<List<FileScanTask>> groups = new ArrayList<>();
    for (FloeInputPartition partition : planned.partitions()) {
      List<FileScanTask> tasks = new ArrayList<>();
      for (ScanTask task : partition.tasks()) {
        if (!task.isFileScanTask()) {
          return false;
        }
        tasks.add(task.asFileScanTask());
      }
      groups.add(tasks);
    }
    return PartitionGroups.apart(groups, spec.specId());
  }

  /** The condition the scan was planned with, for conflict detection. */
  Expression filter() {
    return filter;
  }

  /** The data files the scan reads now, each once. */
  List<DataFile> readFiles() {
    DataFileSet files = DataFileSet.create();
    for (FileScanTask task : fileTasks(current)) {
      files.add(task.file());
    }
    return List.copyOf(files);
  }

  /**
   * The delete files that apply to the read files only (deletion vectors and file-scoped position
   * deletes): once the files are rewritten they point at nothing and leave with them.
   */
  List<DeleteFile> fileScopedDeletes() {
    DeleteFileSet deletes = DeleteFileSet.create();
    for (FileScanTask task : fileTasks(current)) {
      for (DeleteFile delete : task.deletes()) {
        if (delete.content() == FileContent.POSITION_DELETES
            && ContentFileUtil.isFileScoped(delete)) {
          deletes.add(delete);
        }
      }
    }
    return List.copyOf(deletes);
  }

  @Override
  public StructType readSchema() {
    return planned.readSchema();
  }

  @Override
  public Batch toBatch() {
    return current.toBatch();
  }

  @Override
  public Statistics estimateStatistics() {
    return current.estimateStatistics();
  }

  @Override
  public NamedReference[] filterAttributes() {
    return new NamedReference[] {keyedFiles ? FILE_KEY : FILE};
  }

  @Override
  public void filter(Predicate[] predicates) {
    releasePlan();
    Set<String> files = null;
    for (Predicate predicate : predicates) {
      Optional<Set<String>> named = fileLocations(predicate, planned);
      if (named.isEmpty()) {
        // reading more files than the filter asks is safe: their rows are copied unchanged
        LOG.warn("Ignoring runtime filter {} on the copy-on-write scan of {}", predicate, tableName);
        continue;
      }
      if (files == null) {
        files = new HashSet<>(named.get());
      } else {
        files.retainAll(named.get());
      }
    }
    if (files == null) {
      return;
    }
    synchronized (lock) {
      if (runtimeFiles != null) {
        if (!runtimeFiles.equals(files)) {
          throw new IllegalStateException(
              "Cannot filter the copy-on-write scan of " + tableName + " to " + files.size()
                  + " files: it was filtered to another " + runtimeFiles.size()
                  + " files before, and its readers must all read the same files");
        }
        return;
      }
      runtimeFiles = Set.copyOf(files);
      FloeScan narrowed = narrow(planned, runtimeFiles);
      LOG.info(
          "Copy-on-write scan of {}: {} of {} data files hold rows the operation changes",
          tableName, distinctFiles(narrowed), distinctFiles(planned));
      current = narrowed;
    }
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return planned.supportedCustomMetrics();
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    return current.reportDriverMetrics();
  }

  @Override
  public String description() {
    FloeScan scan = current;
    return String.format(
        "Floe copy-on-write %s [snapshot=%s, filter=%s, files=%d of %d planned]",
        tableName, scan.snapshotId() == null ? "none" : scan.snapshotId(), filter,
        distinctFiles(scan), distinctFiles(planned));
  }

  @Override
  public String toString() {
    return description();
  }

  /**
   * The file locations a runtime filter keeps: {@code _file IN (...)}, {@code _file = ...}, the
   * same of {@code _floe_file_key} (the planned files whose keys it names), or none for {@code
   * ALWAYS_FALSE}; empty for any other predicate.
   */
  private static Optional<Set<String>> fileLocations(Predicate predicate, FloeScan planned) {
    if ("ALWAYS_FALSE".equals(predicate.name())) {
      return Optional.of(Set.of());
    }
    if (!"IN".equals(predicate.name()) && !"=".equals(predicate.name())) {
      return Optional.empty();
    }
    var children = predicate.children();
    if (children.length < 1
        || !(children[0] instanceof NamedReference ref)
        || ref.fieldNames().length != 1) {
      return Optional.empty();
    }
    boolean byKey = ref.fieldNames()[0].equalsIgnoreCase(FileKeyColumn.NAME);
    if (!byKey && !ref.fieldNames()[0].equalsIgnoreCase(MetadataColumns.FILE_PATH.name())) {
      return Optional.empty();
    }
    Set<Object> values = new HashSet<>();
    for (int i = 1; i < children.length; i += 1) {
      if (!(children[i] instanceof Literal<?> literal)) {
        return Optional.empty();
      }
      if (literal.value() != null) {
        values.add(byKey ? literal.value() : literal.value().toString());
      }
    }
    Set<String> locations = new TreeSet<>();
    if (!byKey) {
      values.forEach(value -> locations.add((String) value));
      return Optional.of(locations);
    }
    for (FileScanTask task : fileTasks(planned)) {
      String location = task.file().location();
      if (values.contains(FileKeyColumn.of(location))) {
        locations.add(location);
      }
    }
    return Optional.of(locations);
  }

  /** The scan reading only the tasks of the given files, in the planned groups and order. */
  private static FloeScan narrow(FloeScan scan, Set<String> files) {
    List<FloeInputPartition> kept = new ArrayList<>();
    for (FloeInputPartition partition : scan.partitions()) {
      List<ScanTask> tasks = new ArrayList<>();
      for (ScanTask task : partition.tasks()) {
        if (task.isFileScanTask() && files.contains(task.asFileScanTask().file().location())) {
          tasks.add(task);
        }
      }
      if (!tasks.isEmpty()) {
        kept.add(new FloeInputPartition(kept.size(), tasks, partition.partitionKey()));
      }
    }
    return new FloeScan(
        scan.tableName(), scan.metadataLocation(), scan.snapshotId(), scan.io(),
        scan.tableSchema(), scan.projectedSchema(), scan.filter(), kept, scan.options(),
        scan.layout(), scan.metrics());
  }

  private static List<FileScanTask> fileTasks(FloeScan scan) {
    List<FileScanTask> tasks = new ArrayList<>();
    for (FloeInputPartition partition : scan.partitions()) {
      for (ScanTask task : partition.tasks()) {
        if (task.isFileScanTask()) {
          tasks.add(task.asFileScanTask());
        }
      }
    }
    return tasks;
  }

  private static int distinctFiles(FloeScan scan) {
    Set<String> files = new HashSet<>();
    fileTasks(scan).forEach(task -> files.add(task.file().location()));
    return files.size();
  }
}
