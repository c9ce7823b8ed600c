package io.floe.spark.functions;

import io.floe.spark.types.TimeTransforms;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code days(date | timestamp | timestamp_ntz)}: Iceberg's day transform, the date (days since
 * 1970-01-01; 1969-12-31 is -1), as a date. NULL in, NULL out.
 */
public final class DaysFunction extends TimeFunction {
  static final String NAME = "days";

  public DaysFunction() {
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
      super(NAME, new DataType[] {DataTypes.DateType}, DataTypes.DateType);
    }

    public static int invoke(int days) {
      return days;
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
      super(NAME, new DataType[] {type}, DataTypes.DateType);
    }

    public static int invoke(long micros) {
      return TimeTransforms.daysFromMicros(micros);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getLong(0));
    }
  }
}
