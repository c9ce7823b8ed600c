package io.floe.spark.write.exec;

import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;

/**
 * Appends the two row lineage columns to the data rows of one writer task: the values of a row's
 * metadata row, or NULLs. Reuses one joined row, so each result is valid until the next call; the
 * file writers consume a row before the next one comes (and the sorter of a fanout writer copies
 * it). Not thread-safe.
 */
final class LineageRows {
  private final int rowIdOrdinal;
  private final int sequenceNumberOrdinal;
  private final GenericInternalRow values = new GenericInternalRow(2);
  private final GenericInternalRow nulls = new GenericInternalRow(2);
  private final JoinedRow joined = new JoinedRow();

  LineageRows(RowLineageSource source) {
    Objects.requireNonNull(source, "source is null");
    this.rowIdOrdinal = source.rowIdOrdinal();
    this.sequenceNumberOrdinal = source.sequenceNumberOrdinal();
  }

  /** The row followed by the lineage values of its metadata row (NULL where the metadata's is). */
  InternalRow withLineage(InternalRow metadata, InternalRow row) {
    if (metadata == null) {
      return withoutLineage(row);
    }
    values.update(0, metadata.isNullAt(rowIdOrdinal) ? null : metadata.getLong(rowIdOrdinal));
    values.update(
        1,
        metadata.isNullAt(sequenceNumberOrdinal) ? null : metadata.getLong(sequenceNumberOrdinal));
    return joined.apply(row, values);
  }

  /** The row followed by two NULLs: it inherits a new id and the commit's sequence number. */
  InternalRow withoutLineage(InternalRow row) {
    return joined.apply(row, nulls);
  }
}
