package io.floe.spark.write.exec;

import java.io.Serializable;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;

/**
 * Where a writer task of a format v3 table finds the row lineage values ({@code _row_id}, {@code
 * _last_updated_sequence_number}) it writes into its data files, so that a rewrite keeps them: in
 * the metadata row Spark hands over with each carried-over or updated row (copy-on-write and
 * merge-on-read row-level operations), or at the end of the data row itself (a compaction, whose
 * scan reads the two columns after the table's).
 *
 * <p>A row that comes without lineage (a new row of a MERGE, an insert of a delta) gets NULL for
 * both, so that it inherits a new id and the new sequence number when the file is committed. Spark
 * passes NULL for a value the operation must not keep (the sequence number of an updated row).
 *
 * @param inRow true when the data row ends with the two columns; the ordinals are then unused
 * @param rowIdOrdinal where {@code _row_id} sits in the metadata row, or -1 when {@code inRow}
 * @param sequenceNumberOrdinal where {@code _last_updated_sequence_number} sits in the metadata
 *     row, or -1 when {@code inRow}
 */
public record RowLineageSource(boolean inRow, int rowIdOrdinal, int sequenceNumberOrdinal)
    implements Serializable {

  public RowLineageSource {
    if (inRow != (rowIdOrdinal < 0) || inRow != (sequenceNumberOrdinal < 0)) {
      throw new IllegalArgumentException(
          "Cannot write row lineage: ordinals " + rowIdOrdinal + ", " + sequenceNumberOrdinal
              + (inRow ? " are only for lineage in metadata rows" : " must not be negative"));
    }
  }

  /** Lineage at the end of each data row, after the table's columns. */
  public static RowLineageSource inDataRow() {
    return new RowLineageSource(true, -1, -1);
  }

  /** Lineage in the metadata row that comes with a carried-over or updated row. */
  public static RowLineageSource inMetadata(int rowIdOrdinal, int sequenceNumberOrdinal) {
    return new RowLineageSource(false, rowIdOrdinal, sequenceNumberOrdinal);
  }

  /** The schema data files are written with: the table's, then the two lineage columns. */
  static Schema writeSchema(Schema tableSchema) {
    return MetadataColumns.schemaWithRowLineage(tableSchema);
  }
}
