package io.floe.spark.write;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.Write;

/** A planned write: what it writes and how it will commit, fixed on the driver. */
public final class FloeWrite implements Write, Serializable {
  private final WriteContext context;

  public FloeWrite(WriteContext context) {
    this.context = Objects.requireNonNull(context, "context is null");
  }

  public WriteContext context() {
    return context;
  }

  @Override
  public String description() {
    return "Floe " + context.mode() + " into " + context.tableName() + " [commit id " + context.commitId() + "]";
  }

  @Override
  public BatchWrite toBatch() {
    return new FloeBatchWrite(context);
  }

  @Override
  public boolean equals(Object other) {
    return this == other
        || (other instanceof FloeWrite && context.equals(((FloeWrite) other).context));
  }

  @Override
  public int hashCode() {
    return context.hashCode();
  }

  @Override
  public String toString() {
    return "FloeWrite{" + context + "}";
  }
}
