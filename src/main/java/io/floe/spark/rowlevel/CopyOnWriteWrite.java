package io.floe.spark.rowlevel;

import io.floe.spark.write.DistributedWrite;
import io.floe.spark.write.WriteContext;
import io.floe.spark.write.exec.RowLineageSource;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.distributions.ClusteredDistribution;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;

/**
 * The write of a copy-on-write operation (Spark's ReplaceData): the rows that stay are written
 * with the distribution of the command's mode and the insert's ordering ({@link
 * CopyOnWriteDistribution}), and committed by {@link CopyOnWriteBatchWrite}.
 */
final class CopyOnWriteWrite extends DistributedWrite {
  private final WriteContext context;
  private final Command command;
  private final CopyOnWriteScan scan;
  private final IsolationLevel isolationLevel;
  private final RowLineageSource lineage;

  /**
   * @param lineage where the row lineage of a format v3 table comes from, or null for v2
   */
  CopyOnWriteWrite(
      WriteContext context,
      Command command,
      CopyOnWriteScan scan,
      IsolationLevel isolationLevel,
      RowLineageSource lineage) {
    super(
        CopyOnWriteDistribution.of(
            Objects.requireNonNull(context, "context is null"),
            Objects.requireNonNull(command, "command is null"),
            scan));
    this.context = context;
    this.command = Objects.requireNonNull(command, "command is null");
    this.scan = scan;
    this.isolationLevel = Objects.requireNonNull(isolationLevel, "isolationLevel is null");
    this.lineage = lineage;
  }

  @Override
  public String description() {
    return "Floe copy-on-write " + command + " of " + context.tableName() + " [isolation "
        + RowLevelIsolation.name(isolationLevel) + ", commit id " + context.commitId() + "]";
  }

  /**
   * The in-place rewrite of an UPDATE in hash mode whose scan kept the written spec's partitions
   * apart, or empty for any other write.
   */
  Optional<InPlaceRewrite> inPlaceUpdate() {
    PartitionSpec spec = context.spec();
    if (command != Command.UPDATE
        || !(requiredDistribution() instanceof ClusteredDistribution)
        || scan == null
        || !scan.keepsPartitionsApart(spec)) {
      return Optional.empty();
    }
    Schema schema = context.schema();
    Map<Integer, Integer> parents = TypeUtil.indexParents(schema.asStruct());
    Set<String> columns = new LinkedHashSet<>();
    for (PartitionField field : spec.fields()) {
      int id = field.sourceId();
      while (parents.containsKey(id)) {
        id = parents.get(id);
      }
      Types.NestedField column = schema.findField(id);
      if (column == null) {
        return Optional.empty();
      }
      columns.add(column.name());
    }
    return Optional.of(new InPlaceRewrite(scan, List.copyOf(columns)));
  }

  @Override
  public BatchWrite toBatch() {
    return new CopyOnWriteBatchWrite(
        context, command, scan, isolationLevel, commitStats(), lineage);
  }

  @Override
  public String toString() {
    return description();
  }
}
