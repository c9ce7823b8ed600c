package io.floe.spark.read.plan;

import io.floe.spark.util.Identifiers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.types.TypeUtil;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;

/**
 * Runtime filtering of a planned scan: which columns a runtime filter may name (the source columns
 * of the partition fields of the planned tasks, and the data columns whose file bounds the planner
 * found and trusts), and the groups left once tasks that cannot match the filter are dropped.
 *
 * <p>A task is kept unless the inclusive projection of the filter onto its spec rejects its
 * partition, or the bounds and counts of its file's data columns rule the filter out ({@link
 * ColumnBoundsFilter}), so a kept task may still hold no matching row but a dropped one never holds
 * one. A kept task carries the data-column part of the filter into its residual ({@link
 * RuntimeFilteredTask}), so the reader skips the row groups whose statistics rule it out.
 * Balanced groups are packed again from the remaining tasks, to the scan's split size. Groups
 * that promise a partition key or an ordering keep their tasks in place instead (a subset of an
 * ordered, single-key group is still ordered and single-key), and groups left empty are dropped.
 */
public final class RuntimeFilters {
  private RuntimeFilters() {}

  /**
   * Source columns of the partition fields of the planned tasks, then the data columns of {@code
   * dataColumns} that {@code reportedSchema} holds, as Spark names them.
   *
   * @param dataColumns field ids of the data columns whose file bounds a runtime filter may use
   */
  public static NamedReference[] attributes(
      List<TaskGroup> partitions, Schema reportedSchema, Set<Integer> dataColumns) {
    Map<Integer, String> quotedNames =
        TypeUtil.indexQuotedNameById(reportedSchema.asStruct(), Identifiers::quote);
    Set<Integer> specs = new LinkedHashSet<>();
    Set<String> columns = new LinkedHashSet<>();
    for (TaskGroup partition : partitions) {
      for (FileScanTask task : fileTasks(partition)) {
        if (task.isDataTask() || !specs.add(task.spec().specId())) {
          continue;
        }
        for (PartitionField field : task.spec().fields()) {
          String name = quotedNames.get(field.sourceId());
          if (name != null && !field.transform().isVoid()) {
            columns.add(name);
          }
        }
      }
    }
    for (int fieldId : dataColumns) {
      String name = quotedNames.get(fieldId);
      if (name != null) {
        columns.add(name);
      }
    }
    return columns.stream().map(Expressions::column).toArray(NamedReference[]::new);
  }

  /**
   * The groups of {@code partitions} without the tasks the filter rules out.
   *
   * @param filter the runtime filter over {@code reportedSchema}
   * @param dataColumns field ids of the data columns whose file bounds the filter may use
   */
  public static List<TaskGroup> apply(
      List<TaskGroup> partitions,
      Expression filter,
      Schema reportedSchema,
      Set<Integer> dataColumns,
      boolean caseSensitive,
      ScanLayout layout,
      long openFileCost) {
    Optional<ColumnBoundsFilter> bounds =
        ColumnBoundsFilter.of(filter, reportedSchema, dataColumns, caseSensitive);
    Map<Integer, Optional<Evaluator>> evaluators = new HashMap<>();
    List<List<FileScanTask>> kept = new ArrayList<>();
    List<TaskGroup> keptPartitions = new ArrayList<>();
    for (TaskGroup partition : partitions) {
      List<FileScanTask> tasks = new ArrayList<>();
      for (FileScanTask task : fileTasks(partition)) {
        Optional<Evaluator> evaluator =
            evaluators.computeIfAbsent(
                task.spec().specId(),
                id -> evaluator(task, filter, reportedSchema, caseSensitive));
        if (task.isDataTask()) {
          tasks.add(task);
        } else if ((evaluator.isEmpty() || evaluator.get().eval(task.file().partition()))
            && (bounds.isEmpty() || bounds.get().mayMatch(task.file()))) {
          tasks.add(
              bounds.isEmpty()
                  ? task
                  : new RuntimeFilteredTask(task, bounds.get().forRowGroups(task.file())));
        }
      }
      if (!tasks.isEmpty()) {
        kept.add(tasks);
        keptPartitions.add(partition);
      }
    }

    List<TaskGroup> result = new ArrayList<>();
    if (layout.keyGrouped() || !layout.ordering().isEmpty()) {
      for (int pos = 0; pos < kept.size(); pos++) {
        result.add(TaskGroup.of(kept.get(pos), keptPartitions.get(pos).partitionKey()));
      }
      return result;
    }
    List<FileScanTask> remaining = new ArrayList<>();
    kept.forEach(remaining::addAll);
    for (List<FileScanTask> group :
        TaskGrouping.balance(
            remaining, layout.splitSize(), openFileCost, TaskGrouping.TASK_ORDER)) {
      result.add(TaskGroup.of(group));
    }
    return result;
  }

  /**
   * An evaluator of the filter's inclusive projection over the task's partition tuples, or empty
   * when the filter cannot be carried into the names of the task's schema.
   */
  private static Optional<Evaluator> evaluator(
      FileScanTask task, Expression filter, Schema reportedSchema, boolean caseSensitive) {
    if (task.isDataTask()) {
      return Optional.empty();
    }
    PartitionSpec spec = task.spec();
    Optional<Expression> inTaskNames =
        FilterNames.sameNames(reportedSchema, spec.schema())
            ? Optional.of(filter)
            : FilterNames.translate(filter, reportedSchema, spec.schema(), caseSensitive);
    if (inTaskNames.isEmpty()) {
      return Optional.empty();
    }
    try {
      Expression projected = Projections.inclusive(spec, caseSensitive).project(inTaskNames.get());
      return Optional.of(new Evaluator(spec.partitionType(), projected, caseSensitive));
    } catch (RuntimeException e) {
      // a filter that Iceberg cannot project prunes nothing; Spark still applies it to the rows
      return Optional.empty();
    }
  }

  /** The file tasks of a group; a runtime filter applies to file tasks only. */
  private static List<FileScanTask> fileTasks(TaskGroup group) {
    List<FileScanTask> tasks = new ArrayList<>(group.tasks().size());
    for (ScanTask task : group.tasks()) {
      if (task.isFileScanTask()) {
        tasks.add(task.asFileScanTask());
      }
    }
    return tasks;
  }

}
