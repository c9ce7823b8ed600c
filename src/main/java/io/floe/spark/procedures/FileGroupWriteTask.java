package io.floe.spark.procedures;

import io.floe.spark.write.FloeCommitMessage;
import io.floe.spark.write.FloeDataWriterFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.util.CollectionAccumulator;

/**
 * What each task of a compaction job runs on an executor: writes its partition's rows with Floe's
 * {@link FloeDataWriterFactory} (the same writers as an INSERT) and returns its data files in one
 * {@link FloeCommitMessage}, valid once the task has finished. A failing task deletes the files it opened. Every finished task's
 * file locations are also added to {@code written}, so that the driver can delete the files of the
 * tasks that finished when the job as a whole fails.
 *
 * <p>Carries the writer factory (a plain serializable value) and the accumulator; equality looks at
 * the factory only.
 */
public final class FileGroupWriteTask implements FlatMapFunction<Iterator<InternalRow>, FloeCommitMessage> {
  private final FloeDataWriterFactory factory;
  private final CollectionAccumulator<String> written;

  /**
   * @param factory makes the task's writer
   * @param written collects the locations of the files each finished task wrote
   */
  public FileGroupWriteTask(FloeDataWriterFactory factory, CollectionAccumulator<String> written) {
    this.factory = Objects.requireNonNull(factory, "factory is null");
    this.written = Objects.requireNonNull(written, "written is null");
  }

  public FloeDataWriterFactory factory() {
    return factory;
  }

  public CollectionAccumulator<String> written() {
    return written;
  }

  @Override
  public Iterator<FloeCommitMessage> call(Iterator<InternalRow> rows) {
    TaskContext task = TaskContext.get();
    DataWriter<InternalRow> writer = factory.createWriter(task.partitionId(), task.taskAttemptId());
    List<DataFile> files;
    try {
      while (rows.hasNext()) {
        writer.write(rows.next());
      }
      files = ((FloeCommitMessage) writer.commit()).dataFiles();
    } catch (IOException e) {
      abortQuietly(writer, e);
      throw new UncheckedIOException(e);
    } catch (RuntimeException | Error e) {
      abortQuietly(writer, e);
      throw e;
    } finally {
      close(writer);
    }
    files.forEach(file -> written.add(file.location()));
    // the files travel back in the commit message Floe's writes already ship (and register)
    return List.of(new FloeCommitMessage(files)).iterator();
  }

  private static void abortQuietly(DataWriter<InternalRow> writer, Throwable failure) {
    try {
      writer.abort();
    } catch (IOException | RuntimeException abortFailure) {
      failure.addSuppressed(abortFailure);
    }
  }

  private static void close(DataWriter<InternalRow> writer) {
    try {
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean equals(Object other) {
    return this == other
        || (other instanceof FileGroupWriteTask
            && factory.equals(((FileGroupWriteTask) other).factory));
  }

  @Override
  public int hashCode() {
    return factory.hashCode();
  }

  @Override
  public String toString() {
    return "FileGroupWriteTask{" + factory + "}";
  }
}
