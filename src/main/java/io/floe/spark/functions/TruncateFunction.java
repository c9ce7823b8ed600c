package io.floe.spark.functions;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.iceberg.util.SerializableFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code truncate(width, value)}: Iceberg's truncate transform. Integers and decimals are rounded
 * down (towards negative infinity) to a multiple of the width (for decimals, of the width in units
 * of the scale), strings are cut to their first {@code width} code points and binary values to
 * their first {@code width} bytes. The result has the value's type, except that a decimal result
 * has one more digit of precision (up to 38): rounding down can add a digit, as truncate(10,
 * -9.99) is -10.00. NULL in, NULL out.
 */
public final class TruncateFunction implements UnboundFunction {
  static final String NAME = "truncate";
  private static final String USAGE = "truncate(width int, value)";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return USAGE + ": the Iceberg truncation of an int, bigint, decimal, string or binary value";
  }

  @Override
  public BoundFunction bind(StructType inputType) {
    DataType[] types = Arguments.types(NAME, USAGE, inputType, 2);
    if (!Arguments.isInt(types[0])) {
      throw Arguments.invalid(
          NAME, USAGE, "the width must be an int, not " + types[0].simpleString());
    }
    DataType value = types[1];
    if (Arguments.isInt(value)) {
      return new TruncateInt();
    } else if (value instanceof LongType) {
      return new TruncateLong();
    } else if (value instanceof StringType) {
      return new TruncateString(value);
    } else if (value instanceof BinaryType) {
      return new TruncateBinary();
    } else if (value instanceof DecimalType decimal) {
      return new TruncateDecimal(decimal);
    }
    throw Arguments.invalid(NAME, USAGE, "cannot truncate values of type " + value.simpleString());
  }

  /** The truncate function for one value type; keeps Iceberg's function for the last width used. */
  abstract static class Bound<R> extends BoundTransform<R> {
    private static final long serialVersionUID = 1L;

    private final Type icebergType;
    private transient volatile Truncation last;

    Bound(DataType valueType, Type icebergType) {
      this(valueType, icebergType, valueType);
    }

    Bound(DataType valueType, Type icebergType, DataType resultType) {
      super(NAME, new DataType[] {DataTypes.IntegerType, valueType}, resultType);
      this.icebergType = icebergType;
    }

    /** Truncates a value in Iceberg's representation for the bound type. */
    final Object truncate(int width, Object value) {
      Truncation current = last;
      if (current == null || current.width != width) {
        current = new Truncation(width, Transforms.<Object>truncate(width).bind(icebergType));
        last = current;
      }
      return current.function.apply(value);
    }

    private record Truncation(int width, SerializableFunction<Object, Object> function) {}
  }

  /** int values (and tinyint and smallint, widened by Spark). */
  public static final class TruncateInt extends Bound<Integer> {
    private static final long serialVersionUID = 1L;

    TruncateInt() {
      super(DataTypes.IntegerType, Types.IntegerType.get());
    }

    public int invoke(int width, int value) {
      return (Integer) truncate(width, value);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getInt(1));
    }
  }

  /** bigint values. */
  public static final class TruncateLong extends Bound<Long> {
    private static final long serialVersionUID = 1L;

    TruncateLong() {
      super(DataTypes.LongType, Types.LongType.get());
    }

    public long invoke(int width, long value) {
      return (Long) truncate(width, value);
    }

    @Override
    public Long produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1)
          ? null
          : invoke(input.getInt(0), input.getLong(1));
    }
  }

  /** string values, cut by code points. */
  public static final class TruncateString extends Bound<UTF8String> {
    private static final long serialVersionUID = 1L;

    TruncateString(DataType valueType) {
      super(valueType, Types.StringType.get());
    }

    public UTF8String invoke(int width, UTF8String value) {
      return value == null
          ? null
          : UTF8String.fromString(truncate(width, value.toString()).toString());
    }

    @Override
    public UTF8String produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getInt(0), input.getUTF8String(1));
    }
  }

  /** binary values, cut by bytes. */
  public static final class TruncateBinary extends Bound<byte[]> {
    private static final long serialVersionUID = 1L;

    TruncateBinary() {
      super(DataTypes.BinaryType, Types.BinaryType.get());
    }

    public byte[] invoke(int width, byte[] value) {
      return value == null
          ? null
          : ByteBuffers.toByteArray((ByteBuffer) truncate(width, ByteBuffer.wrap(value)));
    }

    @Override
    public byte[] produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getInt(0), input.getBinary(1));
    }
  }

  /**
   * decimal values, rounded down to a multiple of the width in units of the scale, as a decimal one
   * digit wider.
   */
  public static final class TruncateDecimal extends Bound<Decimal> {
    private static final long serialVersionUID = 1L;

    private final int precision;
    private final int scale;

    TruncateDecimal(DecimalType type) {
      super(
          type,
          Types.DecimalType.of(type.precision(), type.scale()),
          DataTypes.createDecimalType(
              Math.min(type.precision() + 1, DecimalType.MAX_PRECISION()), type.scale()));
      this.precision = type.precision();
      this.scale = type.scale();
    }

    public Decimal invoke(int width, Decimal value) {
      return value == null
          ? null
          : Decimal.apply((BigDecimal) truncate(width, value.toJavaBigDecimal()));
    }

    @Override
    public Decimal produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1)
          ? null
          : invoke(input.getInt(0), input.getDecimal(1, precision, scale));
    }
  }
}
