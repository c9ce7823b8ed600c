package io.floe.spark.orc;

import org.apache.orc.storage.ql.exec.vector.DoubleColumnVector;
import org.apache.spark.sql.types.DataType;

/** Floats and doubles from ORC's double vector (ORC reads floats into doubles exactly). */
final class OrcDoubleVector extends OrcVector {
  private final DoubleColumnVector doubles;

  OrcDoubleVector(DataType type, DoubleColumnVector doubles) {
    super(type, doubles);
    this.doubles = doubles;
  }

  @Override
  public float getFloat(int rowId) {
    return (float) doubles.vector[row(rowId)];
  }

  @Override
  public double getDouble(int rowId) {
    return doubles.vector[row(rowId)];
  }
}
