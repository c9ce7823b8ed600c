package io.floe.spark.functions;

import java.io.Serializable;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.apache.spark.sql.connector.catalog.functions.ScalarFunction;
import org.apache.spark.sql.types.DataType;

/**
 * What every bound transform function shares: its name, the argument types it was bound to and its
 * result type. Subclasses add Spark's magic {@code invoke} method for their argument types and a
 * {@code produceResult} that gives the same values. Bound functions travel inside query plans to
 * executors, so they are serializable and hold nothing but plain values; the bound classes are
 * public because the code Spark generates calls their {@code invoke} methods directly.
 */
abstract class BoundTransform<R> implements ScalarFunction<R>, Serializable {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final DataType[] inputTypes;
  private final DataType resultType;

  BoundTransform(String name, DataType[] inputTypes, DataType resultType) {
    this.name = name;
    this.inputTypes = inputTypes.clone();
    this.resultType = resultType;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public DataType[] inputTypes() {
    return inputTypes.clone();
  }

  @Override
  public DataType resultType() {
    return resultType;
  }

  /** Names the function and its argument types, so Spark tells bindings apart. */
  @Override
  public String canonicalName() {
    return Arrays.stream(inputTypes)
        .map(DataType::catalogString)
        .collect(Collectors.joining(", ", "floe." + name + "(", ")"));
  }

  @Override
  public String toString() {
    return canonicalName();
  }
}
