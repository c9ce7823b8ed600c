package io.floe.spark.functions;

import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructType;

/** Checks the argument types a transform function is bound to; failures name the function. */
final class Arguments {
  private Arguments() {}

  /**
   * The types of the arguments, checking their number.
   *
   * @throws UnsupportedOperationException, which Spark reports as an invalid call, if the number
   *     differs
   */
  static DataType[] types(String function, String usage, StructType input, int count) {
    if (input.fields().length != count) {
      throw invalid(
          function,
          usage,
          String.format("expected %d argument(s) but got %d", count, input.fields().length));
    }
    DataType[] types = new DataType[count];
    for (int i = 0; i < count; i += 1) {
      types[i] = input.fields()[i].dataType();
    }
    return types;
  }

  /** Whether a type holds a Java int once Spark widens it: tinyint, smallint and int. */
  static boolean isInt(DataType type) {
    return type instanceof IntegerType || type instanceof ShortType || type instanceof ByteType;
  }

  static UnsupportedOperationException invalid(String function, String usage, String why) {
    return new UnsupportedOperationException(
        String.format("Cannot call %s: %s (usage: %s)", function, why, usage));
  }
}
