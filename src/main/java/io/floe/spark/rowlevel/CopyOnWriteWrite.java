package io.floe.spark.rowlevel;

import io.floe.spark.write.DistributedWrite;
import io.floe.spark.write.WriteContext;
import io.floe.spark.write.exec.RowLineageSource;
import java.util.Objects;
import org.apache.iceberg.IsolationLevel;
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
            Objects.requireNonNull(command, "command is null")));
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
