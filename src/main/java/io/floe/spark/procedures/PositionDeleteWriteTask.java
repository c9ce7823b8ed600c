package io.floe.spark.procedures;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingPositionDeleteWriter;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * What each task of {@code rewrite_position_delete_files} runs on an executor: writes its rows
 * ({@code file_path}, {@code pos}, sorted) as position delete files of one spec and partition with
 * Iceberg's generic writers, rolling at the target size, and returns them in one {@link Files}.
 * A failing task deletes the files it wrote.
 *
 * <p>Carries a read-only copy of the table, the spec id, the partition and the target size.
 */
public final class PositionDeleteWriteTask
    implements FlatMapFunction<Iterator<InternalRow>, PositionDeleteWriteTask.Files> {
  /** The delete files one task wrote, as they travel back to the driver. */
  public record Files(List<DeleteFile> deleteFiles) implements Serializable {
    public Files {
      deleteFiles = List.copyOf(Objects.requireNonNull(deleteFiles, "deleteFiles is null"));
    }
  }

  private final Table table;
  private final int specId;
  private final StructLike partition;
  private final long targetFileSizeBytes;

  public PositionDeleteWriteTask(
      Table table, int specId, StructLike partition, long targetFileSizeBytes) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.specId = specId;
    this.partition = partition;
    this.targetFileSizeBytes = targetFileSizeBytes;
  }

  public Table table() {
    return table;
  }

  public int specId() {
    return specId;
  }

  public StructLike partition() {
    return partition;
  }

  public long targetFileSizeBytes() {
    return targetFileSizeBytes;
  }

  @Override
  public Iterator<Files> call(Iterator<InternalRow> rows) {
    TaskContext task = TaskContext.get();
    PartitionSpec spec = table.specs().get(specId);
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, task.partitionId(), task.taskAttemptId())
            .format(FileFormat.PARQUET)
            .build();
    RollingPositionDeleteWriter<Record> writer =
        new RollingPositionDeleteWriter<>(
            new GenericFileWriterFactory.Builder(table).build(), files, table.io(),
            targetFileSizeBytes, spec, spec.isPartitioned() ? partition : null);
    PositionDelete<Record> delete = PositionDelete.create();
    try {
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        writer.write(delete.set(row.getUTF8String(0).toString(), row.getLong(1)));
      }
      writer.close();
    } catch (IOException | RuntimeException e) {
      try {
        writer.close();
      } catch (IOException | RuntimeException closeFailure) {
        e.addSuppressed(closeFailure);
      }
      writer.result().deleteFiles().forEach(file -> table.io().deleteFile(file.location()));
      if (e instanceof IOException) {
        throw new UncheckedIOException((IOException) e);
      }
      throw (RuntimeException) e;
    }
    DeleteWriteResult result = writer.result();
    return List.of(new Files(result.deleteFiles())).iterator();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof PositionDeleteWriteTask
        && table.name().equals(((PositionDeleteWriteTask) other).table.name())
        && specId == ((PositionDeleteWriteTask) other).specId
        && Objects.equals(String.valueOf(partition), String.valueOf(((PositionDeleteWriteTask) other).partition))
        && targetFileSizeBytes == ((PositionDeleteWriteTask) other).targetFileSizeBytes;
  }

  @Override
  public int hashCode() {
    return Objects.hash(table.name(), specId, targetFileSizeBytes);
  }

  @Override
  public String toString() {
    return "PositionDeleteWriteTask{table=" + table.name() + ", specId=" + specId + ", partition="
        + partition + "}";
  }
}
