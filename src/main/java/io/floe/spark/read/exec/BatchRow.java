package io.floe.spark.read.exec;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * A row of the current batch, laid out as the delete filter's required schema, with values in
 * Iceberg's internal representation so that equality deletes compare as Iceberg compares them.
 */
final class BatchRow implements StructLike {
  private final Type[] types;
  private ColumnVector[] vectors;
  private int rowId;

  BatchRow(Schema required) {
    List<Types.NestedField> columns = required.columns();
    this.types = new Type[columns.size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = columns.get(i).type();
    }
  }

  /** Points this row at the columns of a batch, in the order of the required schema. */
  void setVectors(ColumnVector[] columns) {
    this.vectors = columns;
  }

  /** Points this row at one row of the batch. */
  void setRowId(int id) {
    this.rowId = id;
  }

  @Override
  public int size() {
    return types.length;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    return javaClass.cast(value(pos));
  }

  private Object value(int pos) {
    ColumnVector vector = vectors[pos];
    if (vector.isNullAt(rowId)) {
      return null;
    }
    Type type = types[pos];
    switch (type.typeId()) {
      case BOOLEAN:
        return vector.getBoolean(rowId);
      case INTEGER:
      case DATE:
        return vector.getInt(rowId);
      case LONG:
      case TIMESTAMP:
        return vector.getLong(rowId);
      case FLOAT:
        return vector.getFloat(rowId);
      case DOUBLE:
        return vector.getDouble(rowId);
      case STRING:
        return vector.getUTF8String(rowId).toString();
      case FIXED:
      case BINARY:
        return ByteBuffer.wrap(vector.getBinary(rowId));
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return vector.getDecimal(rowId, decimal.precision(), decimal.scale()).toJavaBigDecimal();
      default:
        throw new IllegalStateException(
            "Cannot apply equality deletes: unsupported column type " + type);
    }
  }

  @Override
  public <T> void set(int pos, T value) {
    throw new UnsupportedOperationException("Cannot change a row of a read batch");
  }
}
