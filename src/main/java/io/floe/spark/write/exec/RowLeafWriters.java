package io.floe.spark.write.exec;

import io.floe.spark.types.Decimals;
import io.floe.spark.write.exec.RowValueWriters.ValueWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.DoubleFieldMetrics;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FloatFieldMetrics;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The leaves of a {@link RowParquetWriter}: one writer per Parquet column, each taking Spark's
 * internal value of one primitive type (bytes of a string without a Java string, days and
 * microseconds as Spark holds them, decimals as their unscaled long or two's complement bytes) and
 * keeping the column's metrics as Iceberg's writers do. A value that cannot be written fails with
 * an {@link IllegalArgumentException} naming the column.
 */
final class RowLeafWriters {
  private RowLeafWriters() {}

  /**
   * One Parquet column. Also a {@link TripleWriter}, the shape Iceberg's Parquet writers expose
   * their columns in.
   */
  abstract static class Leaf extends ValueWriter implements TripleWriter<Object> {
    private final ColumnDescriptor desc;
    private final List<Leaf> self = List.of(this);
    protected final int maxDefinitionLevel;
    protected ColumnWriter column;

    Leaf(ColumnDescriptor desc) {
      this.desc = desc;
      this.maxDefinitionLevel = desc.getMaxDefinitionLevel();
    }

    void bind(ColumnWriteStore store) {
      this.column = store.getColumnWriter(desc);
    }

    protected int fieldId() {
      return desc.getPrimitiveType().getId().intValue();
    }

    @Override
    public void writeNull(int repetitionLevel, int definitionLevel) {
      column.writeNull(repetitionLevel, definitionLevel);
    }

    @Override
    public void write(int repetitionLevel, Object value) {
      throw new UnsupportedOperationException("Cannot write a boxed value: rows are written by ordinal");
    }

    @Override
    List<Leaf> columns() {
      return self;
    }
  }

  static final class BooleanWriter extends Leaf {
    BooleanWriter(ColumnDescriptor desc) {
      super(desc);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      column.write(data.getBoolean(ordinal), repetitionLevel, maxDefinitionLevel);
    }
  }

  static final class IntWriter extends Leaf {
    IntWriter(ColumnDescriptor desc) {
      super(desc);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      column.write(data.getInt(ordinal), repetitionLevel, maxDefinitionLevel);
    }
  }

  static final class LongWriter extends Leaf {
    LongWriter(ColumnDescriptor desc) {
      super(desc);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      column.write(data.getLong(ordinal), repetitionLevel, maxDefinitionLevel);
    }
  }

  static final class FloatWriter extends Leaf {
    private final FloatFieldMetrics.Builder metrics;

    FloatWriter(ColumnDescriptor desc) {
      super(desc);
      this.metrics = new FloatFieldMetrics.Builder(fieldId());
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      float value = data.getFloat(ordinal);
      column.write(value, repetitionLevel, maxDefinitionLevel);
      metrics.addValue(value);
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return Stream.of(metrics.build());
    }
  }

  static final class DoubleWriter extends Leaf {
    private final DoubleFieldMetrics.Builder metrics;

    DoubleWriter(ColumnDescriptor desc) {
      super(desc);
      this.metrics = new DoubleFieldMetrics.Builder(fieldId());
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      double value = data.getDouble(ordinal);
      column.write(value, repetitionLevel, maxDefinitionLevel);
      metrics.addValue(value);
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return Stream.of(metrics.build());
    }
  }

  static final class StringWriter extends Leaf {
    StringWriter(ColumnDescriptor desc) {
      super(desc);
    }

    private byte[] scratch = new byte[64];

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      UTF8String value = data.getUTF8String(ordinal);
      int length = value.numBytes();
      Binary binary;
      if (value.getBaseObject() instanceof byte[] bytes) {
        // the row's own bytes; Parquet copies what it keeps (dictionary entries, bounds)
        binary =
            Binary.fromReusedByteArray(
                bytes, (int) (value.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET), length);
      } else {
        // Spark's on-heap pages are long[]: copy into one reused array instead of a new one each
        if (scratch.length < length) {
          scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        value.writeToMemory(scratch, Platform.BYTE_ARRAY_OFFSET);
        binary = Binary.fromReusedByteArray(scratch, 0, length);
      }
      column.write(binary, repetitionLevel, maxDefinitionLevel);
    }
  }

  static final class BinaryWriter extends Leaf {
    BinaryWriter(ColumnDescriptor desc) {
      super(desc);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      column.write(
          Binary.fromReusedByteArray(data.getBinary(ordinal)), repetitionLevel, maxDefinitionLevel);
    }
  }

  static final class FixedWriter extends Leaf {
    private final int length;
    private final String columnName;

    FixedWriter(ColumnDescriptor desc, int length, String columnName) {
      super(desc);
      this.length = length;
      this.columnName = columnName;
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      byte[] bytes = data.getBinary(ordinal);
      if (bytes.length != length) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot write %d bytes into column '%s' of type fixed[%d]: wrong length",
                bytes.length, columnName, length));
      }
      column.write(Binary.fromReusedByteArray(bytes), repetitionLevel, maxDefinitionLevel);
    }
  }

  /** Spark holds a uuid column as its string form; the file holds its 16 bytes. */
  static final class UuidWriter extends Leaf {
    private final String columnName;
    private final byte[] buffer = new byte[16];

    UuidWriter(ColumnDescriptor desc, String columnName) {
      super(desc);
      this.columnName = columnName;
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      String text = data.getUTF8String(ordinal).toString();
      UUID uuid;
      try {
        uuid = UUID.fromString(text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot write '%s' into column '%s' of type uuid: not a valid UUID",
                text, columnName),
            e);
      }
      putLong(buffer, 0, uuid.getMostSignificantBits());
      putLong(buffer, 8, uuid.getLeastSignificantBits());
      column.write(Binary.fromReusedByteArray(buffer), repetitionLevel, maxDefinitionLevel);
    }

    private static void putLong(byte[] bytes, int offset, long value) {
      for (int i = 7; i >= 0; i -= 1) {
        bytes[offset + i] = (byte) value;
        value >>>= 8;
      }
    }
  }

  /** Checks a decimal against its column the way the generic write path does. */
  abstract static class DecimalLeaf extends Leaf {
    protected final int precision;
    protected final int scale;
    private final String columnName;

    DecimalLeaf(ColumnDescriptor desc, Types.DecimalType type, String columnName) {
      super(desc);
      this.precision = type.precision();
      this.scale = type.scale();
      this.columnName = columnName;
    }

    /** The value with the column's scale, if no digit is lost and it fits the precision. */
    protected BigDecimal checked(Decimal decimal) {
      return Decimals.fitted(decimal.toJavaBigDecimal(), precision, scale, columnName);
    }
  }

  /** Decimals of up to 18 digits, stored as their unscaled int or long. */
  static final class SmallDecimalWriter extends DecimalLeaf {
    private final boolean asInt;
    private final long limit;

    SmallDecimalWriter(
        ColumnDescriptor desc, Types.DecimalType type, String columnName, boolean asInt) {
      super(desc, type, columnName);
      this.asInt = asInt;
      this.limit = BigInteger.TEN.pow(precision).longValueExact();
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      Decimal decimal = data.getDecimal(ordinal, precision, scale);
      long unscaled;
      if (decimal.scale() == scale) {
        try {
          unscaled = decimal.toUnscaledLong();
        } catch (ArithmeticException e) {
          unscaled = limit;
        }
        if (unscaled >= limit || unscaled <= -limit) {
          // too many digits: checked() fails naming the column
          unscaled = checked(decimal).unscaledValue().longValue();
        }
      } else {
        unscaled = checked(decimal).unscaledValue().longValue();
      }
      if (asInt) {
        column.write((int) unscaled, repetitionLevel, maxDefinitionLevel);
      } else {
        column.write(unscaled, repetitionLevel, maxDefinitionLevel);
      }
    }
  }

  /** Decimals of more than 18 digits, stored as fixed-length two's complement bytes. */
  static final class LargeDecimalWriter extends DecimalLeaf {
    private final byte[] buffer;

    LargeDecimalWriter(ColumnDescriptor desc, Types.DecimalType type, String columnName) {
      super(desc, type, columnName);
      this.buffer = new byte[TypeUtil.decimalRequiredBytes(precision)];
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      byte[] unscaled =
          checked(data.getDecimal(ordinal, precision, scale)).unscaledValue().toByteArray();
      byte fill = (byte) (unscaled[0] < 0 ? -1 : 0);
      int offset = buffer.length - unscaled.length;
      Arrays.fill(buffer, 0, offset, fill);
      System.arraycopy(unscaled, 0, buffer, offset, unscaled.length);
      column.write(Binary.fromReusedByteArray(buffer), repetitionLevel, maxDefinitionLevel);
    }
  }
}
