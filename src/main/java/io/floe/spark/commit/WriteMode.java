package io.floe.spark.commit;

/** How a write's data files change the table when they are committed. */
public enum WriteMode {
  /** Adds the files; nothing is removed. */
  APPEND,
  /** Deletes the rows matching a filter (all rows for a truncate), then adds the files. */
  OVERWRITE_BY_FILTER,
  /** Replaces every partition that the new files touch (dynamic partition overwrite). */
  REPLACE_PARTITIONS
}
