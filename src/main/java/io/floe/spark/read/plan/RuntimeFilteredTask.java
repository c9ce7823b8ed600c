package io.floe.spark.read.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * A planned file task that a runtime filter kept, with the part of that filter its row groups may
 * be pruned by added to its residual. It reads exactly what the planned task reads, less the row
 * groups whose statistics rule the added filter out; Spark filters every row again after the scan,
 * so the residual only ever skips row groups, never decides a row.
 *
 * <p>It is a plain serializable value shipped inside an input partition, like the task it wraps.
 */
public final class RuntimeFilteredTask implements FileScanTask {
  private final FileScanTask planned;
  private final Expression runtime;

  /**
   * @param planned the task as planned
   * @param runtime the runtime filter for the task's row groups, over the scan's schema
   */
  public RuntimeFilteredTask(FileScanTask planned, Expression runtime) {
    this.planned = Objects.requireNonNull(planned, "planned is null");
    this.runtime = Objects.requireNonNull(runtime, "runtime is null");
  }

  /** The task as planned. */
  public FileScanTask planned() {
    return planned;
  }

  /** The runtime filter added to the planned residual. */
  public Expression runtime() {
    return runtime;
  }

  @Override
  public DataFile file() {
    return planned.file();
  }

  @Override
  public List<DeleteFile> deletes() {
    return planned.deletes();
  }

  @Override
  public Schema schema() {
    return planned.schema();
  }

  @Override
  public PartitionSpec spec() {
    return planned.spec();
  }

  @Override
  public StructLike partition() {
    return planned.partition();
  }

  @Override
  public long start() {
    return planned.start();
  }

  @Override
  public long length() {
    return planned.length();
  }

  @Override
  public long sizeBytes() {
    return planned.sizeBytes();
  }

  @Override
  public int filesCount() {
    return planned.filesCount();
  }

  @Override
  public long estimatedRowsCount() {
    return planned.estimatedRowsCount();
  }

  @Override
  public Expression residual() {
    Expression residual = planned.residual();
    return residual == null ? runtime : Expressions.and(residual, runtime);
  }

  @Override
  public Iterable<FileScanTask> split(long splitSize) {
    List<FileScanTask> pieces = new ArrayList<>();
    for (FileScanTask piece : planned.split(splitSize)) {
      pieces.add(new RuntimeFilteredTask(piece, runtime));
    }
    return pieces;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof RuntimeFilteredTask that)) {
      return false;
    }
    return planned.equals(that.planned) && runtime.toString().equals(that.runtime.toString());
  }

  @Override
  public int hashCode() {
    return Objects.hash(planned, runtime.toString());
  }

  @Override
  public String toString() {
    return "RuntimeFilteredTask[" + planned + ", runtime=" + runtime + "]";
  }
}
