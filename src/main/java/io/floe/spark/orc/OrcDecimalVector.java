package io.floe.spark.orc;

import org.apache.orc.storage.ql.exec.vector.DecimalColumnVector;
import org.apache.orc.storage.serde2.io.HiveDecimalWritable;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;

/**
 * Decimals from ORC's decimal vector of Hive decimals. Hive drops trailing zeros of the fraction,
 * so a value is brought back to the column's scale: as an unscaled long up to 18 digits, else as a
 * big decimal.
 */
final class OrcDecimalVector extends OrcVector {
  private final DecimalColumnVector decimals;

  OrcDecimalVector(DataType type, DecimalColumnVector decimals) {
    super(type, decimals);
    this.decimals = decimals;
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    HiveDecimalWritable value = decimals.vector[row(rowId)];
    if (precision <= Decimal.MAX_LONG_DIGITS()) {
      return Decimal.createUnsafe(value.serialize64(scale), precision, scale);
    }
    return Decimal.apply(value.getHiveDecimal().bigDecimalValue().setScale(scale), precision, scale);
  }
}
