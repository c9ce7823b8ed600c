package io.floe.spark.parquet;

import java.util.Arrays;
import org.apache.spark.sql.execution.datasources.parquet.ParquetDictionary;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Decodes the dictionary-encoded values of int, long, float and double columns into their vectors
 * once per batch, so that reading a value is an array load.
 *
 * <p>Spark's vectorized reader leaves such a batch as dictionary ids and decodes an id through two
 * virtual calls every time a row's value is read; a join or aggregation reads a key several times
 * per row. This decodes a column chunk's dictionary once into a primitive array (through Spark's own
 * {@code ParquetDictionary}, which applies any unsigned or decimal transform), writes every batch's
 * values into the vector and clears the vector's dictionary. Spark's reader then decodes the chunk's
 * later batches eagerly itself, except those that start on a page boundary, which this decodes again.
 *
 * <p>It serves the files Spark's reader decodes; {@link FlatParquetReader} decodes dictionaries into
 * values itself. Like {@link StringDictionaries} it reaches non-public fields of Spark's reader
 * through {@link DictionaryFields}; without them it does nothing and reads stay as fast as Spark's
 * own.
 */
final class NumericDictionaries {
  private enum Kind {
    INT,
    LONG,
    FLOAT,
    DOUBLE
  }

  private final int[] columns;
  private final Kind[] kinds;
  private final org.apache.parquet.column.Dictionary[] sources;
  private final Object[] decoded;
  private Object[] scratch;

  private NumericDictionaries(int[] columns, Kind[] kinds) {
    this.columns = columns;
    this.kinds = kinds;
    this.sources = new org.apache.parquet.column.Dictionary[columns.length];
    this.decoded = new Object[columns.length];
    this.scratch = new Object[columns.length];
  }

  /**
   * The decoder for the numeric columns of {@code batch}, the reader's result batch whose vectors are
   * reused for every batch; null when there is nothing to decode.
   */
  static NumericDictionaries forBatch(ColumnarBatch batch) {
    if (!DictionaryFields.available()) {
      return null;
    }
    int[] columns = new int[batch.numCols()];
    Kind[] kinds = new Kind[batch.numCols()];
    int count = 0;
    for (int i = 0; i < batch.numCols(); i++) {
      ColumnVector vector = batch.column(i);
      Kind kind = vector instanceof WritableColumnVector ? kindOf(vector.dataType()) : null;
      if (kind != null) {
        columns[count] = i;
        kinds[count] = kind;
        count++;
      }
    }
    return count == 0
        ? null
        : new NumericDictionaries(Arrays.copyOf(columns, count), Arrays.copyOf(kinds, count));
  }

  /** How a vector of {@code type} stores its values, as Spark's column vectors read them. */
  private static Kind kindOf(DataType type) {
    if (type == DataTypes.IntegerType || type instanceof DateType) {
      return Kind.INT;
    }
    if (type == DataTypes.LongType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType) {
      return Kind.LONG;
    }
    if (type == DataTypes.DoubleType) {
      return Kind.DOUBLE;
    }
    if (type == DataTypes.FloatType) {
      return Kind.FLOAT;
    }
    if (type instanceof DecimalType decimal) {
      if (DecimalType.is32BitDecimalType(decimal)) {
        return Kind.INT;
      }
      if (DecimalType.is64BitDecimalType(decimal)) {
        return Kind.LONG;
      }
    }
    return null;
  }

  /** Writes the values of every dictionary-encoded numeric column of {@code batch} into it. */
  void apply(ColumnarBatch batch) {
    int numRows = batch.numRows();
    for (int i = 0; i < columns.length; i++) {
      WritableColumnVector vector = (WritableColumnVector) batch.column(columns[i]);
      if (!vector.hasDictionary()) {
        continue;
      }
      ParquetDictionary spark = DictionaryFields.parquetDictionary(vector);
      if (spark == null) {
        continue;
      }
      org.apache.parquet.column.Dictionary parquet = DictionaryFields.source(spark);
      if (sources[i] != parquet) {
        sources[i] = parquet;
        decoded[i] = decode(kinds[i], spark, parquet.getMaxId() + 1);
      }
      decodeInto(i, vector, numRows);
      vector.setDictionary(null);
    }
  }

  private static Object decode(Kind kind, ParquetDictionary dictionary, int size) {
    switch (kind) {
      case INT -> {
        int[] values = new int[size];
        for (int id = 0; id < size; id++) {
          values[id] = dictionary.decodeToInt(id);
        }
        return values;
      }
      case LONG -> {
        long[] values = new long[size];
        for (int id = 0; id < size; id++) {
          values[id] = dictionary.decodeToLong(id);
        }
        return values;
      }
      case FLOAT -> {
        float[] values = new float[size];
        for (int id = 0; id < size; id++) {
          values[id] = dictionary.decodeToFloat(id);
        }
        return values;
      }
      default -> {
        double[] values = new double[size];
        for (int id = 0; id < size; id++) {
          values[id] = dictionary.decodeToDouble(id);
        }
        return values;
      }
    }
  }

  private void decodeInto(int column, WritableColumnVector vector, int numRows) {
    WritableColumnVector ids = vector.getDictionaryIds();
    // a null row's id is left over from an earlier batch and may lie outside this dictionary
    boolean hasNulls = vector.hasNull();
    switch (kinds[column]) {
      case INT -> {
        int[] values = (int[]) decoded[column];
        int[] out = ints(column, numRows);
        for (int row = 0; row < numRows; row++) {
          if (!hasNulls || !vector.isNullAt(row)) {
            out[row] = values[ids.getInt(row)];
          }
        }
        vector.putInts(0, numRows, out, 0);
      }
      case LONG -> {
        long[] values = (long[]) decoded[column];
        long[] out = longs(column, numRows);
        for (int row = 0; row < numRows; row++) {
          if (!hasNulls || !vector.isNullAt(row)) {
            out[row] = values[ids.getInt(row)];
          }
        }
        vector.putLongs(0, numRows, out, 0);
      }
      case FLOAT -> {
        float[] values = (float[]) decoded[column];
        float[] out = floats(column, numRows);
        for (int row = 0; row < numRows; row++) {
          if (!hasNulls || !vector.isNullAt(row)) {
            out[row] = values[ids.getInt(row)];
          }
        }
        vector.putFloats(0, numRows, out, 0);
      }
      default -> {
        double[] values = (double[]) decoded[column];
        double[] out = doubles(column, numRows);
        for (int row = 0; row < numRows; row++) {
          if (!hasNulls || !vector.isNullAt(row)) {
            out[row] = values[ids.getInt(row)];
          }
        }
        vector.putDoubles(0, numRows, out, 0);
      }
    }
  }

  private int[] ints(int column, int size) {
    if (!(scratch[column] instanceof int[] out) || out.length < size) {
      scratch[column] = new int[size];
    }
    return (int[]) scratch[column];
  }

  private long[] longs(int column, int size) {
    if (!(scratch[column] instanceof long[] out) || out.length < size) {
      scratch[column] = new long[size];
    }
    return (long[]) scratch[column];
  }

  private float[] floats(int column, int size) {
    if (!(scratch[column] instanceof float[] out) || out.length < size) {
      scratch[column] = new float[size];
    }
    return (float[]) scratch[column];
  }

  private double[] doubles(int column, int size) {
    if (!(scratch[column] instanceof double[] out) || out.length < size) {
      scratch[column] = new double[size];
    }
    return (double[]) scratch[column];
  }
}
