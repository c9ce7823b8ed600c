package io.floe.spark.read.exec;

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
}
