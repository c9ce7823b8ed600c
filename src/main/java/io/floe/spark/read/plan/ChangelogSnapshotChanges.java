package io.floe.spark.read.plan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.expressions.ResidualEvaluator;

/**
 * The change tasks of one snapshot of a changelog ({@link ChangelogPlanner} states the rules):
 * from the data and delete files the snapshot added and removed, and, when its changes depend on
 * delete files, the files live at it and at its parent ({@link ChangelogLiveFiles}). Files the
 * changelog's filter rules out (by partition or column bounds) are passed over.
 */
final class ChangelogSnapshotChanges {
  private final Table table;
  private final Expression filter;
  private final boolean caseSensitive;
  private final String schemaJson;
  private final ChangelogLiveFiles live;
  private final InclusiveMetricsEvaluator metrics;
  private final Map<Integer, Evaluator> partitions = new HashMap<>();

  ChangelogSnapshotChanges(Table table, String name, Expression filter, boolean caseSensitive) {
    this.table = table;
    this.filter = filter;
    this.caseSensitive = caseSensitive;
    this.schemaJson = SchemaParser.toJson(table.schema());
    this.live = new ChangelogLiveFiles(table, name);
    this.metrics = new InclusiveMetricsEvaluator(table.schema(), filter, caseSensitive);
  }

  /** How many snapshots were planned for their delete files. */
  int scans() {
    return live.scans();
  }

  /** The change tasks of the snapshot, at the given ordinal. */
  List<ChangeTask> plan(Snapshot snapshot, int ordinal) {
    long id = snapshot.snapshotId();
    Snapshot parent = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    Set<String> addedDeletes = new HashSet<>();
    for (DeleteFile delete : snapshot.addedDeleteFiles(table.io())) {
      addedDeletes.add(key(delete));
    }
    List<ChangeTask> tasks = new ArrayList<>();
    Set<String> added = new HashSet<>();
    for (DataFile file : snapshot.addedDataFiles(table.io())) {
      added.add(file.location());
      if (matches(file)) {
        // only deletes committed with the file can apply to it: older ones have lower sequence
        // numbers, and compactions, which add files with older ones, are not read
        List<DeleteFile> after =
            addedDeletes.isEmpty() ? List.of() : live.deletes(snapshot, file.location());
        tasks.add(new ChangeTask(task(file, after), ChangeTask.INSERT, ordinal, id));
      }
    }
    for (DataFile file : snapshot.removedDataFiles(table.io())) {
      if (matches(file)) {
        List<DeleteFile> before = live.deletes(parent, file.location());
        tasks.add(new ChangeTask(task(file, before), ChangeTask.DELETE, ordinal, id));
      }
    }
    if (!addedDeletes.isEmpty()) {
      for (FileScanTask kept : live.files(snapshot).values()) {
        DataFile file = kept.file();
        if (added.contains(file.location()) || !deletedBy(kept, addedDeletes) || !matches(file)) {
          continue;
        }
        // every position delete live after the snapshot (a replacing deletion vector holds the
        // older positions too, which the deletes before it already removed), and the equality
        // deletes it added: older ones already apply to the rows live before it
        List<DeleteFile> after = new ArrayList<>();
        for (DeleteFile delete : kept.deletes()) {
          if (delete.content() == FileContent.POSITION_DELETES
              || addedDeletes.contains(key(delete))) {
            after.add(delete);
          }
        }
        List<DeleteFile> before = live.deletes(parent, file.location());
        tasks.add(new ChangeTask(task(file, before), ChangeTask.DELETE, ordinal, id, after));
      }
    }
    return tasks;
  }

  private static boolean deletedBy(FileScanTask task, Set<String> deletes) {
    for (DeleteFile delete : task.deletes()) {
      if (deletes.contains(key(delete))) {
        return true;
      }
    }
    return false;
  }

  /** A delete file's identity: deletion vectors of many data files share one Puffin file. */
  private static String key(DeleteFile delete) {
    return delete.location() + "#" + delete.contentOffset();
  }

  private boolean matches(DataFile file) {
    Evaluator partition =
        partitions.computeIfAbsent(
            file.specId(),
            specId -> {
              PartitionSpec spec = table.specs().get(specId);
              return new Evaluator(
                  spec.partitionType(),
                  Projections.inclusive(spec, caseSensitive).project(filter),
                  caseSensitive);
            });
    return partition.eval(file.partition()) && metrics.eval(file);
  }

  private FileScanTask task(DataFile file, List<DeleteFile> deletes) {
    PartitionSpec spec = table.specs().get(file.specId());
    return new BaseFileScanTask(
        file,
        deletes.toArray(new DeleteFile[0]),
        schemaJson,
        PartitionSpecParser.toJson(spec),
        ResidualEvaluator.of(spec, filter, caseSensitive));
  }
}
