package io.floe.spark.orc;

import io.floe.spark.types.SparkSchemas;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.orc.storage.ql.exec.vector.BytesColumnVector;
import org.apache.orc.storage.ql.exec.vector.ColumnVector;
import org.apache.orc.storage.ql.exec.vector.Decimal64ColumnVector;
import org.apache.orc.storage.ql.exec.vector.DecimalColumnVector;
import org.apache.orc.storage.ql.exec.vector.DoubleColumnVector;
import org.apache.orc.storage.ql.exec.vector.ListColumnVector;
import org.apache.orc.storage.ql.exec.vector.LongColumnVector;
import org.apache.orc.storage.ql.exec.vector.MapColumnVector;
import org.apache.orc.storage.ql.exec.vector.StructColumnVector;
import org.apache.orc.storage.ql.exec.vector.TimestampColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A Spark column vector that reads one ORC column vector in place, as the Spark type of the
 * Iceberg type it was read for. ORC marks a vector {@code isRepeating} when every row holds the
 * value (or NULL) of row 0, and {@code noNulls} when no row is NULL (then {@code isNull} is stale);
 * every adapter honours both. The adapter owns nothing: ORC's reader refills the same vectors for
 * the next batch, so a value is valid until the reader reads on, and closing is a no-op.
 *
 * <p>Getters a type does not have throw {@link UnsupportedOperationException}.
 */
public abstract class OrcVector extends org.apache.spark.sql.vectorized.ColumnVector {
  private final ColumnVector orc;
  private int numRows;

  OrcVector(DataType type, ColumnVector orc) {
    super(type);
    this.orc = Objects.requireNonNull(orc, "orc is null");
  }

  /**
   * An adapter over {@code orc} as the Spark type of {@code type}.
   *
   * @param type the Iceberg type the column was projected as (ORC's reader has already widened
   *     promoted types to it)
   * @param orc the vector ORC's reader fills for that column
   * @throws UnsupportedOperationException for a type or vector no adapter reads
   */
  public static OrcVector of(Type type, ColumnVector orc) {
    DataType sparkType = SparkSchemas.toSpark(type);
    switch (type.typeId()) {
      case BOOLEAN:
      case INTEGER:
      case LONG:
      case DATE:
        return new OrcLongVector(sparkType, cast(orc, LongColumnVector.class, type));
      case FLOAT:
      case DOUBLE:
        return new OrcDoubleVector(sparkType, cast(orc, DoubleColumnVector.class, type));
      case STRING:
      case BINARY:
      case FIXED:
        return new OrcBytesVector(sparkType, cast(orc, BytesColumnVector.class, type));
      case DECIMAL:
        if (orc instanceof Decimal64ColumnVector) {
          return new OrcDecimal64Vector(sparkType, (Decimal64ColumnVector) orc);
        }
        return new OrcDecimalVector(sparkType, cast(orc, DecimalColumnVector.class, type));
      case TIMESTAMP:
        return new OrcTimestampVector(sparkType, cast(orc, TimestampColumnVector.class, type));
      case STRUCT:
        StructColumnVector struct = cast(orc, StructColumnVector.class, type);
        List<Types.NestedField> fields = type.asStructType().fields();
        if (fields.size() != struct.fields.length) {
          throw new IllegalStateException(
              "Cannot read ORC struct as " + type + ": it has " + struct.fields.length + " fields");
        }
        OrcVector[] children = new OrcVector[fields.size()];
        for (int i = 0; i < children.length; i++) {
          children[i] = of(fields.get(i).type(), struct.fields[i]);
        }
        return new OrcStructVector(sparkType, struct, children);
      case LIST:
        ListColumnVector list = cast(orc, ListColumnVector.class, type);
        return new OrcListVector(
            sparkType, list, of(type.asListType().elementType(), list.child));
      case MAP:
        MapColumnVector map = cast(orc, MapColumnVector.class, type);
        return new OrcMapVector(
            sparkType,
            map,
            of(type.asMapType().keyType(), map.keys),
            of(type.asMapType().valueType(), map.values));
      default:
        throw new UnsupportedOperationException(
            "Cannot read ORC columns of type " + type + " as columnar batches");
    }
  }

  private static <T extends ColumnVector> T cast(ColumnVector orc, Class<T> expected, Type type) {
    if (!expected.isInstance(orc)) {
      throw new IllegalStateException(
          "Cannot read an ORC " + orc.getClass().getSimpleName() + " as " + type);
    }
    return expected.cast(orc);
  }

  /** The ORC vector this adapter reads. */
  public final ColumnVector orc() {
    return orc;
  }

  /**
   * Sets how many rows the vector holds now (a batch's size for a top-level column), which bounds
   * {@link #numNulls()}; nested adapters pass their children's counts on.
   */
  public void setNumRows(int rows) {
    this.numRows = rows;
  }

  /** The ORC row holding row {@code rowId}'s value: row 0 when the vector repeats one value. */
  final int row(int rowId) {
    return orc.isRepeating ? 0 : rowId;
  }

  @Override
  public final boolean hasNull() {
    return !orc.noNulls;
  }

  @Override
  public final int numNulls() {
    if (orc.noNulls) {
      return 0;
    }
    if (orc.isRepeating) {
      return orc.isNull[0] ? numRows : 0;
    }
    int count = 0;
    for (int i = 0; i < numRows; i++) {
      if (orc.isNull[i]) {
        count++;
      }
    }
    return count;
  }

  @Override
  public final boolean isNullAt(int rowId) {
    return !orc.noNulls && orc.isNull[row(rowId)];
  }

  @Override
  public void close() {}

  @Override
  public boolean getBoolean(int rowId) {
    throw unsupported("booleans");
  }

  @Override
  public byte getByte(int rowId) {
    throw unsupported("bytes");
  }

  @Override
  public short getShort(int rowId) {
    throw unsupported("shorts");
  }

  @Override
  public int getInt(int rowId) {
    throw unsupported("ints");
  }

  @Override
  public long getLong(int rowId) {
    throw unsupported("longs");
  }

  @Override
  public float getFloat(int rowId) {
    throw unsupported("floats");
  }

  @Override
  public double getDouble(int rowId) {
    throw unsupported("doubles");
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw unsupported("arrays");
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    throw unsupported("maps");
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw unsupported("decimals");
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw unsupported("strings");
  }

  @Override
  public byte[] getBinary(int rowId) {
    throw unsupported("binary values");
  }

  @Override
  public org.apache.spark.sql.vectorized.ColumnVector getChild(int ordinal) {
    throw unsupported("struct fields");
  }

  private UnsupportedOperationException unsupported(String what) {
    return new UnsupportedOperationException(
        "Cannot read " + what + " from an ORC column of type " + dataType().simpleString());
  }
}
