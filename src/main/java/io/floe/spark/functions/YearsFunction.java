package io.floe.spark.functions;

import io.floe.spark.types.TimeTransforms;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code years(date | timestamp | timestamp_ntz)}: Iceberg's year transform, whole years since 1970 (1969 is
 * -1). NULL in, NULL out.
 */
public final class YearsFunction extends TimeFunction {
  static final String NAME = "years";

  public YearsFunction() {
    super(NAME, true);
  }

  @Override
  BoundFunction forDate() {
    return new FromDate();
  }

  @Override
  BoundFunction forTimestamp(DataType type) {
    return new FromTimestamp(type);
  }

  /** For dates, given to the magic method as days since 1970-01-01. */
  public static final class FromDate extends BoundTransform<Integer> {
    private static final long serialVersionUID = 1L;

    FromDate() {
      super(NAME, new DataType[] {DataTypes.DateType}, DataTypes.IntegerType);
    }

    public static int invoke(int days) {
      return TimeTransforms.yearsFromDays(days);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getInt(0));
    }
  }

  /** For timestamps with or without time zone, given as microseconds since 1970-01-01T00:00. */
  public static final class FromTimestamp extends BoundTransform<Integer> {
    private static final long serialVersionUID = 1L;

    FromTimestamp(DataType type) {
      super(NAME, new DataType[] {type}, DataTypes.IntegerType);
    }

    public static int invoke(long micros) {
      return TimeTransforms.yearsFromMicros(micros);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getLong(0));
    }
  }
}
