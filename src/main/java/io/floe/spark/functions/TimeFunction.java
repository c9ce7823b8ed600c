package io.floe.spark.functions;

import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * What the time transform functions ({@code years}, {@code months}, {@code days}, {@code hours})
 * share: one date, timestamp or timestamp_ntz argument. Iceberg computes timestamps with and
 * without time zone alike, from their microseconds since 1970-01-01T00:00 (UTC for timestamp).
 */
abstract class TimeFunction implements UnboundFunction {
  private final String name;
  private final boolean acceptsDates;

  TimeFunction(String name, boolean acceptsDates) {
    this.name = name;
    this.acceptsDates = acceptsDates;
  }

  /** The bound function for a date argument; called only for functions that accept dates. */
  BoundFunction forDate() {
    throw new IllegalStateException("Cannot bind " + name + " to a date");
  }

  /** The bound function for a timestamp or timestamp_ntz argument of the given type. */
  abstract BoundFunction forTimestamp(DataType type);

  @Override
  public final String name() {
    return name;
  }

  private String usage() {
    return name + (acceptsDates ? "(date | timestamp | timestamp_ntz)" : "(timestamp | timestamp_ntz)");
  }

  @Override
  public final BoundFunction bind(StructType inputType) {
    DataType type = Arguments.types(name, usage(), inputType, 1)[0];
    if (type instanceof DateType && acceptsDates) {
      return forDate();
    } else if (type instanceof TimestampType || type instanceof TimestampNTZType) {
      return forTimestamp(type);
    }
    throw Arguments.invalid(name, usage(), "cannot apply it to a value of type " + type.simpleString());
  }

  @Override
  public String description() {
    return usage() + ": the Iceberg " + name + " transform";
  }
}
