package io.floe.spark.rowlevel;

import io.floe.spark.read.exec.FileKeyColumn;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Which column names a target row's data file in a MERGE: {@link FileKeyColumn} (8 bytes) by
 * default, or {@code _file} (the location, about 150 bytes) with the session conf {@link #CONF}.
 * Spark carries that column through the MERGE's join of target and source, for every target row,
 * in both modes: copy-on-write asks for it to name the files to rewrite, merge-on-read has it in
 * the row id. DELETE and UPDATE, which join nothing, keep {@code _file}.
 */
final class MergeFileColumn {
  /**
   * Session conf: {@code true} makes a MERGE ask for {@code _file} instead of the key, so that its
   * {@code SET} and {@code INSERT} may read {@code t._file} (Spark resolves a MERGE's metadata
   * columns only among those the operation asks for).
   */
  static final String CONF = "spark.floe.merge.file-column-enabled";

  private MergeFileColumn() {}

  /** Whether the operation names files by their keys: a MERGE, unless the conf says otherwise. */
  static boolean keyed(Command command) {
    return command == Command.MERGE
        && !Boolean.parseBoolean(SQLConf.get().getConfString(CONF, "false"));
  }
}
