package io.floe.spark.commit;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * What a row-level operation or a compaction changes besides adding data files: the files it
 * removes, the delete files it adds, and what its validation must check.
 *
 * @param removedDataFiles data files the commit removes (rewritten by copy-on-write or compaction)
 * @param addedDeleteFiles position-delete files or deletion vectors the commit adds
 * @param removedDeleteFiles delete files the commit removes (left dangling by a rewrite, or a
 *     deletion vector replaced by a merged one)
 * @param referencedDataFiles locations of the data files the added deletes point at: they must
 *     still exist when the commit lands
 * @param conflictFilter the rows the operation read: commits after the validated snapshot that
 *     touch them are conflicts under the isolation level
 * @param dataSequenceNumber for a compaction, the data sequence number the new files keep (so
 *     that newer deletes still apply), or null for a fresh one
 */
public record FileChanges(
    List<DataFile> removedDataFiles,
    List<DeleteFile> addedDeleteFiles,
    List<DeleteFile> removedDeleteFiles,
    List<String> referencedDataFiles,
    Expression conflictFilter,
    Long dataSequenceNumber)
    implements Serializable {

  /** No change besides the data files: appends and overwrites. */
  public static final FileChanges NONE =
      new FileChanges(List.of(), List.of(), List.of(), List.of(), Expressions.alwaysTrue(), null);

  public FileChanges {
    removedDataFiles = List.copyOf(Objects.requireNonNull(removedDataFiles, "removedDataFiles is null"));
    addedDeleteFiles = List.copyOf(Objects.requireNonNull(addedDeleteFiles, "addedDeleteFiles is null"));
    removedDeleteFiles =
        List.copyOf(Objects.requireNonNull(removedDeleteFiles, "removedDeleteFiles is null"));
    referencedDataFiles =
        List.copyOf(Objects.requireNonNull(referencedDataFiles, "referencedDataFiles is null"));
    conflictFilter = conflictFilter == null ? Expressions.alwaysTrue() : conflictFilter;
  }
}
