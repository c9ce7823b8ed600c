package io.floe.spark.read.exec;

import io.floe.spark.types.IcebergToSpark;
import io.floe.spark.types.SparkSchemas;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * How {@link OrcFileBatches} lays out one ORC task: for each column of the delete filter's required
 * schema, where it comes from (a file column, by its index in the ORC projection; a constant
 * vector of identity-partition or metadata values; the row positions) and whether it is a
 * row-lineage column. It creates the constant vectors; the reader that uses them closes them.
 */
final class OrcTaskLayout {
  final List<Types.NestedField> fileFields = new ArrayList<>();
  final int[] fileColumn;
  final ColumnVector[] constants;
  final int[] lineage;
  final int outputColumns;
  final boolean needsPositions;

  OrcTaskLayout(FileScanTask task, Schema readSchema, Schema required, int batchSize) {
    List<Types.NestedField> columns = required.columns();
    this.fileColumn = new int[columns.size()];
    this.constants = new ColumnVector[columns.size()];
    this.lineage = new int[columns.size()];
    this.outputColumns = readSchema.columns().size();
    Map<Integer, ?> values = ConstantVectors.readSchemaConstants(task, readSchema);
    InternalRow constantRow = constantRow(required, values);
    boolean positionsNeeded = false;
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField field = columns.get(i);
      int id = field.fieldId();
      fileColumn[i] = -1;
      if (id == MetadataColumns.ROW_POSITION.fieldId()) {
        positionsNeeded = true;
      } else if (id == MetadataColumns.ROW_ID.fieldId()
          || id == MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId()) {
        // the values the file stores (rows a rewrite carried over); NULL ones are inherited
        lineage[i] = id;
        positionsNeeded |= id == MetadataColumns.ROW_ID.fieldId();
        fileColumn[i] = fileFields.size();
        fileFields.add(field.asOptional());
      } else if (values.containsKey(id)) {
        constants[i] =
            ConstantVectors.create(batchSize, SparkSchemas.toSpark(field.type()), constantRow, i);
      } else {
        fileColumn[i] = fileFields.size();
        // optional: a column the file lacks reads NULL rather than failing the projection
        fileFields.add(field.asOptional());
      }
    }
    this.needsPositions = positionsNeeded;
  }


  private static InternalRow constantRow(Schema required, Map<Integer, ?> constants) {
    GenericRecord record = GenericRecord.create(required.asStruct());
    List<Types.NestedField> columns = required.columns();
    for (int i = 0; i < columns.size(); i++) {
      record.set(i, constants.get(columns.get(i).fieldId()));
    }
    return new IcebergToSpark(required.asStruct()).convert(record);
  }
}
