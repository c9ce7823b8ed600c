package io.floe.spark.commit;

/** How a write's data files change the table when they are committed. */
public enum WriteMode {
  /** Adds the files; nothing is removed. */
  APPEND,
  /** Deletes the rows matching a filter (all rows for a truncate), then adds the files. */
  OVERWRITE_BY_FILTER,
  /** Replaces every partition that the new files touch (dynamic partition overwrite). */
  REPLACE_PARTITIONS,
  /**
   * Copy-on-write DELETE, UPDATE or MERGE: removes the data files the operation rewrote (and the
   * delete files left dangling) and adds the rewritten files, in one OverwriteFiles.
   */
  COPY_ON_WRITE,
  /** Merge-on-read DELETE, UPDATE or MERGE: adds delete files and data files in one RowDelta. */
  ROW_DELTA,
  /** Compaction: the same rows in new files, in one RewriteFiles. */
  REWRITE,
  /**
   * Metadata-only DELETE: removes whole data files ({@link FileChanges#removedDataFiles}) in one
   * DeleteFiles that fails if any of them is gone by commit time; adds no file.
   */
  DELETE_FILES
}
