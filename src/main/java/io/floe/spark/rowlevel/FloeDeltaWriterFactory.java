package io.floe.spark.rowlevel;

import io.floe.spark.write.exec.DeltaWriterSettings;
import io.floe.spark.write.exec.FloeDeltaWriter;
import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;

/**
 * Ships to every merge-on-read writer task what it needs ({@link DeltaWriterSettings}: a read-only
 * copy of the table's metadata, how to write rows and deletes, the data files' previous deletes)
 * and makes one {@link FloeDeltaWriter} per task. It never calls a catalog.
 */
public final class FloeDeltaWriterFactory implements DeltaWriterFactory {
  private final DeltaWriterSettings settings;
  private final String commitId;

  /**
   * @param settings what each writer task writes with
   * @param commitId the operation's commit id (shown in plans; file names carry their own id)
   */
  public FloeDeltaWriterFactory(DeltaWriterSettings settings, String commitId) {
    this.settings = Objects.requireNonNull(settings, "settings is null");
    this.commitId = Objects.requireNonNull(commitId, "commitId is null");
  }

  public DeltaWriterSettings settings() {
    return settings;
  }

  public String commitId() {
    return commitId;
  }

  @Override
  public DeltaWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return new FloeDeltaWriter(settings, partitionId, taskId);
  }

  @Override
  public boolean equals(Object other) {
    return this == other
        || (other instanceof FloeDeltaWriterFactory that
            && settings.equals(that.settings)
            && commitId.equals(that.commitId));
  }

  @Override
  public int hashCode() {
    return Objects.hash(settings.data(), commitId);
  }

  @Override
  public String toString() {
    return "FloeDeltaWriterFactory{" + settings + ", commitId=" + commitId + "}";
  }
}
