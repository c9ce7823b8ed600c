package io.floe.spark.write.exec;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * One task's deletion vectors (format v3): Iceberg's DV writer collects the deleted positions of
 * every data file in memory, in any order, and on close writes one vector per data file, merged
 * with the file's previous deletes, into one Puffin file; the previous vectors and file-scoped
 * position deletes are reported as rewritten, so the commit removes them.
 *
 * <p>Adds the Puffin file's location to the list it was given before writing it, so that an
 * aborted task can delete it. As with Iceberg's writers, {@link #result()} is valid only after
 * {@link #close()}.
 */
final class DeletionVectorWriter
    implements PartitioningWriter<PositionDelete<InternalRow>, DeleteWriteResult> {
  private final BaseDVFileWriter writer;

  DeletionVectorWriter(OutputFileFactory files, PreviousDeletes previous, List<String> opened) {
    Objects.requireNonNull(files, "files is null");
    Objects.requireNonNull(previous, "previous is null");
    Objects.requireNonNull(opened, "opened is null");
    this.writer =
        new BaseDVFileWriter(
            () -> {
              OutputFile file = files.newOutputFile().encryptingOutputFile();
              opened.add(file.location());
              return file;
            },
            previous::load);
  }

  @Override
  public void write(PositionDelete<InternalRow> delete, PartitionSpec spec, StructLike partition) {
    writer.delete(delete.path().toString(), delete.pos(), spec, partition);
  }

  @Override
  public DeleteWriteResult result() {
    return writer.result();
  }

  @Override
  public void close() throws IOException {
    writer.close();
  }
}
