package io.floe.spark.rowlevel;

import io.floe.spark.write.exec.RowLineageSource;
import java.util.List;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.types.StructType;

/**
 * The row lineage columns of a format v3 table in a row-level operation: the operation asks Spark
 * for {@code _row_id} and {@code _last_updated_sequence_number} as metadata columns, Spark hands
 * them back with each row it carries over, updates or reinserts (the table's metadata columns say
 * which values it keeps), and the writer writes them into the new data files, so that a rewritten
 * row keeps its id. A format v2 table has no lineage: nothing is asked for and nothing written.
 */
final class RowLineageColumns {
  private RowLineageColumns() {}

  /** The lineage columns an operation on the table asks for: both on v3, none before. */
  static List<NamedReference> required(Table table) {
    if (!hasLineage(table)) {
      return List.of();
    }
    return List.of(
        Expressions.column(MetadataColumns.ROW_ID.name()),
        Expressions.column(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name()));
  }

  /**
   * Where the writer finds the lineage in the metadata rows Spark hands over, or null for a table
   * without lineage.
   *
   * @throws IllegalStateException when the table has lineage but Spark's metadata rows lack it:
   *     writing on would give every rewritten row a new id
   */
  static RowLineageSource source(Table table, LogicalWriteInfo info) {
    if (!hasLineage(table)) {
      return null;
    }
    StructType metadata = info.metadataSchema().orElse(null);
    String rowId = MetadataColumns.ROW_ID.name();
    String sequenceNumber = MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name();
    if (metadata == null
        || metadata.getFieldIndex(rowId).isEmpty()
        || metadata.getFieldIndex(sequenceNumber).isEmpty()) {
      throw new IllegalStateException(
          "Cannot rewrite rows of " + table.name() + ": format v3 keeps each row's " + rowId
              + " and " + sequenceNumber + ", but Spark passed no such metadata columns (got "
              + (metadata == null ? "none" : metadata.simpleString()) + ")");
    }
    return RowLineageSource.inMetadata(
        metadata.fieldIndex(rowId), metadata.fieldIndex(sequenceNumber));
  }

  // the table offers the lineage columns exactly then (FloeTable.metadataColumns)
  private static boolean hasLineage(Table table) {
    return table instanceof HasTableOperations && TableUtil.supportsRowLineage(table);
  }
}
