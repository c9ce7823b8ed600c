package io.floe.spark.functions;

import io.floe.spark.types.TimeTransforms;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code hours(timestamp | timestamp_ntz)}: Iceberg's hour transform, whole hours since
 * 1970-01-01T00:00 (the hour before is -1). NULL in, NULL out.
 */
public final class HoursFunction extends TimeFunction {
  static final String NAME = "hours";

  public HoursFunction() {
    super(NAME, false);
  }

  @Override
  BoundFunction forTimestamp(DataType type) {
    return new FromTimestamp(type);
  }

  /** For timestamps with or without time zone, given as microseconds since 1970-01-01T00:00. */
  public static final class FromTimestamp extends BoundTransform<Integer> {
    private static final long serialVersionUID = 1L;

    FromTimestamp(DataType type) {
      super(NAME, new DataType[] {type}, DataTypes.IntegerType);
    }

    public static int invoke(long micros) {
      return TimeTransforms.hoursFromMicros(micros);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getLong(0));
    }
  }
}
