package io.floe.spark.commit;

import java.io.Serializable;
import org.apache.iceberg.Table;

/**
 * Gives the driver a live, committable Iceberg {@link Table} at commit time.
 *
 * <p>A batch write carries a loader instead of a table so that it stays a plain value: a write
 * rebuilt in another driver process loads the table again from what the loader carries. Executors
 * never call it. Implementations must keep secrets out of {@code toString}.
 */
public interface TableLoader extends Serializable {

  /** The table's name, for messages and plan descriptions. */
  String name();

  /** Loads the current state of the table; called on the driver only, once per commit. */
  Table load();
}
