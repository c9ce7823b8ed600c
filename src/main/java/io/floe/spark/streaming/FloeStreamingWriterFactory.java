package io.floe.spark.streaming;

import io.floe.spark.write.FloeCommitMessage;
import io.floe.spark.write.exec.DataWriterSettings;
import io.floe.spark.write.exec.FloeDataWriter;
import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;

/**
 * Ships to every task of every epoch what a batch write's tasks get ({@link DataWriterSettings})
 * and makes one {@link FloeDataWriter} per task. File names carry a random id of their own, so a
 * replayed epoch never writes over the files of its first run.
 */
public final class FloeStreamingWriterFactory implements StreamingDataWriterFactory {
  private final DataWriterSettings settings;

  public FloeStreamingWriterFactory(DataWriterSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings is null");
  }

  public DataWriterSettings settings() {
    return settings;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
    return new FloeDataWriter(settings, partitionId, taskId, FloeCommitMessage::new);
  }

  @Override
  public boolean equals(Object other) {
    return this == other
        || (other instanceof FloeStreamingWriterFactory
            && settings.equals(((FloeStreamingWriterFactory) other).settings));
  }

  @Override
  public int hashCode() {
    return settings.hashCode();
  }

  @Override
  public String toString() {
    return "FloeStreamingWriterFactory{table=" + settings.table().name() + ", spec="
        + settings.spec() + ", fanout=" + settings.fanoutEnabled() + "}";
  }
}
