package io.floe.spark.orc;

import org.apache.orc.storage.ql.exec.vector.Decimal64ColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;

/**
 * Decimals of at most 18 digits from ORC's decimal64 vector, which holds each value unscaled at the
 * vector's scale (a reader asks for it with ORC's {@code USE_DECIMAL64} batch version).
 */
final class OrcDecimal64Vector extends OrcVector {
  private final Decimal64ColumnVector decimals;

  OrcDecimal64Vector(DataType type, Decimal64ColumnVector decimals) {
    super(type, decimals);
    this.decimals = decimals;
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    if (scale != decimals.scale) {
      throw new IllegalStateException(
          "Cannot read an ORC decimal of scale " + decimals.scale + " at scale " + scale);
    }
    return Decimal.createUnsafe(decimals.vector[row(rowId)], precision, scale);
  }
}
