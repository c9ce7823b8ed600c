package io.floe.spark.read.exec;

import java.io.IOException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VariantType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.types.VariantVal;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A task of a columnar scan that columnar decoding cannot serve (an Avro file, an ORC file {@link
 * ColumnarSupport#decodesOrcTask} turns down, a data task, or equality deletes on a column type the
 * batch path does not compare): its rows, read by a {@link
 * RowTask}, copied into batches of at most the scan's batch size. Only primitive columns and
 * structs of them (the {@code _partition} column) are copied, which is all a columnar scan projects.
 */
final class RowTaskBatches implements TaskBatches {
  private final RowTask rows;
  private final StructType schema;
  private final int batchSize;
  private WritableColumnVector[] vectors;

  RowTaskBatches(RowTask rows, StructType schema, int batchSize) {
    this.rows = rows;
    this.schema = schema;
    this.batchSize = batchSize;
  }

  @Override
  public ColumnarBatch next() throws IOException {
    if (!rows.hasNext()) {
      return null;
    }
    if (vectors == null) {
      vectors = OnHeapColumnVector.allocateColumns(batchSize, schema);
    }
    for (WritableColumnVector vector : vectors) {
      vector.reset();
    }
    int count = 0;
    while (count < batchSize && rows.hasNext()) {
      InternalRow row = rows.next();
      for (int i = 0; i < vectors.length; i++) {
        put(vectors[i], count, row, i, schema.fields()[i].dataType());
      }
      count++;
    }
    return new ColumnarBatch(vectors.clone(), count);
  }

  private static void put(
      WritableColumnVector vector, int rowId, InternalRow row, int ordinal, DataType type) {
    if (row.isNullAt(ordinal)) {
      vector.putNull(rowId);
      return;
    }
    if (type instanceof BooleanType) {
      vector.putBoolean(rowId, row.getBoolean(ordinal));
    } else if (type instanceof IntegerType || type instanceof DateType) {
      vector.putInt(rowId, row.getInt(ordinal));
    } else if (type instanceof LongType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType) {
      vector.putLong(rowId, row.getLong(ordinal));
    } else if (type instanceof FloatType) {
      vector.putFloat(rowId, row.getFloat(ordinal));
    } else if (type instanceof DoubleType) {
      vector.putDouble(rowId, row.getDouble(ordinal));
    } else if (type instanceof StringType) {
      vector.putByteArray(rowId, row.getUTF8String(ordinal).getBytes());
    } else if (type instanceof BinaryType) {
      vector.putByteArray(rowId, row.getBinary(ordinal));
    } else if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      vector.putDecimal(
          rowId, row.getDecimal(ordinal, decimal.precision(), decimal.scale()), decimal.precision());
    } else if (type instanceof StructType) {
      StructType struct = (StructType) type;
      InternalRow value = row.getStruct(ordinal, struct.size());
      vector.putNotNull(rowId);
      for (int i = 0; i < struct.size(); i++) {
        put((WritableColumnVector) vector.getChild(i), rowId, value, i, struct.fields()[i].dataType());
      }
    } else if (type instanceof VariantType) {
      // Spark's variant vectors hold the value in child 0 and the metadata in child 1
      VariantVal variant = row.getVariant(ordinal);
      vector.putNotNull(rowId);
      ((WritableColumnVector) vector.getChild(0)).putByteArray(rowId, variant.getValue());
      ((WritableColumnVector) vector.getChild(1)).putByteArray(rowId, variant.getMetadata());
    } else {
      throw new IllegalStateException("Cannot copy a column of type " + type + " into a batch");
    }
  }

  @Override
  public long bytes() {
    return rows.bytes();
  }

  @Override
  public int rowGroups() {
    return 0;
  }

  @Override
  public void close() throws IOException {
    try {
      rows.close();
    } finally {
      if (vectors != null) {
        for (ColumnVector vector : vectors) {
          vector.close();
        }
      }
    }
  }
}
