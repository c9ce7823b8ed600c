package io.floe.spark.functions;

import java.io.Serializable;
import java.nio.ByteBuffer;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SerializableFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.Reducer;
import org.apache.spark.sql.connector.catalog.functions.ReducibleFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code bucket(numBuckets, value)}: Iceberg's bucket transform, the value's 32-bit Murmur3 hash
 * modulo the number of buckets, for int (and tinyint, smallint), bigint, date, timestamp,
 * timestamp_ntz, string, binary and decimal values. NULL in, NULL out.
 */
public final class BucketFunction implements UnboundFunction {
  static final String NAME = "bucket";
  private static final String USAGE = "bucket(numBuckets int, value)";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return USAGE + ": the Iceberg bucket of a value, in [0, numBuckets)";
  }

  @Override
  public BoundFunction bind(StructType inputType) {
    DataType[] types = Arguments.types(NAME, USAGE, inputType, 2);
    if (!Arguments.isInt(types[0])) {
      throw Arguments.invalid(
          NAME, USAGE, "the number of buckets must be an int, not " + types[0].simpleString());
    }
    DataType value = types[1];
    if (Arguments.isInt(value)) {
      return new BucketInt(DataTypes.IntegerType, Types.IntegerType.get());
    } else if (value instanceof DateType) {
      return new BucketInt(value, Types.DateType.get());
    } else if (value instanceof LongType) {
      return new BucketLong(value, Types.LongType.get());
    } else if (value instanceof TimestampType) {
      return new BucketLong(value, Types.TimestampType.withZone());
    } else if (value instanceof TimestampNTZType) {
      return new BucketLong(value, Types.TimestampType.withoutZone());
    } else if (value instanceof StringType) {
      return new BucketString(value);
    } else if (value instanceof BinaryType) {
      return new BucketBinary();
    } else if (value instanceof DecimalType decimal) {
      return new BucketDecimal(decimal);
    }
    throw Arguments.invalid(NAME, USAGE, "cannot bucket values of type " + value.simpleString());
  }

  /**
   * The bucket function for one value type; keeps Iceberg's function for the last count used.
   *
   * <p>Bucket functions of different counts are reducible to their greatest common divisor: a
   * value's bucket modulo a divisor of the count is its bucket under that divisor, so Spark can
   * join a table of 8 buckets with one of 4 without a shuffle (when {@code
   * spark.sql.sources.v2.bucketing.allowCompatibleTransforms.enabled} is on).
   */
  abstract static class Bound extends BoundTransform<Integer>
      implements ReducibleFunction<Integer, Integer> {
    private static final long serialVersionUID = 1L;

    private final Type icebergType;
    private transient volatile Bucketing last;

    Bound(DataType valueType, Type icebergType) {
      super(NAME, new DataType[] {DataTypes.IntegerType, valueType}, DataTypes.IntegerType);
      this.icebergType = icebergType;
    }

    /** The bucket of a value in Iceberg's representation for the bound type. */
    final Integer bucket(int numBuckets, Object value) {
      Bucketing current = last;
      if (current == null || current.numBuckets != numBuckets) {
        current =
            new Bucketing(numBuckets, Transforms.<Object>bucket(numBuckets).bind(icebergType));
        last = current;
      }
      return current.function.apply(value);
    }

    private record Bucketing(int numBuckets, SerializableFunction<Object, Integer> function) {}

    @Override
    public Reducer<Integer, Integer> reducer(
        int thisNumBuckets, ReducibleFunction<?, ?> other, int otherNumBuckets) {
      if (!(other instanceof Bound) || thisNumBuckets <= 0 || otherNumBuckets <= 0) {
        return null;
      }
      int common = gcd(thisNumBuckets, otherNumBuckets);
      return common == thisNumBuckets ? null : new BucketReducer(common);
    }

    private static int gcd(int a, int b) {
      return b == 0 ? a : gcd(b, a % b);
    }
  }

  /**
   * Maps a bucket of a larger count to its bucket under {@code divisor}, a divisor of that count.
   *
   * @param divisor the common bucket count
   */
  public record BucketReducer(int divisor) implements Reducer<Integer, Integer>, Serializable {
    @Override
    public Integer reduce(Integer bucket) {
      return bucket == null ? null : bucket % divisor;
    }
  }

  /** int, tinyint and smallint (widened by Spark) and date values. */
  public static final class BucketInt extends Bound {
    private static final long serialVersionUID = 1L;

    BucketInt(DataType valueType, Type icebergType) {
      super(valueType, icebergType);
    }

    public int invoke(int numBuckets, int value) {
      return bucket(numBuckets, value);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getInt(1));
    }
  }

  /** bigint, timestamp and timestamp_ntz (microseconds) values. */
  public static final class BucketLong extends Bound {
    private static final long serialVersionUID = 1L;

    BucketLong(DataType valueType, Type icebergType) {
      super(valueType, icebergType);
    }

    public int invoke(int numBuckets, long value) {
      return bucket(numBuckets, value);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1)
          ? null
          : invoke(input.getInt(0), input.getLong(1));
    }
  }

  /** string values, hashed as their UTF-8 bytes. */
  public static final class BucketString extends Bound {
    private static final long serialVersionUID = 1L;

    BucketString(DataType valueType) {
      super(valueType, Types.StringType.get());
    }

    public Integer invoke(int numBuckets, UTF8String value) {
      return value == null ? null : bucket(numBuckets, value.toString());
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getInt(0), input.getUTF8String(1));
    }
  }

  /** binary values. */
  public static final class BucketBinary extends Bound {
    private static final long serialVersionUID = 1L;

    BucketBinary() {
      super(DataTypes.BinaryType, Types.BinaryType.get());
    }

    public Integer invoke(int numBuckets, byte[] value) {
      return value == null ? null : bucket(numBuckets, ByteBuffer.wrap(value));
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getInt(0), input.getBinary(1));
    }
  }

  /** decimal values, hashed as their unscaled two's-complement bytes. */
  public static final class BucketDecimal extends Bound {
    private static final long serialVersionUID = 1L;

    private final int precision;
    private final int scale;

    BucketDecimal(DecimalType type) {
      super(type, Types.DecimalType.of(type.precision(), type.scale()));
      this.precision = type.precision();
      this.scale = type.scale();
    }

    public Integer invoke(int numBuckets, Decimal value) {
      return value == null ? null : bucket(numBuckets, value.toJavaBigDecimal());
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1)
          ? null
          : invoke(input.getInt(0), input.getDecimal(1, precision, scale));
    }
  }
}
