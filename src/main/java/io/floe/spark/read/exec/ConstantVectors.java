package io.floe.spark.read.exec;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.vectorized.ColumnVectorUtils;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * Builds Spark's constant column vectors from a value in a row, structs included: Spark's own
 * filler stops at primitives and leaves a struct vector's children unset.
 */
final class ConstantVectors {
  private ConstantVectors() {}

  /** A vector of {@code numRows} copies of field {@code ordinal} of {@code row}. */
  static ConstantColumnVector create(int numRows, DataType type, InternalRow row, int ordinal) {
    ConstantColumnVector vector = new ConstantColumnVector(numRows, type);
    if (!(type instanceof StructType)) {
      ColumnVectorUtils.populate(vector, row, ordinal);
      return vector;
    }
    StructType struct = (StructType) type;
    InternalRow value = row.isNullAt(ordinal) ? null : row.getStruct(ordinal, struct.size());
    for (int i = 0; i < struct.size(); i++) {
      DataType childType = struct.fields()[i].dataType();
      vector.setChild(
          i,
          value == null
              ? nulls(numRows, childType)
              : create(numRows, childType, value, i));
    }
    if (value == null) {
      vector.setNull();
    } else {
      vector.setNotNull();
    }
    return vector;
  }

  private static ConstantColumnVector nulls(int numRows, DataType type) {
    return create(numRows, type, new GenericInternalRow(1), 0);
  }

  /**
   * The identity-partition and metadata constants of a task, for the read schema's columns, by
   * field id ({@link FileKeyColumn} among them): what both file formats' batch readers serve as
   * constant vectors.
   */
  static Map<Integer, Object> readSchemaConstants(FileScanTask task, Schema readSchema) {
    Types.NestedField partitionField = readSchema.findField(MetadataColumns.PARTITION_COLUMN_ID);
    Types.StructType partitionType =
        partitionField == null ? null : partitionField.type().asStructType();
    Map<Integer, ?> all =
        PartitionUtil.constantsMap(
            task, partitionType, IdentityPartitionConverters::convertConstant);
    Map<Integer, Object> constants = new HashMap<>();
    for (Types.NestedField field : readSchema.columns()) {
      if (all.containsKey(field.fieldId())) {
        constants.put(field.fieldId(), all.get(field.fieldId()));
      }
    }
    if (readSchema.findField(FileKeyColumn.FIELD_ID) != null) {
      constants.put(FileKeyColumn.FIELD_ID, FileKeyColumn.of(task.file().location()));
    }
    return constants;
  }
}
