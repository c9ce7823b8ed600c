package io.floe.spark.procedures;

import java.nio.ByteBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.util.ZOrderByteUtils;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * The z-order value of a row's z-order columns, computed on the executors for {@code
 * rewrite_data_files(sort_order => 'zorder(c1, c2)')}: each column's value as bytes whose unsigned
 * order is the value's order (Iceberg's {@link ZOrderByteUtils}: 8 bytes for numbers, dates,
 * timestamps and booleans, {@code var-length-contribution} bytes of strings and binaries; NULL as
 * zero bytes, first), then the bits of all columns interleaved, cut to {@code max-output-size}
 * bytes. Rows sorted by this value keep the columns together in every file.
 *
 * <p>Carries the columns' Spark types and the two sizes.
 */
public final class ZOrderValue implements UDF1<Row, byte[]> {
  /** The types a z-order column may have. */
  static final List<DataType> SUPPORTED =
      List.of(
          DataTypes.ByteType, DataTypes.ShortType, DataTypes.IntegerType, DataTypes.LongType,
          DataTypes.FloatType, DataTypes.DoubleType, DataTypes.StringType, DataTypes.BinaryType,
          DataTypes.BooleanType, DataTypes.DateType, DataTypes.TimestampType,
          DataTypes.TimestampNTZType);

  private final List<DataType> types;
  private final int varLengthContribution;
  private final int maxOutputSize;

  public ZOrderValue(List<DataType> types, int varLengthContribution, int maxOutputSize) {
    this.types = List.copyOf(Objects.requireNonNull(types, "types is null"));
    this.varLengthContribution = varLengthContribution;
    this.maxOutputSize = maxOutputSize;
  }

  public List<DataType> types() {
    return types;
  }

  public int varLengthContribution() {
    return varLengthContribution;
  }

  public int maxOutputSize() {
    return maxOutputSize;
  }

  @Override
  public byte[] call(Row row) {
    byte[][] columns = new byte[types.size()][];
    int total = 0;
    CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder();
    for (int i = 0; i < columns.length; i++) {
      columns[i] = orderedBytes(types.get(i), row.isNullAt(i) ? null : row.get(i), encoder);
      total += columns[i].length;
    }
    int size = Math.min(total, maxOutputSize);
    return ZOrderByteUtils.interleaveBits(columns, size, ByteBuffer.allocate(size));
  }

  private byte[] orderedBytes(DataType type, Object value, CharsetEncoder encoder) {
    boolean variable = type.equals(DataTypes.StringType) || type.equals(DataTypes.BinaryType);
    if (value == null) {
      return new byte[variable ? varLengthContribution : ZOrderByteUtils.PRIMITIVE_BUFFER_SIZE];
    }
    if (variable) {
      ByteBuffer buffer = ByteBuffer.allocate(varLengthContribution);
      if (value instanceof String) {
        return ZOrderByteUtils.stringToOrderedBytes(
                (String) value, varLengthContribution, buffer, encoder)
            .array();
      }
      return ZOrderByteUtils.byteTruncateOrFill((byte[]) value, varLengthContribution, buffer)
          .array();
    }
    ByteBuffer buffer = ByteBuffer.allocate(ZOrderByteUtils.PRIMITIVE_BUFFER_SIZE);
    if (value instanceof Byte) {
      return ZOrderByteUtils.tinyintToOrderedBytes((Byte) value, buffer).array();
    } else if (value instanceof Short) {
      return ZOrderByteUtils.shortToOrderedBytes((Short) value, buffer).array();
    } else if (value instanceof Integer) {
      return ZOrderByteUtils.intToOrderedBytes((Integer) value, buffer).array();
    } else if (value instanceof Long) {
      return ZOrderByteUtils.longToOrderedBytes((Long) value, buffer).array();
    } else if (value instanceof Float) {
      return ZOrderByteUtils.floatToOrderedBytes((Float) value, buffer).array();
    } else if (value instanceof Double) {
      return ZOrderByteUtils.doubleToOrderedBytes((Double) value, buffer).array();
    } else if (value instanceof Boolean) {
      return ZOrderByteUtils.tinyintToOrderedBytes((byte) ((Boolean) value ? 1 : 0), buffer).array();
    } else if (value instanceof Date) {
      return ZOrderByteUtils.longToOrderedBytes(((Date) value).toLocalDate().toEpochDay(), buffer)
          .array();
    } else if (value instanceof LocalDate) {
      return ZOrderByteUtils.longToOrderedBytes(((LocalDate) value).toEpochDay(), buffer).array();
    } else if (value instanceof Timestamp) {
      return ZOrderByteUtils.longToOrderedBytes(micros(((Timestamp) value).toInstant()), buffer)
          .array();
    } else if (value instanceof Instant) {
      return ZOrderByteUtils.longToOrderedBytes(micros((Instant) value), buffer).array();
    } else if (value instanceof LocalDateTime) {
      return ZOrderByteUtils.longToOrderedBytes(
              micros(((LocalDateTime) value).toInstant(ZoneOffset.UTC)), buffer)
          .array();
    }
    throw new IllegalArgumentException(
        "Cannot z-order a value of type " + type.simpleString() + ": " + value.getClass());
  }

  private static long micros(Instant instant) {
    return TimeUnit.SECONDS.toMicros(instant.getEpochSecond()) + instant.getNano() / 1000;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ZOrderValue
        && types.equals(((ZOrderValue) other).types)
        && varLengthContribution == ((ZOrderValue) other).varLengthContribution
        && maxOutputSize == ((ZOrderValue) other).maxOutputSize;
  }

  @Override
  public int hashCode() {
    return Objects.hash(types, varLengthContribution, maxOutputSize);
  }

  @Override
  public String toString() {
    return "ZOrderValue{types=" + types + ", varLengthContribution=" + varLengthContribution
        + ", maxOutputSize=" + maxOutputSize + "}";
  }
}
