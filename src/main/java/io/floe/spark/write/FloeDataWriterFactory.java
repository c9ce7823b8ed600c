package io.floe.spark.write;

import io.floe.spark.util.PlanValues;
import io.floe.spark.write.exec.DataWriterSettings;
import io.floe.spark.write.exec.FloeDataWriter;
import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;

/**
 * Ships to every writer task what it needs ({@link DataWriterSettings}: a read-only copy of the
 * table's metadata, the file settings, whether the rows come sorted by the table's sort order) and
 * makes one {@link FloeDataWriter} per task, whose files come back as a {@link FloeCommitMessage}.
 * It never calls a catalog.
 */
public final class FloeDataWriterFactory implements DataWriterFactory {
  private final DataWriterSettings settings;
  private final String commitId;

  /**
   * @param settings what each writer task writes with
   * @param commitId the write's commit id (shown in plans; file names carry their own random id)
   */
  public FloeDataWriterFactory(DataWriterSettings settings, String commitId) {
    this.settings = Objects.requireNonNull(settings, "settings is null");
    this.commitId = Objects.requireNonNull(commitId, "commitId is null");
  }

  public DataWriterSettings settings() {
    return settings;
  }

  public String commitId() {
    return commitId;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return new FloeDataWriter(settings, partitionId, taskId, FloeCommitMessage::new);
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeDataWriterFactory)) {
      return false;
    }
    FloeDataWriterFactory that = (FloeDataWriterFactory) other;
    return settings.equals(that.settings) && commitId.equals(that.commitId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(settings, commitId);
  }

  @Override
  public String toString() {
    return "FloeDataWriterFactory{table="
        + settings.table().name()
        + ", io="
        + PlanValues.describeIo(settings.table().io())
        + ", spec="
        + settings.spec()
        + ", targetFileSizeBytes="
        + settings.targetFileSizeBytes()
        + ", fanout="
        + settings.fanoutEnabled()
        + ", commitId="
        + commitId
        + (settings.recordSortOrder() ? ", sortOrderId=" + settings.table().sortOrder().orderId() : "")
        + "}";
  }
}
